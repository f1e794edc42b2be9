//===- Parser.cpp - Parse, lower, and explain syntax errors ---------------===//
//
// tree-sitter gives a tree with ERROR and MISSING nodes; this file turns them
// into specific messages ("expected `in` after the `let` binding", "unclosed
// `[`", "unknown keyword `kernal`"). A lexical delimiter scan supplies the
// opener of an unclosed bracket, which the CST alone does not locate well.
//
//===----------------------------------------------------------------------===//
#include "syntax/Parser.h"
#include "diag/Spelling.h"
#include "syntax/Lower.h"
#include "syntax/Splice.h"
#include "syntax/TableParser.h"
#include "syntax/TuneParams.h"

#include <algorithm>
#include <set>
#include <thread>
#include <cstring>
#include <tree_sitter/api.h>

namespace kina::syntax {
namespace {

constexpr size_t kMaxFileBytes = 64u << 20;
constexpr size_t kMaxSyntaxErrors = 100;
/// Files at least this large are table-parsed on two threads.
constexpr size_t kParallelParseBytes = 256u << 10;
/// The most tokens a broken item may have for the tree-sitter runtime to
/// parse it. Two limits meet here. Debian's runtime (0.20.7) stores a node's
/// child count in 16 bits (SubtreeHeapData::child_count); an ERROR node with
/// more than 65,535 children wraps it, and ts_tree_delete then frees the node
/// from a wrong address (100,000 unclosed `(`: `munmap_chunk(): invalid
/// pointer`); recovery inserts at most one MISSING child per token read, so
/// an item of at most 32,767 tokens is safe. And the runtime's recovery
/// re-summarizes the growing ERROR node for each token it wraps, quadratic
/// in its size (a 20,000-argument application after a stray byte: 5.6 s,
/// over 4 GB under ASan; the parser fuzzer's slow unit). 4,096 tokens is
/// several times the largest kernel of the repository and costs under
/// 0.1 s in the worst case measured.
constexpr size_t kMaxRuntimeTokens = 4096;

struct Delimiter {
  char open;
  uint32_t offset;
};

char closerOf(char open) { return open == '(' ? ')' : open == '[' ? ']' : '}'; }

/// Finds unclosed openers and unmatched closers, skipping comments.
/// Also measures the deepest nesting.
struct DelimiterScan {
  std::vector<Delimiter> unclosed;
  std::vector<Delimiter> unmatched; ///< `open` holds the closing char here
  unsigned maxDepth = 0;
  uint32_t deepestOffset = 0;

  /// Scans text[begin, text.size()); offsets stay absolute.
  explicit DelimiterScan(std::string_view text, uint32_t begin = 0) {
    std::vector<Delimiter> stack;
    for (uint32_t i = begin; i < text.size(); ++i) {
      char c = text[i];
      if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
        while (i < text.size() && text[i] != '\n')
          ++i;
        continue;
      }
      if (c == '(' || c == '[' || c == '{') {
        stack.push_back({c, i});
        if (stack.size() > maxDepth) {
          maxDepth = static_cast<unsigned>(stack.size());
          deepestOffset = i;
        }
      } else if (c == ')' || c == ']' || c == '}') {
        // Pop to the nearest matching opener; openers skipped over are unclosed.
        auto match = std::find_if(stack.rbegin(), stack.rend(),
                                  [&](const Delimiter &d) { return closerOf(d.open) == c; });
        if (match == stack.rend()) {
          unmatched.push_back({c, i});
          continue;
        }
        size_t keep = static_cast<size_t>(stack.rend() - match) - 1;
        for (size_t k = keep + 1; k < stack.size(); ++k)
          unclosed.push_back(stack[k]);
        stack.resize(keep);
      }
    }
    unclosed.insert(unclosed.end(), stack.begin(), stack.end());
    std::sort(unclosed.begin(), unclosed.end(),
              [](const Delimiter &a, const Delimiter &b) { return a.offset < b.offset; });
  }
};

const std::vector<std::string> &statementKeywords() {
  static const std::vector<std::string> words = {
      "block_grid",     "warp_grid",    "let",          "shared",           "register",
      "for",            "if",           "cp_async",     "cp_async_commit",  "cp_async_wait_all",
      "block_sync",     "return",       "else",         "cp_async_wait_group",
      "warpgroup_grid", "role",         "arrive",       "wait",             "tma_load",
      "wgmma_commit",   "wgmma_wait",   "fence_proxy_async", "tma_store",   "tma_store_commit",
      "tma_store_wait", "masked"};
  return words;
}

const std::vector<std::string> &itemKeywords() {
  static const std::vector<std::string> words = {"kernel", "tile", "fn", "requires", "capability"};
  return words;
}

/// The closest keyword within a small edit distance, or empty.
std::string closestKeyword(std::string_view word, const std::vector<std::string> &candidates) {
  return closestSpelling(word, candidates, word.size() <= 4 ? 1 : 2);
}

/// Human description of the construct a CST node kind stands for.
std::string describeContext(std::string_view kind) {
  static const std::pair<const char *, const char *> table[] = {
      {"let_binding", "the `let` binding"},
      {"kernel_definition", "the kernel signature"},
      {"tile_function", "the tile function signature"},
      {"host_function", "the function signature"},
      {"requires_clause", "the `requires` clause"},
      {"capability_requirement", "`capability(...)`"},
      {"parameter", "the parameter"},
      {"named_result", "the result"},
      {"tensor_type", "the `Tensor[...]` type"},
      {"tile_type", "the `Tile[...]` type"},
      {"shape", "the shape"},
      {"placement", "the placement"},
      {"block_grid", "`block_grid`"},
      {"warp_grid", "`warp_grid`"},
      {"warpgroup_grid", "`warpgroup_grid`"},
      {"role", "the `role`"},
      {"barrier_type", "the `Barrier[...]` type"},
      {"arrive_statement", "`arrive`"},
      {"wait_statement", "`wait`"},
      {"tma_load_statement", "`tma_load`"},
      {"wgmma_statement", "`wgmma`"},
      {"wgmma_wait", "`wgmma_wait`"},
      {"tma_store_statement", "`tma_store`"},
      {"tma_store_wait", "`tma_store_wait`"},
      {"shared_declaration", "the `shared` declaration"},
      {"register_declaration", "the `register` declaration"},
      {"for_statement", "the `for` loop"},
      {"range", "the range"},
      {"if_statement", "the `if` statement"},
      {"cp_async_statement", "`cp_async`"},
      {"cp_async_wait_group", "`cp_async_wait_group`"},
      {"assignment", "the assignment"},
      {"return_statement", "`return`"},
      {"index_expression", "the index"},
      {"slice", "the slice"},
      {"application", "the application"},
      {"binary_expression", "the operator"},
      {"parenthesized_expression", "the parenthesized expression"},
      {"block", "the block"},
      {"dim_params", "the dimension list"},
  };
  for (auto &[k, d] : table)
    if (kind == k)
      return d;
  return "this construct";
}

std::string describeMissing(std::string_view kind) {
  if (kind == "identifier")
    return "a name";
  if (kind == "integer")
    return "an integer";
  if (kind == "_expression" || kind == "binary_expression")
    return "an expression";
  return "`" + std::string(kind) + "`";
}

bool isPunctuation(std::string_view kind) {
  return !kind.empty() && !std::isalpha(static_cast<unsigned char>(kind[0])) && kind[0] != '_';
}

/// The children of `n` in order (ts_node_child(n, i) is linear in i, so a
/// loop over it is quadratic on a node with thousands of children).
std::vector<TSNode> childrenOf(TSNode n) {
  std::vector<TSNode> out;
  TSTreeCursor cursor = ts_tree_cursor_new(n);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do
      out.push_back(ts_tree_cursor_current_node(&cursor));
    while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

class SyntaxErrorReporter {
public:
  SyntaxErrorReporter(const SourceFile &file, std::vector<Diagnostic> &out,
                      const DelimiterScan &scan)
      : file_(file), out_(out), scan_(scan) {}

  void visit(TSNode root) {
    root_ = root;
    // Iterative walk: the tree may be 10,000 levels deep.
    std::vector<TSNode> stack{root};
    while (!stack.empty() && count_ < kMaxSyntaxErrors) {
      TSNode n = stack.back();
      stack.pop_back();
      if (ts_node_is_missing(n)) {
        reportMissing(n);
        continue;
      }
      if (ts_node_symbol(n) == static_cast<TSSymbol>(-1)) {
        reportError(n);
        continue;
      }
      if (!ts_node_has_error(n))
        continue;
      std::vector<TSNode> children = childrenOf(n);
      stack.insert(stack.end(), children.rbegin(), children.rend());
    }
  }

private:
  const SourceFile &file_;
  std::vector<Diagnostic> &out_;
  const DelimiterScan &scan_;
  size_t count_ = 0;
  TSNode root_{};

  static Span span(TSNode n) { return {ts_node_start_byte(n), ts_node_end_byte(n)}; }
  std::string text(TSNode n) const { return std::string(file_.slice(span(n))); }

  Diagnostic &report(DiagId id, Span s, std::string message) {
    ++count_;
    out_.push_back(Diagnostic{id, s, std::move(message), {}, {}, {}});
    return out_.back();
  }

  /// The last real token (not a comment, not MISSING) that starts before
  /// `offset`; a null node when there is none.
  TSNode lastTokenBefore(uint32_t offset) const {
    TSNode n = root_;
    TSNode none{};
    while (true) {
      std::vector<TSNode> children = childrenOf(n);
      TSNode pick = none;
      for (auto it = children.rbegin(); it != children.rend(); ++it) {
        TSNode c = *it;
        if (ts_node_is_missing(c) || ts_node_is_extra(c) || ts_node_end_byte(c) == ts_node_start_byte(c))
          continue;
        if (ts_node_start_byte(c) < offset) {
          pick = c;
          break;
        }
      }
      if (ts_node_is_null(pick))
        return n.id == root_.id ? none : n;
      if (ts_node_child_count(pick) == 0)
        return pick;
      n = pick;
    }
  }

  /// The first leaf inside `n` that is not a comment.
  static TSNode firstRealLeaf(TSNode n) {
    std::vector<TSNode> stack{n};
    while (!stack.empty()) {
      TSNode c = stack.back();
      stack.pop_back();
      if (ts_node_is_extra(c) && ts_node_child_count(c) == 0)
        continue;
      if (ts_node_child_count(c) == 0)
        return c;
      std::vector<TSNode> children = childrenOf(c);
      stack.insert(stack.end(), children.rbegin(), children.rend());
    }
    return n;
  }

  static bool hasAncestor(TSNode n, const char *kind) {
    for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p))
      if (std::strcmp(ts_node_type(p), kind) == 0)
        return true;
    return false;
  }

