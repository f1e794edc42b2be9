//===- LineMap.cpp - PTX and SASS instructions per Kina source line -------===//
#include "target/LineMap.h"

#include <algorithm>
#include <charconv>
#include <set>

namespace kina::target {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool has(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

/// Splits text into lines (without their newlines).
std::vector<std::string_view> lines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t at = 0;
  while (at <= text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) {
      if (at < text.size())
        out.push_back(text.substr(at));
      break;
    }
    out.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return out;
}

/// The unsigned integer at the start of s (after blanks); advances s.
std::optional<uint32_t> number(std::string_view &s) {
  s = trim(s);
  uint32_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc())
    return std::nullopt;
  s.remove_prefix(static_cast<size_t>(p - s.data()));
  return v;
}

/// The first double-quoted string in s.
std::string quoted(std::string_view s) {
  size_t a = s.find('"');
  if (a == std::string_view::npos)
    return "";
  size_t b = s.find('"', a + 1);
  return b == std::string_view::npos ? "" : std::string(s.substr(a + 1, b - a - 1));
}

} // namespace

std::string_view instrClassName(InstrClass c) {
  switch (c) {
  case InstrClass::Mma:
    return "mma";
  case InstrClass::GlobalLoad:
    return "ld.global";
  case InstrClass::GlobalStore:
    return "st.global";
  case InstrClass::SharedLoad:
    return "ld.shared";
  case InstrClass::SharedStore:
    return "st.shared";
  case InstrClass::LocalMemory:
    return "local";
  case InstrClass::AsyncCopy:
    return "async copy";
  case InstrClass::Barrier:
    return "barrier";
  case InstrClass::Convert:
    return "cvt";
  case InstrClass::Other:
    return "other";
  }
  return "other";
}

InstrClass classifyPtxInstruction(std::string_view op) {
  if (startsWith(op, "mma.") || startsWith(op, "wgmma.mma_async"))
    return InstrClass::Mma;
  if (startsWith(op, "cp.async.wait") || startsWith(op, "cp.async.commit") ||
      startsWith(op, "cp.async.bulk.commit") || startsWith(op, "cp.async.bulk.wait") ||
      startsWith(op, "wgmma.") || startsWith(op, "bar.") || startsWith(op, "barrier.") ||
      startsWith(op, "mbarrier.") || startsWith(op, "fence.") || startsWith(op, "membar.") ||
      startsWith(op, "bar.warp") || startsWith(op, "griddepcontrol"))
    return InstrClass::Barrier;
  if (startsWith(op, "cp.async") || startsWith(op, "cp.reduce.async"))
    return InstrClass::AsyncCopy;
  if (startsWith(op, "ldmatrix"))
    return InstrClass::SharedLoad;
  if (startsWith(op, "stmatrix"))
    return InstrClass::SharedStore;
  if (startsWith(op, "ld.local") || startsWith(op, "st.local"))
    return InstrClass::LocalMemory;
  if (startsWith(op, "ld.global") || startsWith(op, "ldu.global"))
    return InstrClass::GlobalLoad;
  if (startsWith(op, "st.global") || startsWith(op, "red.global") || startsWith(op, "atom.global"))
    return InstrClass::GlobalStore;
  if (startsWith(op, "ld.shared"))
    return InstrClass::SharedLoad;
  if (startsWith(op, "st.shared") || startsWith(op, "atom.shared") || startsWith(op, "red.shared"))
    return InstrClass::SharedStore;
  if (startsWith(op, "cvt."))
    return InstrClass::Convert;
  return InstrClass::Other;
}

