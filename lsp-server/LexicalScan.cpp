//===- LexicalScan.cpp - Interim lexical facts about a Kina file ----------===//
#include "LexicalScan.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <unordered_set>

namespace kina::lsp {

const std::vector<std::string> &kinaKeywords() {
  static const std::vector<std::string> words = {
      "kernel", "tile",   "fn",   "requires", "capability", "mut",        "let",
      "in",     "for",    "if",   "else",     "return",     "shared",     "register",
      "block_grid", "warp_grid", "mod", "on", "Tensor", "Tile"};
  return words;
}
const std::vector<std::string> &kinaPrimitiveOps() {
  static const std::vector<std::string> words = {"cp_async",          "cp_async_commit",
                                                 "cp_async_wait_all", "cp_async_wait_group",
                                                 "block_sync",        "fill",
                                                 "wmma_mma",          "dp4a_mma",
                                                 "block_id",          "warp_id"};
  return words;
}
const std::vector<std::string> &kinaDTypes() {
  static const std::vector<std::string> words = {"F16", "BF16", "F32", "F64", "I8",  "I16",
                                                 "I32", "I64",  "U8",  "U32", "Bool"};
  return words;
}
const std::vector<std::string> &kinaPlacements() {
  static const std::vector<std::string> words = {"host", "cuda:global", "cuda:shared",
                                                 "cuda:register"};
  return words;
}

namespace {

bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)); }

struct Word {
  Span span;
  std::string_view text; ///< into the file's text
  int depth;             ///< brace depth at the word
};

char closerOf(char open) { return open == '{' ? '}' : open == '(' ? ')' : ']'; }

} // namespace

bool sameDiagnostics(const std::vector<Diagnostic> &a, const std::vector<Diagnostic> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const Diagnostic &x = a[i], &y = b[i];
    if (x.id != y.id || !(x.span == y.span) || x.message != y.message || x.notes != y.notes ||
        x.labels.size() != y.labels.size() || x.fixits.size() != y.fixits.size())
      return false;
    for (size_t j = 0; j < x.labels.size(); ++j)
      if (!(x.labels[j].span == y.labels[j].span) || x.labels[j].message != y.labels[j].message)
        return false;
    for (size_t j = 0; j < x.fixits.size(); ++j)
      if (!(x.fixits[j].span == y.fixits[j].span) ||
          x.fixits[j].replacement != y.fixits[j].replacement ||
          x.fixits[j].title != y.fixits[j].title)
        return false;
  }
  return true;
}

bool LexicalSummary::operator==(const LexicalSummary &o) const {
  auto sameKernels = [](const std::vector<KernelInfo> &a, const std::vector<KernelInfo> &b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const KernelInfo &x, const KernelInfo &y) {
                        return x.name == y.name && x.span == y.span && x.nameSpan == y.nameSpan;
                      });
  };
  return tokens == o.tokens && folds == o.folds && symbols == o.symbols &&
         sameKernels(kernels, o.kernels) && sameDiagnostics(diagnostics, o.diagnostics);
}

std::vector<Segment> splitItems(const std::string &s) {
  std::vector<uint32_t> cuts = {0};
  const uint32_t n = static_cast<uint32_t>(s.size());
  int depth = 0;
  for (uint32_t i = 0; i < n;) {
    char c = s[i];
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n')
        ++i;
    } else if (c == '{') {
      ++depth, ++i;
    } else if (c == '}') {
      depth = std::max(0, depth - 1), ++i;
    } else if (isIdentStart(c)) {
      uint32_t b = i;
      while (i < n && isIdentChar(s[i]))
        ++i;
      std::string_view w(s.data() + b, i - b);
      if (depth == 0 && b > 0 && (w == "kernel" || w == "tile" || w == "fn"))
        cuts.push_back(b);
    } else if (isDigit(c)) {
      while (i < n && isIdentChar(s[i]))
        ++i;
    } else {
      ++i;
    }
  }
  std::vector<Segment> out;
  for (size_t k = 0; k < cuts.size(); ++k) {
    uint32_t end = k + 1 < cuts.size() ? cuts[k + 1] : n;
    out.push_back({cuts[k], s.substr(cuts[k], end - cuts[k])});
  }
  return out;
}

void appendShifted(LexicalSummary &into, const LexicalSummary &s, uint32_t off) {
  auto shift = [off](Span sp) { return Span{sp.begin + off, sp.end + off}; };
  for (SemanticToken t : s.tokens) {
    t.span = shift(t.span);
    into.tokens.push_back(t);
  }
  for (FoldInfo f : s.folds) {
    f.span = shift(f.span);
    into.folds.push_back(f);
  }
  std::function<void(SymbolInfo &)> shiftSymbol = [&](SymbolInfo &sym) {
    sym.span = shift(sym.span);
    sym.selection = shift(sym.selection);
    for (auto &c : sym.children)
      shiftSymbol(c);
  };
  for (SymbolInfo sym : s.symbols) {
    shiftSymbol(sym);
    into.symbols.push_back(std::move(sym));
  }
  for (KernelInfo k : s.kernels) {
    k.span = shift(k.span);
    k.nameSpan = shift(k.nameSpan);
    into.kernels.push_back(std::move(k));
  }
  for (Diagnostic d : s.diagnostics) {
    d.span = shift(d.span);
    for (auto &l : d.labels)
      l.span = shift(l.span);
    for (auto &f : d.fixits)
      f.span = shift(f.span);
    into.diagnostics.push_back(std::move(d));
  }
}