  bool delimiterIssueCovers(std::string_view missingKind) const {
    if (missingKind != ")" && missingKind != "]" && missingKind != "}")
      return false;
    return !scan_.unclosed.empty();
  }

  void reportMissing(TSNode n) {
    std::string kind = ts_node_type(n);
    if (delimiterIssueCovers(kind))
      return; // the delimiter scan reports it with the opener's location
    TSNode parent = ts_node_parent(n);
    std::string context = ts_node_is_null(parent) ? "" : ts_node_type(parent);
    uint32_t at = ts_node_start_byte(n);
    TSNode prev = lastTokenBefore(at);
    Span s{at, at};
    std::string after;
    if (!ts_node_is_null(prev)) {
      after = text(prev);
      s = span(prev);
    }
    if (kind == "identifier" && context == "slice") {
      reportSliceWithoutLength(s);
      return;
    }
    std::string message = "expected " + describeMissing(kind);
    if (kind == "in" && (context == "let_binding" || hasAncestor(n, "let_binding") ||
                         context != "for_statement"))
      message += " after the `let` binding";
    else if (kind == "in")
      message += " after the loop variable of the `for` loop";
    else if (!after.empty())
      message += " after `" + after + "` in " + describeContext(context);
    auto &d = report(DiagId::MissingToken, s, message);
    if (isPunctuation(kind) || kind == "in")
      d.fix(Span{s.end, s.end}, " " + kind, "insert `" + kind + "`");
  }

  void reportSliceWithoutLength(Span s) {
    report(DiagId::SliceWithoutLength, s, "expected a length after `..+` in the slice")
        .note("a slice is written `start ..+ length`, e.g. `k * 16 ..+ 16`");
  }