InstrClass classifySassInstruction(std::string_view op) {
  static const std::set<std::string_view, std::less<>> mma = {
      "HMMA", "HGMMA", "IMMA", "IGMMA", "QMMA", "QGMMA", "BMMA", "BGMMA", "DMMA"};
  if (mma.count(op) || (startsWith(op, "UTC") && has(op, "MMA")))
    return InstrClass::Mma;
  if (op == "LDG")
    return InstrClass::GlobalLoad;
  if (op == "STG" || op == "RED" || op == "ATOMG")
    return InstrClass::GlobalStore;
  if (op == "LDS" || op == "LDSM")
    return InstrClass::SharedLoad;
  if (op == "STS" || op == "STSM" || op == "ATOMS")
    return InstrClass::SharedStore;
  if (op == "LDL" || op == "STL")
    return InstrClass::LocalMemory;
  if (op == "LDGSTS" || startsWith(op, "UTMA") || op == "UBLKCP")
    return InstrClass::AsyncCopy;
  if (op == "BAR" || op == "SYNCS" || op == "DEPBAR" || op == "LDGDEPBAR" || op == "WARPSYNC" ||
      op == "MEMBAR" || op == "WARPGROUP" || op == "FENCE")
    return InstrClass::Barrier;
  if (op == "F2F" || op == "F2I" || op == "I2F" || op == "F2FP" || op == "I2FP" || op == "F2IP")
    return InstrClass::Convert;
  return InstrClass::Other;
}

std::string InstrCounts::render() const {
  std::string s = std::to_string(total) + (total == 1 ? " instruction" : " instructions");
  bool first = true;
  for (int c = 0; c < kInstrClassCount; ++c) {
    if (!byClass[c])
      continue;
    s += first ? ": " : ", ";
    first = false;
    s += std::string(instrClassName(static_cast<InstrClass>(c))) + " " + std::to_string(byClass[c]);
  }
  return s;
}

std::vector<const MappedInstruction *> LineMap::ofLines(uint32_t first, uint32_t last) const {
  std::vector<const MappedInstruction *> out;
  for (const MappedInstruction &i : instructions)
    if (i.sourceLine != 0 && first <= i.sourceLine && i.sourceLine <= last)
      out.push_back(&i);
  return out;
}

std::optional<uint32_t> LineMap::sourceLineOf(uint32_t listingLine) const {
  for (const MappedInstruction &i : instructions)
    if (i.listingLine <= listingLine && listingLine <= i.listingEnd)
      return i.sourceLine ? std::optional<uint32_t>(i.sourceLine) : std::nullopt;
  return std::nullopt;
}

std::vector<uint32_t> LineMap::sourceLines() const {
  std::set<uint32_t> s;
  for (const MappedInstruction &i : instructions)
    if (i.sourceLine)
      s.insert(i.sourceLine);
  return {s.begin(), s.end()};
}

InstrCounts LineMap::count(const std::vector<const MappedInstruction *> &instrs) {
  InstrCounts c;
  for (const MappedInstruction *i : instrs) {
    ++c.total;
    ++c.byClass[static_cast<int>(i->cls)];
  }
  return c;
}