LexicalSummary scanLexically(const SourceFile &file, bool endsFile) {
  using WordSet = std::unordered_set<std::string_view>;
  static const WordSet keywords(kinaKeywords().begin(), kinaKeywords().end());
  static const WordSet ops(kinaPrimitiveOps().begin(), kinaPrimitiveOps().end());
  static const WordSet dtypes(kinaDTypes().begin(), kinaDTypes().end());
  static const WordSet placementWords = {"host", "cuda", "global"};

  LexicalSummary out;
  const std::string &s = file.text();
  const uint32_t n = static_cast<uint32_t>(s.size());
  struct Open {
    char c;
    uint32_t at;
  };
  std::vector<Open> stack;
  std::vector<Word> words;
  int braceDepth = 0;
  // Comment runs, for comment folding.
  uint32_t runStart = 0, runEnd = 0, runLastLine = 0;
  bool inRun = false;
  auto flushRun = [&] {
    if (inRun && file.byteLineCol(runEnd).line > file.byteLineCol(runStart).line)
      out.folds.push_back({Span{runStart, runEnd}, true});
    inRun = false;
  };

  const std::string_view sv(s);
  uint32_t i = 0;
  while (i < n) {
    char c = s[i];
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == ',' || c == ':') {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      uint32_t b = i;
      while (i < n && s[i] != '\n')
        ++i;
      out.tokens.push_back({Span{b, i}, SemanticTokenType::Comment, 0});
      uint32_t line = file.byteLineCol(b).line;
      if (inRun && line == runLastLine + 1) {
        runEnd = i;
      } else {
        flushRun();
        inRun = true;
        runStart = b;
        runEnd = i;
      }
      runLastLine = line;
      continue;
    }
    if (isIdentStart(c)) {
      uint32_t b = i;
      while (i < n && isIdentChar(s[i]))
        ++i;
      words.push_back({Span{b, i}, sv.substr(b, i - b), braceDepth});
      continue;
    }
    if (isDigit(c)) {
      uint32_t b = i;
      if (c == '0' && i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        i += 2;
        while (i < n && (std::isxdigit(static_cast<unsigned char>(s[i])) || s[i] == '_'))
          ++i;
      } else {
        while (i < n && (isDigit(s[i]) || s[i] == '_'))
          ++i;
        if (i + 1 < n && s[i] == '.' && isDigit(s[i + 1])) {
          ++i;
          while (i < n && (isDigit(s[i]) || s[i] == '_'))
            ++i;
        }
        if (i < n && (s[i] == 'e' || s[i] == 'E')) {
          uint32_t j = i + 1;
          if (j < n && (s[j] == '+' || s[j] == '-'))
            ++j;
          if (j < n && isDigit(s[j])) {
            i = j;
            while (i < n && isDigit(s[i]))
              ++i;
          }
        }
      }
      out.tokens.push_back({Span{b, i}, SemanticTokenType::Number, 0});
      continue;
    }
    if (c == '{' || c == '(' || c == '[') {
      stack.push_back({c, i});
      if (c == '{')
        ++braceDepth;
      ++i;
      continue;
    }
    if (c == '}' || c == ')' || c == ']') {
      if (!stack.empty() && closerOf(stack.back().c) == c) {
        Open open = stack.back();
        stack.pop_back();
        if (c == '}')
          --braceDepth;
        if (file.byteLineCol(i).line > file.byteLineCol(open.at).line)
          out.folds.push_back({Span{open.at, i}, false});
      } else {
        Diagnostic d{DiagId::UnmatchedClosing, Span{i, i + 1},
                     std::string("unmatched `") + c + "`: it closes nothing",
                     {}, {}, {}};
        if (!stack.empty())
          d.label(Span{stack.back().at, stack.back().at + 1},
                  std::string("the innermost open delimiter is this `") + stack.back().c + "`");
        d.fix(Span{i, i + 1}, "", std::string("remove the unmatched `") + c + "`");
        out.diagnostics.push_back(std::move(d));
      }
      ++i;
      continue;
    }
    // Operators worth highlighting.
    char c1 = i + 1 < n ? s[i + 1] : '\0';
    char c2 = i + 2 < n ? s[i + 2] : '\0';
    uint32_t len = 0;
    if (c == '.' && c1 == '.')
      len = c2 == '+' ? 3 : 2;
    else if ((c == '<' && (c1 == '-' || c1 == '=')) || ((c == '!' || c == '>') && c1 == '='))
      len = 2;
    else if (c == '+' || c == '-' || c == '*' || c == '/' || c == '=' || c == '<' || c == '>')
      len = 1;
    if (len) {
      out.tokens.push_back({Span{i, i + len}, SemanticTokenType::Operator, 0});
      i += len;
      continue;
    }
    // Any other byte (whitespace, punctuation, non-ASCII) is skipped whole.
    ++i;
  }
  flushRun();
  // Whatever is still open at the end is unclosed (innermost first).
  for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
    Diagnostic d{DiagId::UnclosedDelimiter, Span{it->at, it->at + 1},
                 std::string("unclosed `") + it->c + "`", {}, {}, {}};
    d.label(Span{n, n}, endsFile ? "the file ends here" : "the next item starts here");
    std::string closer(1, closerOf(it->c));
    d.fix(Span{n, n}, (n > 0 && s[n - 1] != '\n' ? "\n" : "") + closer + "\n",
          "insert `" + closer + "` " + (endsFile ? "at the end of the file" : "before the next item"));
    out.diagnostics.push_back(std::move(d));
  }
  sortDiagnostics(out.diagnostics);

  // Classify words, and find items and their declarations. Word tokens are
  // appended after the (sorted) byte-loop tokens and merged at the end.
  const size_t firstWordToken = out.tokens.size();
  auto closingBraceAfter = [&](uint32_t from) -> uint32_t {
    // The first '{' after `from` at the same depth, then its match.
    int depth = 0;
    bool opened = false;
    for (uint32_t k = from; k < n; ++k) {
      if (s[k] == '/' && k + 1 < n && s[k + 1] == '/') {
        while (k < n && s[k] != '\n')
          ++k;
        continue;
      }
      if (s[k] == '{') {
        ++depth;
        opened = true;
      } else if (s[k] == '}' && opened && --depth == 0) {
        return k + 1;
      }
    }
    return n;
  };
  SymbolInfo *currentItem = nullptr;
  uint32_t currentItemEnd = 0;
  for (size_t w = 0; w < words.size(); ++w) {
    const Word &word = words[w];
    const Word *next = w + 1 < words.size() ? &words[w + 1] : nullptr;
    if (currentItem && word.span.begin >= currentItemEnd)
      currentItem = nullptr;
    // `shared` / `register` right after `cuda:` are placements, not declarations.
    uint32_t before = word.span.begin;
    while (before > 0 && (s[before - 1] == ' ' || s[before - 1] == '\t'))
      --before;
    bool afterColon = before > 0 && s[before - 1] == ':';
    if (afterColon && (word.text == "shared" || word.text == "register")) {
      out.tokens.push_back({word.span, SemanticTokenType::EnumMember, ModDefaultLibrary});
      continue;
    }
    if (keywords.count(word.text)) {
      out.tokens.push_back({word.span, SemanticTokenType::Keyword, 0});
      bool isItem = word.text == "kernel" || word.text == "tile" || word.text == "fn";
      if (isItem && word.depth == 0 && next) {
        uint32_t end = closingBraceAfter(next->span.end);
        SymbolCategory cat = word.text == "kernel" ? SymbolCategory::Kernel
                             : word.text == "tile" ? SymbolCategory::TileFunction
                                                   : SymbolCategory::HostFunction;
        out.symbols.push_back({std::string(next->text), std::string(word.text), cat,
                               Span{word.span.begin, end}, next->span, {}});
        currentItem = &out.symbols.back();
        currentItemEnd = end;
        if (cat == SymbolCategory::Kernel)
          out.kernels.push_back({std::string(next->text), Span{word.span.begin, end}, next->span});
        out.tokens.push_back({next->span, SemanticTokenType::Function, ModDeclaration});
        ++w;
        continue;
      }
      bool isDecl = word.text == "shared" || word.text == "register" || word.text == "let";
      bool isDeclName = next && !keywords.count(next->text) && !ops.count(next->text);
      if (isDecl && currentItem && isDeclName && next->span.begin < currentItemEnd) {
        SymbolCategory cat = word.text == "shared"     ? SymbolCategory::SharedTile
                             : word.text == "register" ? SymbolCategory::RegisterTile
                                                       : SymbolCategory::Variable;
        currentItem->children.push_back({std::string(next->text), std::string(word.text), cat,
                                         Span{word.span.begin, next->span.end}, next->span, {}});
        out.tokens.push_back({next->span, SemanticTokenType::Variable, ModDeclaration});
        ++w;
      }
      continue;
    }
    if (ops.count(word.text))
      out.tokens.push_back({word.span, SemanticTokenType::Macro, ModDefaultLibrary});
    else if (dtypes.count(word.text))
      out.tokens.push_back({word.span, SemanticTokenType::Type, ModDefaultLibrary});
    else if (placementWords.count(word.text))
      out.tokens.push_back({word.span, SemanticTokenType::EnumMember, ModDefaultLibrary});
  }
  std::inplace_merge(out.tokens.begin(), out.tokens.begin() + firstWordToken, out.tokens.end(),
                     [](const SemanticToken &a, const SemanticToken &b) {
                       return a.span.begin < b.span.begin;
                     });
  std::sort(out.folds.begin(), out.folds.end(), [](const FoldInfo &a, const FoldInfo &b) {
    return a.span.begin < b.span.begin;
  });
  return out;
}

} // namespace kina::lsp