  void reportError(TSNode n) {
    Span s = span(n);
    TSNode parent = ts_node_parent(n);
    std::string context = ts_node_is_null(parent) ? "source_file" : ts_node_type(parent);
    // First and last leaves inside the error.
    TSNode first = firstRealLeaf(n);
    TSNode last = n;
    while (ts_node_child_count(last) > 0)
      last = ts_node_child(last, ts_node_child_count(last) - 1);
    std::string firstText = text(first);
    std::string lastType = ts_node_type(last);

    if (lastType == "..+") {
      reportSliceWithoutLength(span(last));
      return;
    }
    // Delimiters that close nothing or are never closed are reported by the scan.
    if (firstText.size() == 1 && std::strchr(")]}([{", firstText[0])) {
      for (const Delimiter &d : scan_.unmatched)
        if (d.offset == ts_node_start_byte(first))
          return;
      for (const Delimiter &d : scan_.unclosed)
        if (d.offset == ts_node_start_byte(first))
          return;
    }
    if (firstText.empty())
      return;
    if (context == "source_file" &&
        (firstText == "kernel" || firstText == "tile" || firstText == "fn")) {
      // A broken item: an unclosed bracket explains it best when there is one.
      if (!scan_.unclosed.empty() || !scan_.unmatched.empty())
        return;
      report(DiagId::UnexpectedToken, span(first),
             "this `" + firstText + "` definition could not be parsed: expected `" + firstText +
                 " name [dims] requires ... (param : Type) ... : Result { body }`");
      return;
    }
    if (ts_node_symbol(first) == CstIds::get().identifier || std::isalpha(
            static_cast<unsigned char>(firstText.empty() ? ' ' : firstText[0]))) {
      bool atItemLevel = context == "source_file";
      std::string suggestion = closestKeyword(firstText, itemKeywords());
      if (suggestion.empty() && !atItemLevel)
        suggestion = closestKeyword(firstText, statementKeywords());
      if (!suggestion.empty()) {
        report(DiagId::MisspelledKeyword, span(first),
               "unknown keyword `" + firstText + "`; did you mean `" + suggestion + "`?")
            .fix(span(first), suggestion, "replace with `" + suggestion + "`");
        return;
      }
      if (atItemLevel) {
        report(DiagId::ExpectedItem, span(first),
               "expected `kernel`, `tile` or `fn` at the top level, found `" + firstText + "`");
        return;
      }
    }
    std::string shown = firstText.size() > 40 ? firstText.substr(0, 40) + "…" : firstText;
    std::string message = "unexpected `" + shown + "`";
    if (context == "source_file")
      message += " at the top level; expected `kernel`, `tile` or `fn`";
    else
      message += " in " + describeContext(context);
    uint32_t begin = ts_node_start_byte(first);
    report(DiagId::UnexpectedToken, Span{begin, std::max(begin + 1, ts_node_end_byte(first))},
           message);
  }
};

/// `end` is where the item being parsed ends: the end of the file, or the
/// start of the next item when a file with errors is parsed item by item.
void reportDelimiters(const DelimiterScan &scan, const SourceFile &file, uint32_t end,
                      std::vector<Diagnostic> &out) {
  bool atEof = end >= file.text().size();
  std::string where = atEof ? "the end of the file" : "the next item";
  // Only the innermost few unclosed openers matter; report the last one first
  // seen from the end, plus the outermost, to avoid cascades.
  size_t reported = 0;
  for (auto it = scan.unclosed.rbegin(); it != scan.unclosed.rend() && reported < 3;
       ++it, ++reported) {
    std::string open(1, it->open);
    std::string close(1, closerOf(it->open));
    Diagnostic d{DiagId::UnclosedDelimiter, Span{it->offset, it->offset + 1},
                 "unclosed `" + open + "`: no matching `" + close + "` before " + where,
                 {}, {}, {}};
    d.label(Span{end, end}, atEof ? "the file ends here" : "the next item starts here");
    d.fix(Span{end, end}, atEof ? close : close + "\n",
          "insert `" + close + "` " + (atEof ? "at the end of the file" : "before the next item"));
    out.push_back(std::move(d));
  }
  // The first few, as for unclosed openers: 70,000 stray `)` made 70,000
  // errors (and as many in the editor).
  constexpr size_t kMaxUnmatched = 10;
  for (size_t i = 0; i < scan.unmatched.size() && i < kMaxUnmatched; ++i) {
    const Delimiter &d = scan.unmatched[i];
    std::string c(1, d.open);
    out.push_back(Diagnostic{DiagId::UnmatchedClosing, Span{d.offset, d.offset + 1},
                             "unmatched `" + c + "`: it closes nothing",
                             {},
                             {},
                             {FixIt{Span{d.offset, d.offset + 1}, "", "remove `" + c + "`"}}});
    if (i + 1 == kMaxUnmatched && scan.unmatched.size() > kMaxUnmatched)
      out.back().note(std::to_string(scan.unmatched.size() - kMaxUnmatched) +
                      " more unmatched closing brackets follow in this item; only the first " +
                      std::to_string(kMaxUnmatched) + " are reported");
  }
}

/// Where items start, for parsing a file with errors item by item: offset 0,
/// then every line that begins with `kernel`, `tile` or `fn`, whitespace and
/// a name. (No valid statement line looks like that: a statement that starts
/// with a name continues with `[` or `<-`.)
bool startsItem(std::string_view text, size_t line) {
  auto isNameStart = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::string_view kw : {"kernel", "tile", "fn"}) {
    size_t at = line + kw.size();
    if (line == 0 || text.compare(line, kw.size(), kw) != 0 || at >= text.size() ||
        (text[at] != ' ' && text[at] != '\t'))
      continue;
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t'))
      ++at;
    return at < text.size() && isNameStart(text[at]);
  }
  return false;
}

/// Appends the item starts among the line starts in [from, to] (`from` is a
/// line start). A line's verdict reads only that line (up to its `\n`, or to
/// the end of the text) and the `\n` before it.
void scanItemStarts(std::string_view text, size_t from, size_t to, std::vector<uint32_t> &out) {
  for (size_t line = from; line < text.size() && line <= to;) {
    if (startsItem(text, line))
      out.push_back(static_cast<uint32_t>(line));
    const void *next = std::memchr(text.data() + line, '\n', text.size() - line);
    line = next ? static_cast<const char *>(next) - text.data() + 1 : text.size();
  }
}

std::vector<uint32_t> itemStarts(std::string_view text) {
  std::vector<uint32_t> starts{0};
  scanItemStarts(text, 0, text.size(), starts);
  return starts;
}

/// Where two texts differ: after[0, prefix) == before[0, prefix), the last
/// `suffix` bytes are equal too, and prefix + suffix <= both sizes.
struct TextDiff {
  size_t prefix = 0, suffix = 0;
  int64_t delta = 0; ///< after.size() - before.size()
};

TextDiff diffTexts(std::string_view before, std::string_view after) {
  // Block by block with memcmp (a 1.8 MB file: a byte loop here cost more
  // than parsing the edited item).
  constexpr size_t kBlock = 4096;
  TextDiff d;
  d.delta = static_cast<int64_t>(after.size()) - static_cast<int64_t>(before.size());
  size_t common = std::min(before.size(), after.size());
  size_t p = 0;
  while (p < common) {
    size_t n = std::min(kBlock, common - p);
    if (std::memcmp(before.data() + p, after.data() + p, n) != 0) {
      while (before[p] == after[p])
        ++p;
      break;
    }
    p += n;
  }
  d.prefix = p;
  size_t s = 0, room = common - p;
  while (s < room) {
    size_t n = std::min(kBlock, room - s);
    if (std::memcmp(before.data() + before.size() - s - n, after.data() + after.size() - s - n,
                    n) != 0) {
      while (before[before.size() - 1 - s] == after[after.size() - 1 - s])
        ++s;
      break;
    }
    s += n;
  }
  d.suffix = s;
  return d;
}

