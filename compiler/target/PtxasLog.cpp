//===- PtxasLog.cpp - Parser for ptxas -v output --------------------------===//
//
// Line-oriented: each "Compiling entry function" / "Function properties for"
// line selects the current function; the following stack/spill and "Used"
// lines fill it in.
//
//===----------------------------------------------------------------------===//
#include "target/PtxasLog.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace kina::target {
namespace {

/// The text between the first pair of single quotes after `key`, or "".
llvm::StringRef quotedAfter(llvm::StringRef line, llvm::StringRef key) {
  size_t k = line.find(key);
  if (k == llvm::StringRef::npos)
    return {};
  llvm::StringRef rest = line.substr(k + key.size());
  size_t open = rest.find('\'');
  if (open == llvm::StringRef::npos)
    return {};
  rest = rest.substr(open + 1);
  return rest.take_until([](char c) { return c == '\''; });
}

/// Reads "N <label>" items separated by commas, e.g.
/// "0 bytes stack frame, 4 bytes spill stores".
template <class F> void forEachCountedItem(llvm::StringRef text, F &&f) {
  llvm::SmallVector<llvm::StringRef, 8> items;
  text.split(items, ',');
  for (llvm::StringRef item : items) {
    item = item.trim();
    // "used 1 barriers" and "Used 22 registers" start with a verb.
    if (item.consume_front("Used ") || item.consume_front("used "))
      item = item.trim();
    llvm::StringRef num = item.take_while([](char c) { return c >= '0' && c <= '9'; });
    std::uint64_t value = 0;
    if (num.empty() || num.getAsInteger(10, value))
      continue;
    f(value, item.drop_front(num.size()).trim());
  }
}

} // namespace

const PtxasFunctionStats *PtxasLog::find(std::string_view name) const {
  for (const PtxasFunctionStats &f : functions)
    if (f.name == name)
      return &f;
  return nullptr;
}

PtxasLog parsePtxasVerbose(std::string_view text) {
  PtxasLog log;
  PtxasFunctionStats *current = nullptr;
  auto select = [&](llvm::StringRef name) -> PtxasFunctionStats * {
    for (PtxasFunctionStats &f : log.functions)
      if (f.name == name)
        return &f;
    log.functions.push_back(PtxasFunctionStats{});
    log.functions.back().name = name.str();
    return &log.functions.back();
  };

  llvm::StringRef rest(text.data(), text.size());
  while (!rest.empty()) {
    auto [rawLine, tail] = rest.split('\n');
    rest = tail;
    llvm::StringRef line = rawLine.trim();
    if (line.contains("Compiling entry function")) {
      current = select(quotedAfter(line, "entry function"));
      current->isEntry = true;
      current->target = quotedAfter(line, " for ").str();
    } else if (line.contains("Function properties for ")) {
      llvm::StringRef name = line.substr(line.find("Function properties for ") + 24).trim();
      current = select(name);
    } else if (line.contains("Compiling function")) {
      // Older ptxas: "Compiling function 'f' for 'sm_80'" for device functions.
      current = select(quotedAfter(line, "Compiling function"));
    } else if (line.contains("bytes gmem") && line.starts_with("ptxas info")) {
      forEachCountedItem(line.substr(line.find(':') + 1), [&](std::uint64_t v, llvm::StringRef l) {
        if (l == "bytes gmem")
          log.globalBytes = v;
      });
    } else if (current && (line.contains("bytes stack frame") || line.contains("Used "))) {
      llvm::StringRef body = line;
      if (body.starts_with("ptxas info"))
        body = body.substr(body.find(':') + 1);
      forEachCountedItem(body, [&](std::uint64_t v, llvm::StringRef label) {
        if (label == "bytes stack frame")
          current->stackFrame = v;
        else if (label == "bytes spill stores")
          current->spillStores = v;
        else if (label == "bytes spill loads")
          current->spillLoads = v;
        else if (label == "registers")
          current->registers = static_cast<unsigned>(v);
        else if (label == "barriers")
          current->barriers = static_cast<unsigned>(v);
        else if (label == "bytes smem")
          current->sharedBytes = v;
        else if (label == "bytes cumulative stack size")
          current->cumulativeStack = v;
        else if (label.consume_front("bytes cmem[")) {
          unsigned bank = 0;
          if (!label.take_until([](char c) { return c == ']'; }).getAsInteger(10, bank))
            current->constBanks.emplace_back(bank, v);
        }
      });
    }
  }
  return log;
}

} // namespace kina::target