LineMap mapPtxLines(std::string_view ptx) {
  LineMap map;
  std::map<uint32_t, std::string> files;
  std::string function;
  unsigned depth = 0; ///< `{` / `}` scopes open (1: the function body)
  uint32_t curFile = 0, curLine = 0, curCol = 0;
  std::vector<std::string_view> ls = lines(ptx);
  // NVPTX prints the `.file` table after the functions: read it first.
  for (std::string_view raw : ls) {
    std::string_view l = trim(raw);
    if (startsWith(l, ".file")) {
      std::string_view rest = l.substr(5);
      if (auto id = number(rest))
        files[*id] = quoted(rest);
    }
  }
  for (size_t n = 0; n < ls.size(); ++n) {
    std::string_view l = trim(ls[n]);
    if (l.empty() || startsWith(l, "//") || startsWith(l, ".file"))
      continue;
    // Scopes: the function body and the inline-asm blocks inside it (wgmma,
    // at column 0 too) are `{` / `}` alone on a line; operand lists such as
    // `{%r1, %r2},` are not.
    if (l == "{") {
      if (depth++ == 0)
        curFile = curLine = curCol = 0;
      continue;
    }
    if (l == "}") {
      if (depth > 0)
        --depth;
      continue;
    }
    if (depth == 0) {
      // `.visible .entry name(` / `.func (.param ...) name(`: the function
      // whose body opens next.
      for (std::string_view kw : {".entry ", ".func "}) {
        size_t at = l.find(kw);
        if (at == std::string_view::npos)
          continue;
        std::string_view name = trim(l.substr(at + kw.size()));
        if (!name.empty() && name.front() == '(') {
          size_t close = name.find(')');
          name = close == std::string_view::npos ? "" : trim(name.substr(close + 1));
        }
        function = std::string(name.substr(0, name.find_first_of("( \t")));
      }
      continue;
    }
    if (startsWith(l, ".loc")) {
      std::string_view rest = l.substr(4);
      auto f = number(rest), line = number(rest), col = number(rest);
      if (f && line) {
        curFile = *f;
        curLine = *line;
        curCol = col.value_or(0);
      }
      continue;
    }
    // Declarations, labels and scope braces are not instructions.
    if (l.front() == '.' || l.front() == '{' || l.front() == '}' || l.back() == ':' ||
        startsWith(l, "$L"))
      continue;
    std::string_view op = l;
    if (op.front() == '@') { // a guard predicate `@%p1 bra ...` / `@!%p1`
      size_t sp = op.find_first_of(" \t");
      op = sp == std::string_view::npos ? "" : trim(op.substr(sp));
    }
    op = op.substr(0, op.find_first_of(" \t;"));
    MappedInstruction m;
    m.listingLine = static_cast<uint32_t>(n + 1);
    m.sourceLine = curLine;
    m.sourceColumn = curCol;
    if (auto it = files.find(curFile); it != files.end())
      m.file = it->second;
    m.function = function;
    m.text = std::string(l);
    // An instruction continues until its `;` (mma's operand lists are on
    // lines of their own).
    while (m.text.find(';') == std::string::npos && n + 1 < ls.size()) {
      std::string_view next = trim(ls[++n]);
      m.text += " ";
      m.text += next;
    }
    m.listingEnd = static_cast<uint32_t>(n + 1);
    m.cls = classifyPtxInstruction(op);
    map.instructions.push_back(std::move(m));
  }
  return map;
}

LineMap mapSassLines(std::string_view listing) {
  LineMap map;
  std::string function, file;
  uint32_t curLine = 0;
  std::vector<std::string_view> ls = lines(listing);
  for (size_t n = 0; n < ls.size(); ++n) {
    std::string_view l = trim(ls[n]);
    if (l.empty())
      continue;
    if (startsWith(l, "//##")) { // //## File "/x/gemm.kina", line 31[ inlined at ...]
      file = quoted(l);
      size_t at = l.find(", line ");
      curLine = 0;
      if (at != std::string_view::npos) {
        std::string_view rest = l.substr(at + 7);
        curLine = number(rest).value_or(0);
      }
      continue;
    }
    if (startsWith(l, ".text.") && l.back() == ':') { // a function's code starts
      function = std::string(l.substr(6, l.size() - 7));
      curLine = 0;
      file.clear();
      continue;
    }
    // /*0080*/                   @P0 HMMA.16816.F32 R4, R8, R12, R4 ;
    if (!startsWith(l, "/*"))
      continue;
    size_t close = l.find("*/");
    if (close == std::string_view::npos)
      continue;
    std::string_view text = trim(l.substr(close + 2));
    if (text.empty() || has(text.substr(0, 2), "/*"))
      continue;
    std::string_view op = text;
    if (op.front() == '@') {
      size_t sp = op.find_first_of(" \t");
      op = sp == std::string_view::npos ? "" : trim(op.substr(sp));
    }
    op = op.substr(0, op.find_first_of(". \t;"));
    MappedInstruction m;
    m.listingLine = static_cast<uint32_t>(n + 1);
    m.sourceLine = curLine;
    m.file = file;
    m.function = function;
    // Drop the trailing encoding comment `/* 0x... */` nvdisasm prints without -c.
    m.text = std::string(trim(text.substr(0, text.find("/*"))));
    m.listingEnd = m.listingLine;
    m.cls = classifySassInstruction(op);
    map.instructions.push_back(std::move(m));
  }
  return map;
}

std::string renderLineTable(const LineMap &map) {
  std::string out, function;
  bool first = true;
  for (const MappedInstruction &i : map.instructions) {
    if (first || i.function != function) {
      out += "// " + i.function + "\n";
      function = i.function;
      first = false;
    }
    out += (i.sourceLine ? std::to_string(i.sourceLine) : std::string("-")) + "\t" + i.text + "\n";
  }
  return out;
}

} // namespace kina::target