/// itemStarts(after), from the starts of `before` and what changed: the
/// lines around the edit are scanned again, the others keep their verdict.
std::vector<uint32_t> itemStartsAfterEdit(std::string_view after, const std::vector<uint32_t> &old,
                                          TextDiff d) {
  size_t editEnd = after.size() - d.suffix; // after[editEnd, size) is before's suffix
  // The first line whose verdict may change: the one holding `prefix`.
  size_t from = 0;
  if (const void *nl = d.prefix ? memrchr(after.data(), '\n', d.prefix) : nullptr)
    from = static_cast<const char *>(nl) - after.data() + 1;
  std::vector<uint32_t> out;
  out.reserve(old.size() + 4);
  out.push_back(0);
  for (uint32_t s : old)
    if (s > 0 && s < from)
      out.push_back(s);
  scanItemStarts(after, from, editEnd, out);
  int64_t oldEditEnd = static_cast<int64_t>(editEnd) - d.delta;
  for (uint32_t s : old)
    if (static_cast<int64_t>(s) > oldEditEnd)
      out.push_back(static_cast<uint32_t>(s + d.delta));
  return out;
}

/// Whether `after` is valid UTF-8, given that `before` is: only the bytes
/// around the edit, from a character boundary to a character boundary.
bool validAfterEdit(std::string_view before, std::string_view after, TextDiff d) {
  auto continuation = [](char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; };
  size_t b0 = d.prefix; // a boundary of `before`; after[0, b0) == before[0, b0)
  while (b0 > 0 && b0 < before.size() && continuation(before[b0]))
    --b0;
  size_t b1 = after.size() - d.suffix; // after[b1, size) == before's suffix
  while (b1 < after.size() && continuation(after[b1]))
    ++b1;
  return isValidUtf8(after.substr(b0, b1 - b0));
}

/// Row and column of `offset`, as tree-sitter counts them (bytes), from the
/// file's line table (a sanitized copy of the text has the same lines).
TSPoint pointAt(const SourceFile &file, uint32_t offset) {
  LineCol lc = file.byteLineCol(offset);
  return {lc.line, lc.column};
}

// ------------------------------------------------- table parser failures

std::string symbolName(TSSymbol sym) { return ts_language_symbol_name(tree_sitter_kina(), sym); }

bool isWordToken(TSSymbol sym) {
  std::string n = symbolName(sym);
  return ts_language_symbol_type(tree_sitter_kina(), sym) == TSSymbolTypeAnonymous && !n.empty() &&
         std::isalpha(static_cast<unsigned char>(n[0]));
}

/// A finished statement or item, or a repetition of them, on the LR stack.
bool isFinishedStatement(TSSymbol sym) {
  const CstIds &ids = CstIds::get();
  for (TSSymbol kind : {ids.block_grid,
                        ids.warp_grid,
                        ids.let_binding,
                        ids.shared_declaration,
                        ids.register_declaration,
                        ids.for_statement,
                        ids.if_statement,
                        ids.cp_async_statement,
                        ids.cp_async_commit,
                        ids.cp_async_wait_all,
                        ids.cp_async_wait_group,
                        ids.block_sync,
                        ids.assignment,
                        ids.return_statement,
                        ids.kernel_definition,
                        ids.tile_function,
                        ids.host_function,
                        ids.warpgroup_grid,
                        ids.role,
                        ids.arrive_statement,
                        ids.wait_statement,
                        ids.tma_load_statement,
                        ids.wgmma_statement,
                        ids.wgmma_commit,
                        ids.wgmma_wait,
                        ids.fence_proxy_async,
                        ids.tma_store_statement,
                        ids.tma_store_commit,
                        ids.tma_store_wait})
    if (sym == kind)
      return true;
  return symbolName(sym).find("_repeat") != std::string::npos;
}

/// The node kind of the construct being parsed at a failure (for
/// describeContext), from the tokens of unfinished constructs left on the LR
/// stack; "" when none says.
std::string failureContext(const TableParseFailure &f) {
  std::string opener;
  int closedParens = 0, closedBrackets = 0; // closers above their openers
  for (auto it = f.stack.rbegin(); it != f.stack.rend(); ++it) {
    if (!it->token)
      continue;
    std::string n = symbolName(it->symbol);
    if (n == ")" || n == "]") {
      ++(n == ")" ? closedParens : closedBrackets);
      continue;
    }
    if (n == "(" || n == "[") {
      int &closed = n == "(" ? closedParens : closedBrackets;
      if (closed > 0)
        --closed;
      else if (opener.empty())
        opener = n;
      continue;
    }
    static const std::pair<const char *, const char *> construct[] = {
        {"{", "block"},
        {"cp_async", "cp_async_statement"},
        {"let", "let_binding"},
        {"Tensor", "tensor_type"},
        {"Tile", "tile_type"},
        {"requires", "requires_clause"},
        {"block_grid", "block_grid"},
        {"warp_grid", "warp_grid"},
        {"return", "return_statement"},
        {"if", "if_statement"},
        {"kernel", "kernel_definition"},
        {"tile", "tile_function"},
        {"fn", "host_function"},
        {"for", "for_statement"},
        {"warpgroup_grid", "warpgroup_grid"},
        {"role", "role"},
        {"Barrier", "barrier_type"},
        {"arrive", "arrive_statement"},
        {"wait", "wait_statement"},
        {"tma_load", "tma_load_statement"},
        {"wgmma", "wgmma_statement"},
        {"wgmma_wait", "wgmma_wait"},
        {"tma_store", "tma_store_statement"},
        {"tma_store_wait", "tma_store_wait"}};
    for (auto &[token, kind] : construct) {
      if (n != token)
        continue;
      // An open `(` right inside a signature is a parameter; inside `for`,
      // the range.
      if (opener == "(" && (n == "kernel" || n == "tile" || n == "fn"))
        return "parameter";
      if (opener == "(" && n == "for")
        return "range";
      return kind;
    }
  }
  return "";
}

/// The identifier that starts the statement (or item) being parsed at the
/// failure, when it is not a keyword: a misspelled one (`blok_sync`).
std::optional<Span> unfinishedStatementWord(const TableParseFailure &f, std::string_view text,
                                            bool &atItemLevel) {
  size_t from = 0;
  atItemLevel = true;
  for (size_t k = f.stack.size(); k-- > 0;)
    if (f.stack[k].token && symbolName(f.stack[k].symbol) == "{") {
      from = k + 1;
      atItemLevel = false;
      break;
    }
  for (size_t k = from; k < f.stack.size(); ++k) {
    if (isFinishedStatement(f.stack[k].symbol))
      continue;
    const TableParseFailure::Entry &e = f.stack[k];
    if (e.token && isWordToken(e.symbol))
      return std::nullopt; // a real keyword starts it
    uint32_t b = e.span.begin, end = b;
    while (end < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'))
      ++end;
    if (end == b || std::isdigit(static_cast<unsigned char>(text[b])))
      return std::nullopt;
    return Span{b, end};
  }
  return std::nullopt;
}

/// A specific message for the table parser's failure: a misspelled keyword
/// (K0006) or "expected X after Y in Z" (K0002), the lookahead set coming
/// from the generated tables. Nothing when the delimiter scan explains the
/// error better.
std::optional<Diagnostic> explainFailure(const TableParseFailure &f, const SourceFile &file,
                                         const DelimiterScan &scan, Span range) {
  if (!f.valid || f.token.begin > range.end)
    return std::nullopt;
  std::string_view text = file.text();
  auto slice = [&](Span s) {
    return std::string(text.substr(s.begin, std::min<size_t>(s.end, text.size()) - s.begin));
  };
  auto misspelled = [&](Span at, const std::string &word, const std::string &suggestion) {
    Diagnostic d{DiagId::MisspelledKeyword, at,
                 "unknown keyword `" + word + "`; did you mean `" + suggestion + "`?", {}, {}, {}};
    d.fix(at, suggestion, "replace with `" + suggestion + "`");
    return d;
  };
  std::string kind = failureContext(f);
  std::string context = kind.empty() ? "" : describeContext(kind);
  // A character no token starts with (`@`, `;`).
  if (f.tokenSymbol == 0 && f.token.begin < range.end) { // 0: the end token
    // A non-ASCII character is shown whole (its UTF-8 sequence), not its
    // first byte.
    uint32_t len = 1;
    auto lead = static_cast<unsigned char>(text[f.token.begin]);
    if (lead >= 0xC0)
      len = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
    while (len > 1 && (f.token.begin + len > text.size() ||
                       (static_cast<unsigned char>(text[f.token.begin + len - 1]) & 0xC0) != 0x80))
      --len; // a truncated or invalid sequence: only its whole bytes
    Span at{f.token.begin, f.token.begin + len};
    std::string c = slice(at);
    Diagnostic d{DiagId::UnexpectedToken,
                 at,
                 "unexpected `" + c + "`" + (context.empty() ? "" : " in " + context),
                 {},
                 {},
                 {}};
    if (lead >= 0x80)
      d.note("names are ASCII: letters, digits and `_` (a name starts with a letter or `_`)");
    return d;
  }
  if (f.hasPrevious && slice(f.previous) == "..+") {
    Diagnostic d{DiagId::SliceWithoutLength, f.previous,
                 "expected a length after `..+` in the slice", {}, {}, {}};
    d.note("a slice is written `start ..+ length`, e.g. `k * 16 ..+ 16`");
    return d;
  }
  // `x[a .. b]` or `x[a:b]` where a slice may continue: Kina's slice is
  // `start ..+ length` (no fix-it: the length is `b - a`, not `b`).
  if (f.token.end <= text.size() && (slice(f.token) == ".." || slice(f.token) == ":") &&
      std::any_of(f.expected.begin(), f.expected.end(),
                  [](TSSymbol sym) { return symbolName(sym) == "..+"; })) {
    std::string tok = slice(f.token);
    Diagnostic d{DiagId::UnexpectedToken,
                 f.token,
                 "`" + tok + "` does not make a slice; a slice is written `start ..+ length`",
                 {},
                 {},
                 {}};
    d.note("`x[row ..+ 16, 0 ..+ 64]` is rows row to row + 15 and columns 0 to 63: the length "
           "follows `..+` (`" +
           tok + "` with an end, as in `row " + tok + " row + 16`, is not Kina syntax)");
    return d;
  }
  // A name where the tables want a keyword: `globl` for `global`.
  std::string tokenText = f.token.end <= text.size() ? slice(f.token) : std::string();
  std::vector<std::string> keywordsHere;
  for (TSSymbol sym : f.expected)
    // `fill` follows only a masked access (`masked x[...] fill 0.0`); the
    // merged lookahead sets offer it after any index expression, where
    // `full[s]` for `completes full[s]` is no misspelled `fill`.
    if (isWordToken(sym) && (symbolName(sym) != "fill" || kind == "masked_access"))
      keywordsHere.push_back(symbolName(sym));
  if (!tokenText.empty() && (std::isalpha(static_cast<unsigned char>(tokenText[0])) ||
                             tokenText[0] == '_')) {
    std::string s = closestKeyword(tokenText, keywordsHere);
    if (!s.empty() && s != tokenText)
      return misspelled(f.token, tokenText, s);
  }
  // A statement that starts with a misspelled keyword: `blok_sync`.
  bool atItemLevel = false;
  if (std::optional<Span> word = unfinishedStatementWord(f, text, atItemLevel)) {
    std::string w = slice(*word);
    std::string s = closestKeyword(w, atItemLevel ? itemKeywords() : statementKeywords());
    if (!s.empty() && s != w)
      return misspelled(*word, w, s);
  }
  // Expected X after Y in Z: the most telling token the tables accept
  // (`in` and `..` before the operators that could also continue).
  static const std::vector<std::string> priority = {"<-", ":", "in", "..", "=", ",",
                                                    "..+", ")", "]", "}",  "{"};
  std::set<std::string> names;
  for (TSSymbol sym : f.expected)
    names.insert(symbolName(sym));
  if (names.empty())
    return std::nullopt;
  if (std::all_of(names.begin(), names.end(),
                  [](const std::string &n) { return n == "kernel" || n == "tile" || n == "fn"; })) {
    std::string found = tokenText.empty() ? std::string("the end of the file") : "`" + tokenText + "`";
    return Diagnostic{DiagId::ExpectedItem, f.token,
                      "expected `kernel`, `tile` or `fn` at the top level, found " + found,
                      {}, {}, {}};
  }
  std::string chosen;
  // What the construct itself needs next comes first (`..` in a range, `in`
  // after a `let`): the tables' lookahead sets are merged across states.
  std::string preferred = kind == "range"                                  ? ".."
                          : kind == "let_binding" || kind == "for_statement" ? "in"
                          : kind == "wait_statement"                         ? "round"
                          : kind == "tma_load_statement"                     ? "completes"
                          : kind == "barrier_type"                           ? "arrivals"
                                                                             : "";
  if (!preferred.empty() && names.count(preferred))
    chosen = preferred;
  for (const std::string &p : priority)
    if (chosen.empty() && names.count(p))
      chosen = p;
  if (chosen.empty())
    chosen = names.count("identifier") ? "identifier" : *names.begin();
  // The delimiter scan explains unbalanced text better, except for a
  // separator still missing where a truncated file ends (`let x = e` + EOF).
  bool separator = std::find(priority.begin(), priority.end(), chosen) != priority.end() &&
                   chosen != ")" && chosen != "]" && chosen != "}";
  if (!scan.unmatched.empty() ||
      (!scan.unclosed.empty() && (!separator || f.token.begin < range.end)))
    return std::nullopt;
  bool placement = names.count("cuda") && (names.count("host") || names.count("host_placement"));
  std::string what = placement                                   ? "a placement"
                     : chosen == "identifier"                    ? "a name"
                     : chosen == "integer"                       ? "an integer"
                                                                 : "`" + chosen + "`";
  Span at = f.hasPrevious ? f.previous : f.token;
  std::string message = "expected " + what;
  if (chosen == "in" && kind == "let_binding")
    message += " after the `let` binding";
  else {
    if (f.hasPrevious)
      message += " after `" + slice(f.previous) + "`";
    if (!context.empty() && what != "a placement")
      message += " in " + context;
  }
  Diagnostic d{DiagId::MissingToken, at, message, {}, {}, {}};
  if (isPunctuation(chosen) || chosen == "in")
    d.fix(Span{at.end, at.end}, " " + chosen, "insert `" + chosen + "`");
  return d;
}

void shrinkToFit(Module &m) {
  m.items.shrink_to_fit();
  m.exprs.shrink_to_fit();
  m.stmts.shrink_to_fit();
  m.types.shrink_to_fit();
}

/// An upper bound on the tokens of text[range], comments and all: a run of
/// word characters counts once, every other non-space byte once (`..+`
/// counts three times), a comment once.
size_t tokenBound(std::string_view text, Span range, size_t stopAbove) {
  size_t n = 0;
  auto isWord = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (uint32_t i = range.begin; i < range.end && n <= stopAbove;) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
    } else if (c == '/' && i + 1 < range.end && text[i + 1] == '/') {
      while (i < range.end && text[i] != '\n')
        ++i;
      ++n;
    } else if (isWord(c)) {
      while (i < range.end && isWord(text[i]))
        ++i;
      ++n;
    } else {
      ++i;
      ++n;
    }
  }
  return n;
}

/// A CST of no items, for a broken item the runtime cannot parse.
Cst emptyCst(Span range) {
  static const TSSymbol sourceFile =
      ts_language_symbol_for_name(tree_sitter_kina(), "source_file", 11, true);
  Cst cst;
  CstNode root;
  root.begin = range.begin;
  root.end = range.end;
  root.symbol = sourceFile;
  root.named = true;
  cst.nodes.push_back(root);
  return cst;
}

/// Lowers and explains text[range] into `into` and `diags`: `cst` from the
/// table parser, or else parsed by the runtime here (when the item is small
/// enough for it: kMaxRuntimeTokens).
void parseChunk(const SourceFile &file, std::string_view text, Span range,
                std::optional<Cst> cst, const TableParseFailure &failure,
                const ParseOptions &options, Module &into, std::vector<Diagnostic> &diags) {
  std::unique_ptr<TSTree, void (*)(TSTree *)> tree(nullptr, ts_tree_delete);
  std::optional<DelimiterScan> scan;
  unsigned maxDepth = 0;
  uint32_t deepestOffset = 0;
  if (cst) {
    maxDepth = cst->maxBracketDepth;
    deepestOffset = cst->deepestBracket;
  } else {
    scan.emplace(text.substr(0, range.end), range.begin);
    maxDepth = scan->maxDepth;
    deepestOffset = scan->deepestOffset;
  }
  if (!cst && (maxDepth > options.maxNesting ||
               tokenBound(text, range, kMaxRuntimeTokens) > kMaxRuntimeTokens)) {
    // No runtime parse (see kMaxRuntimeTokens; and when the brackets nest
    // too deep, K0008 is the item's one message anyway, while the runtime's
    // recovery over thousands of unclosed brackets is quadratic: 32,000
    // `(` took 19 s). The item's messages come from the table parser's
    // failure and the delimiter scan, and the item lowers to nothing.
    cst = emptyCst(range);
  } else if (!cst) {
    std::unique_ptr<TSParser, void (*)(TSParser *)> parser(ts_parser_new(), ts_parser_delete);
    ts_parser_set_language(parser.get(), tree_sitter_kina());
    TSRange only{pointAt(file, range.begin), pointAt(file, range.end), range.begin, range.end};
    ts_parser_set_included_ranges(parser.get(), &only, 1);
    tree.reset(ts_parser_parse_string(parser.get(), nullptr, text.data(),
                                      static_cast<uint32_t>(text.size())));
    cst = cstFromTree(ts_tree_root_node(tree.get()));
  }

  size_t firstItem = into.items.size();
  LowerResult lowered = lowerTree(*cst, file, into, options.maxNesting);
  if (options.instantiateTuneDefaults)
    for (size_t i = firstItem; i < into.items.size(); ++i)
      if (!into.items[i].tuneParams.empty() || into.anyCountParam) {
        for (Diagnostic &d : checkTuneDeclarations(into, i))
          diags.push_back(std::move(d));
        instantiateItem(into, i, defaultPoint(into.items[i]));
      }
  for (const InvalidLiteral &l : lowered.invalidLiterals) {
    // A literal may be a megabyte long: quote its ends only.
    std::string_view whole = file.slice(l.span);
    std::string quoted(whole);
    if (whole.size() > 40)
      quoted = std::string(whole.substr(0, 16)) + "..." +
               std::string(whole.substr(whole.size() - 8)) + "` (" +
               std::to_string(whole.size()) + (l.isFloat ? " characters" : " digits") + ")";
    else
      quoted += "`";
    diags.push_back(Diagnostic{
        DiagId::InvalidLiteral, l.span,
        l.isFloat ? "float literal `" + quoted + " is out of range: it exceeds the largest double"
                  : "integer literal `" + quoted + " does not fit in 64 bits",
        {}, {}, {}});
  }
  if (maxDepth > options.maxNesting) {
    diags.push_back(Diagnostic{DiagId::NestingTooDeep, Span{deepestOffset, deepestOffset + 1},
                               "nesting is " + std::to_string(maxDepth) +
                                   " levels deep here; at most " +
                                   std::to_string(options.maxNesting) + " levels are accepted",
                               {}, {}, {}});
  } else if (lowered.nestingExceeded) {
    // Brackets are shallow: an operator chain or nested applications.
    uint32_t at = lowered.deepestSpan.begin;
    diags.push_back(Diagnostic{DiagId::NestingTooDeep, Span{at, at + 1},
                               "this expression nests more than " +
                                   std::to_string(options.maxNesting) +
                                   " levels deep (operators and applications count as well as "
                                   "brackets); at most " +
                                   std::to_string(options.maxNesting) + " levels are accepted",
                               {}, {}, {}});
  } else if (scan) {
    size_t before = diags.size();
    reportDelimiters(*scan, file, range.end, diags);
    if (std::optional<Diagnostic> d = explainFailure(failure, file, *scan, range)) {
      diags.push_back(std::move(*d));
    } else if (tree) {
      SyntaxErrorReporter reporter(file, diags, *scan);
      reporter.visit(ts_tree_root_node(tree.get()));
    } else if (diags.size() == before) {
      // Neither explains it: say where the table parser stopped.
      uint32_t at = failure.valid ? std::min(failure.token.begin, range.end) : range.begin;
      uint32_t end = std::min<uint32_t>(std::max(at + 1, failure.valid ? failure.token.end : 0),
                                        static_cast<uint32_t>(text.size()));
      diags.push_back(Diagnostic{DiagId::UnexpectedToken,
                                 Span{at, std::max(at, end)},
                                 at < text.size()
                                     ? "unexpected `" + std::string(text.substr(at, end - at)) + "`"
                                     : std::string("unexpected end of the file"),
                                 {},
                                 {},
                                 {}});
      diags.back().note("this item has more than " + std::to_string(kMaxRuntimeTokens) +
                        " tokens, too many for error recovery: only its first syntax error "
                        "is reported");
    }
  }
}

/// Parses `file` item by item. Without a cache into `flat` (one Module);
/// with one into `itemized` (the items' parses, reused where the text did
/// not change since the cache's previous parse).
void parseFile(const SourceFile &file, const ParseOptions &options, ParseCache *cache,
               ParseResult *flat, ItemizedParse *itemized) {
  std::vector<Diagnostic> &diagnostics = cache ? itemized->diagnostics : flat->diagnostics;
  const std::string &text = file.text();
  if (text.size() > kMaxFileBytes) {
    diagnostics.push_back(Diagnostic{DiagId::FileTooLarge, Span{0, 0},
                                     "file is " + std::to_string(text.size() >> 20) +
                                         " MiB; the limit for one source file is 64 MiB",
                                     {}, {}, {}});
    return;
  }

  // What changed since the cache's previous parse (nothing to compare
  // without one).
  const ParseCache::Previous *prev = cache && cache->previous.file ? &cache->previous : nullptr;
  TextDiff diff;
  if (prev)
    diff = diffTexts(prev->file->text(), text);

  // Invalid UTF-8: report the first bad byte, then parse a sanitized copy so the
  // rest of the file still gets checked (byte offsets are unchanged).
  std::string sanitized;
  const std::string *parseText = &text;
  uint32_t badOffset = 0;
  bool valid = prev && prev->validUtf8 ? validAfterEdit(prev->file->text(), text, diff)
                                       : isValidUtf8(text, &badOffset);
  if (!valid) {
    isValidUtf8(text, &badOffset);
    char hex[8];
    snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(text[badOffset]));
    diagnostics.push_back(
        Diagnostic{DiagId::InvalidUtf8, Span{badOffset, badOffset + 1},
                   std::string("invalid UTF-8 byte ") + hex + "; Kina source files must be UTF-8",
                   {}, {}, {}});
    sanitized = text;
    for (size_t i = 0; i < sanitized.size(); ++i)
      if (static_cast<unsigned char>(sanitized[i]) >= 0x80)
        sanitized[i] = ' ';
    parseText = &sanitized;
  }
  // The previous parse's items are of the same bytes only when both texts
  // were parsed as they are, or both sanitized.
  if (prev && prev->validUtf8 != valid)
    prev = nullptr;

  // Each item is parsed on its own (docs/language.md, "Syntax errors"): an
  // error stays inside its item, and only broken items need the tree-sitter
  // runtime, whose recovery the messages are built on; the rest take the
  // table parser. A valid file whose item split went wrong (two items fail)
  // still parses whole.
  std::string_view parsed = *parseText;
  std::vector<uint32_t> starts;
  if (prev && !prev->parts.empty()) {
    std::vector<uint32_t> old(prev->parts.size());
    for (size_t i = 0; i < old.size(); ++i)
      old[i] = prev->parts[i].begin;
    starts = itemStartsAfterEdit(parsed, old, diff);
  } else {
    starts = itemStarts(parsed);
  }
  auto chunkEnd = [&](size_t i) {
    return i + 1 < starts.size() ? starts[i + 1] : static_cast<uint32_t>(parsed.size());
  };
  auto keyOf = [&](size_t i) {
    // The last item's delimiter messages speak of the end of the file; a
    // sanitized text parses other bytes.
    std::string key(1, i + 1 == starts.size() ? 'L' : 'M');
    key += valid ? 'U' : 'S';
    key += std::to_string(options.maxNesting);
    key += ':';
    key.append(std::string_view(text).substr(starts[i], chunkEnd(i) - starts[i]));
    return key;
  };
  std::vector<std::string> keys(starts.size());
  std::vector<std::shared_ptr<const ParseCache::Item>> reused(starts.size());
  std::vector<std::optional<Cst>> csts(starts.size());
  std::vector<TableParseFailure> failures(starts.size());
  if (cache) {
    // Items the edit did not touch: in the common prefix or suffix of the
    // previous text and this one (see ParseCache::Previous).
    auto previousPart = [&](int64_t begin, int64_t end,
                            bool last) -> std::shared_ptr<const ParseCache::Item> {
      auto it = std::lower_bound(
          prev->parts.begin(), prev->parts.end(), begin,
          [](const ParseCache::Previous::Part &p, int64_t b) { return p.begin < b; });
      if (it == prev->parts.end() || it->begin != begin || it->end != end || it->last != last)
        return nullptr;
      return it->item;
    };
    for (size_t i = 0; i < starts.size(); ++i) {
      uint32_t b = starts[i], e = chunkEnd(i);
      bool last = i + 1 == starts.size();
      std::shared_ptr<const ParseCache::Item> hit;
      if (prev && e <= diff.prefix)
        hit = previousPart(b, e, last);
      else if (prev && b >= text.size() - diff.suffix)
        hit = previousPart(b - diff.delta, e - diff.delta, last);
      if (hit) {
        reused[i] = std::move(hit);
      } else {
        keys[i] = keyOf(i);
        reused[i] = cache->find(keys[i]);
      }
    }
  }
  auto tableParse = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i)
      if (!reused[i])
        csts[i] = parseWithTables(parsed.substr(0, chunkEnd(i)), starts[i], &failures[i]);
  };
  // Items parse independently: a large file's second half goes to a second
  // core (the lowering that follows stays in order, into one Module).
  bool twoThreads = !cache && std::thread::hardware_concurrency() >= 2 &&
                    parsed.size() >= kParallelParseBytes && starts.size() >= 2;
  size_t half = std::lower_bound(starts.begin(), starts.end(), parsed.size() / 2) - starts.begin();
  half = std::clamp<size_t>(half, 1, std::max<size_t>(starts.size(), 2) - 1);
  if (twoThreads) {
    std::thread second(tableParse, half, starts.size());
    tableParse(0, half);
    second.join();
  } else {
    tableParse(0, starts.size());
  }
  size_t failed = 0;
  for (size_t i = 0; i < starts.size(); ++i)
    failed += reused[i] ? !reused[i]->tableParsed : !csts[i];
  std::optional<Cst> whole;
  if (failed >= 2) {
    // The whole text parses only if it does from the first failing item
    // on: the items before it parsed, so their end is an item boundary of
    // the whole text too, if that is valid (a cut inside an item leaves the
    // part before it unbalanced in `{}` or not ending in `}`, and no valid
    // run of items is). Trying from there first costs the broken item, not
    // the text before it: typing in a file with two broken kernels table-
    // parsed the whole file on every keystroke.
    size_t first = 0;
    while (reused[first] ? reused[first]->tableParsed : csts[first].has_value())
      ++first;
    if (first == 0 || parseWithTables(parsed, starts[first]))
      whole = parseWithTables(parsed);
  }
  size_t items = 0;
  if (!cache) {
    ParseResult &result = *flat;
    result.tableParsed = failed == 0 || whole;
    if (whole) {
      starts = {0};
      csts.clear();
      csts.push_back(std::move(whole));
      failures.assign(1, TableParseFailure{});
    }
    // Reserve the arenas once for all items: growing them item by item
    // costs copies and fresh pages. (Lowering halves on two threads and
    // appending measured no faster: the copy cost what the core saved.)
    size_t nodes = 0;
    for (const std::optional<Cst> &c : csts)
      nodes += c ? c->nodes.size() : 0;
    reserveForCstNodes(result.module, nodes);
    for (size_t i = 0; i < starts.size(); ++i)
      parseChunk(file, parsed, Span{starts[i], chunkEnd(i)}, std::move(csts[i]), failures[i],
                 options, result.module, result.diagnostics);
    items = result.module.items.size();
  } else if (whole) {
    // A whole-file parse is not an item's: one part, not kept by text, and
    // no item split for the next parse.
    auto fresh = std::make_shared<ParseCache::Item>();
    fresh->tableParsed = true;
    reserveForCstNodes(fresh->module, whole->nodes.size());
    parseChunk(file, parsed, Span{0, static_cast<uint32_t>(parsed.size())}, std::move(whole),
               TableParseFailure{}, options, fresh->module, fresh->diagnostics);
    items = fresh->module.items.size();
    appendShiftedDiagnostics(diagnostics, fresh->diagnostics, 0);
    itemized->parts.push_back({std::move(fresh), 0});
    itemized->tableParsed = true;
    cache->previous.parts.clear();
  } else {
    for (size_t i = 0; i < starts.size(); ++i) {
      if (reused[i])
        continue;
      auto fresh = std::make_shared<ParseCache::Item>();
      fresh->begin = starts[i];
      fresh->tableParsed = csts[i].has_value();
      if (csts[i])
        reserveForCstNodes(fresh->module, csts[i]->nodes.size());
      parseChunk(file, parsed, Span{starts[i], chunkEnd(i)}, std::move(csts[i]), failures[i],
                 options, fresh->module, fresh->diagnostics);
      shrinkToFit(fresh->module); // kept for many keystrokes: no spare capacity
      cache->insert(std::move(keys[i]), fresh);
      reused[i] = std::move(fresh);
    }
    itemized->parts.reserve(starts.size());
    for (size_t i = 0; i < starts.size(); ++i) {
      int64_t delta = static_cast<int64_t>(starts[i]) - reused[i]->begin;
      items += reused[i]->module.items.size();
      appendShiftedDiagnostics(diagnostics, reused[i]->diagnostics, delta);
      itemized->parts.push_back({reused[i], delta});
    }
    itemized->tableParsed = failed == 0;
    cache->previous.parts.clear();
    cache->previous.parts.reserve(starts.size());
    for (size_t i = 0; i < starts.size(); ++i)
      cache->previous.parts.push_back(
          {starts[i], chunkEnd(i), i + 1 == starts.size(), std::move(reused[i])});
  }
  if (cache) {
    cache->previous.file = itemized->file;
    cache->previous.validUtf8 = valid;
    cache->endParse();
  }
  if (items == 0 && diagnostics.empty()) {
    bool blank = std::all_of(text.begin(), text.end(),
                             [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
    diagnostics.push_back(Diagnostic{
        DiagId::EmptyFile, Span{0, 0},
        blank ? "the file is empty: it defines no kernel, tile function or host function"
              : "the file defines no kernel, tile function or host function",
        {}, {}, {}});
  }
  sortDiagnostics(diagnostics);
}

} // namespace

ParseResult parse(const SourceFile &file, const ParseOptions &options) {
  ParseResult result;
  parseFile(file, options, nullptr, &result, nullptr);
  return result;
}

ItemizedParse ParseCache::parseItems(std::shared_ptr<const SourceFile> file,
                                     const ParseOptions &options) {
  ItemizedParse out;
  out.file = std::move(file);
  parseFile(*out.file, options, this, nullptr, &out);
  return out;
}

ParseResult ParseCache::parse(const SourceFile &file, const ParseOptions &options) {
  return parseItems(std::make_shared<const SourceFile>(file.path(), file.text()), options)
      .assemble();
}

size_t ItemizedParse::itemCount() const {
  size_t n = 0;
  for (const Part &p : parts)
    n += p.item->module.items.size();
  return n;
}

ParseResult ItemizedParse::assemble() const {
  ParseResult r;
  r.tableParsed = tableParsed;
  r.diagnostics = diagnostics;
  if (parts.size() == 1 && parts[0].delta == 0) {
    r.module = parts[0].item->module;
    return r;
  }
  size_t items = 0, exprs = 0, stmts = 0, types = 0;
  for (const Part &p : parts) {
    items += p.item->module.items.size();
    exprs += p.item->module.exprs.size();
    stmts += p.item->module.stmts.size();
    types += p.item->module.types.size();
  }
  r.module.items.reserve(items);
  r.module.exprs.reserve(exprs);
  r.module.stmts.reserve(stmts);
  r.module.types.reserve(types);
  for (const Part &p : parts)
    appendModule(r.module, p.item->module, p.delta);
  return r;
}

ItemizedParse ItemizedParse::whole(ParseResult parse, std::shared_ptr<const SourceFile> file) {
  ItemizedParse out;
  auto item = std::make_shared<ParseCache::Item>();
  item->tableParsed = parse.tableParsed;
  item->module = std::move(parse.module);
  out.parts.push_back({std::move(item), 0});
  out.diagnostics = std::move(parse.diagnostics);
  out.tableParsed = parse.tableParsed;
  out.file = std::move(file);
  return out;
}

std::shared_ptr<const ParseCache::Item> ParseCache::find(const std::string &key) {
  auto it = items_.find(key);
  if (it == items_.end())
    return nullptr;
  it->second.lastUsed = generation_;
  return it->second.item;
}

void ParseCache::insert(std::string key, std::shared_ptr<const Item> item) {
  items_[std::move(key)] = Entry{std::move(item), generation_};
}

void ParseCache::endParse() {
  // Keep what the last two parses used: undo stays cheap, memory bounded.
  for (auto it = items_.begin(); it != items_.end();)
    it = it->second.lastUsed + 1 < generation_ ? items_.erase(it) : std::next(it);
  ++generation_;
}


const std::vector<std::string> &keywords() {
  static const std::vector<std::string> words = [] {
    std::vector<std::string> out;
    const TSLanguage *lang = tree_sitter_kina();
    uint32_t n = ts_language_symbol_count(lang);
    for (uint32_t i = 0; i < n; ++i) {
      if (ts_language_symbol_type(lang, static_cast<TSSymbol>(i)) != TSSymbolTypeAnonymous)
        continue;
      std::string name = ts_language_symbol_name(lang, static_cast<TSSymbol>(i));
      if (!name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
        out.push_back(name);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }();
  return words;
}

} // namespace kina::syntax
