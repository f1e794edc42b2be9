//===- TableParserTest.cpp - The table parser against the tree-sitter runtime -===//
//
// The table parser must give the very tree the runtime gives (node kinds,
// fields, spans, extras) on every error-free text, and decline on every text
// with a syntax error. Checked on every .kina file of the repository and on
// thousands of seeded mutants of them (deleted, duplicated and swapped
// tokens and lines), which reach the grammar's conflicts and error paths.
//
//===----------------------------------------------------------------------===//
#include "syntax/TableParser.h"
#include "syntax/Cst.h"
#include "syntax/Parser.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <random>
#include <sstream>

using namespace kina;
using namespace kina::syntax;

namespace {

std::vector<std::pair<std::string, std::string>> repositoryKinaFiles() {
  std::vector<std::pair<std::string, std::string>> files;
  for (const char *dir : {"/stdlib", "/tests", "/bench", "/editors"}) {
    std::string root = std::string(KINA_SOURCE_DIR) + dir;
    if (!std::filesystem::exists(root))
      continue;
    for (const auto &e : std::filesystem::recursive_directory_iterator(root)) {
      if (!e.is_regular_file() || e.path().extension() != ".kina")
        continue;
      // The fuzz targets' kept inputs include some the tree-sitter runtime
      // itself cannot parse (100,000 unclosed `(` overflow its 16-bit child
      // count); the parser keeps them from it, and fuzz-replay-* runs them.
      if (e.path().string().find("/tests/fuzz/") != std::string::npos)
        continue;
      std::ifstream in(e.path());
      std::stringstream ss;
      ss << in.rdbuf();
      files.emplace_back(e.path().string(), ss.str());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// First difference between the two trees, or "" when equal.
std::string compare(const Cst &a, const Cst &b) {
  std::vector<std::pair<CstNodeId, CstNodeId>> work{{a.root, b.root}};
  while (!work.empty()) {
    auto [x, y] = work.back();
    work.pop_back();
    const CstNode &p = a[x], &q = b[y];
    auto where = [&] {
      return " at bytes " + std::to_string(q.begin) + ".." + std::to_string(q.end) +
             " (symbol " + std::to_string(q.symbol) + ")";
    };
    if (p.symbol != q.symbol)
      return "symbol " + std::to_string(p.symbol) + " vs " + std::to_string(q.symbol) + where();
    if (p.begin != q.begin || p.end != q.end)
      return "span " + std::to_string(p.begin) + ".." + std::to_string(p.end) + where();
    if (p.field != q.field)
      return "field " + std::to_string(p.field) + " vs " + std::to_string(q.field) + where();
    if (p.named != q.named || p.extra != q.extra)
      return "named/extra flags" + where();
    if (p.childCount != q.childCount)
      return "child count " + std::to_string(p.childCount) + " vs " +
             std::to_string(q.childCount) + where();
    for (uint32_t i = 0; i < p.childCount; ++i)
      work.emplace_back(p.firstChild + i, q.firstChild + i);
  }
  return "";
}

struct RuntimeParse {
  Cst cst;
  bool hasError;
};

RuntimeParse runtimeParse(const std::string &text) {
  std::unique_ptr<TSParser, void (*)(TSParser *)> parser(ts_parser_new(), ts_parser_delete);
  ts_parser_set_language(parser.get(), tree_sitter_kina());
  std::unique_ptr<TSTree, void (*)(TSTree *)> tree(
      ts_parser_parse_string(parser.get(), nullptr, text.data(),
                             static_cast<uint32_t>(text.size())),
      ts_tree_delete);
  TSNode root = ts_tree_root_node(tree.get());
  return {cstFromTree(root), ts_node_has_error(root)};
}

/// Checks the contract on one text; returns a failure message or "".
std::string checkOne(const std::string &text) {
  RuntimeParse expected = runtimeParse(text);
  std::optional<Cst> fast = parseWithTables(text);
  if (expected.hasError)
    return fast ? "table parser accepted text the runtime rejects" : "";
  if (!fast)
    return "table parser declined error-free text";
  return compare(*fast, expected.cst);
}

TEST(TableParser, SameTreeAsTheRuntimeOnEveryRepositoryFile) {
  auto files = repositoryKinaFiles();
  ASSERT_GT(files.size(), 100u); // stdlib + lit tests + editor fixtures
  unsigned valid = 0;
  for (const auto &[path, text] : files) {
    EXPECT_EQ(checkOne(text), "") << path;
    valid += !runtimeParse(text).hasError;
  }
  EXPECT_GT(valid, 80u);
}

TEST(TableParser, SameVerdictAndTreeOnMutants) {
  auto files = repositoryKinaFiles();
  std::mt19937 rng(20261129);
  unsigned mutants = 0, validMutants = 0, failures = 0;
  for (const auto &[path, original] : files) {
    if (original.size() > 20000)
      continue;
    for (int m = 0; m < 12; ++m) {
      std::string text = original;
      size_t at = text.empty() ? 0 : rng() % text.size();
      switch (m % 4) {
      case 0: // delete a word or symbol
        text.erase(at, 1 + rng() % 6);
        break;
      case 1: { // duplicate a line (an extra argument or statement)
        size_t b = text.rfind('\n', at), e = text.find('\n', at);
        b = b == std::string::npos ? 0 : b + 1;
        e = e == std::string::npos ? text.size() : e + 1;
        text.insert(e, text.substr(b, e - b));
        break;
      }
      case 2: { // move a line up past its predecessor
        size_t e = text.find('\n', at);
        size_t b = text.rfind('\n', at);
        if (b == std::string::npos || e == std::string::npos)
          break;
        size_t pb = text.rfind('\n', b - 1);
        pb = pb == std::string::npos ? 0 : pb + 1;
        std::string line = text.substr(b + 1, e - b), prev = text.substr(pb, b + 1 - pb);
        text.replace(pb, e + 1 - pb, line + prev);
        break;
      }
      default: // a comment or a bare word dropped into the text
        text.insert(at, rng() % 2 ? " // note\n" : " x ");
      }
      std::string failure = checkOne(text);
      // The whole front end on the mutant: every diagnostic lies inside it.
      ParseResult parsed = parse(SourceFile("m.kina", text));
      for (const Diagnostic &d : parsed.diagnostics)
        if (d.span.begin > d.span.end || d.span.end > text.size())
          failure += " diagnostic span out of the text: " + d.message;
      ++mutants;
      validMutants += !runtimeParse(text).hasError;
      if (!failure.empty() && ++failures <= 5)
        ADD_FAILURE() << path << " mutant " << m << ": " << failure << "\n--- text ---\n"
                      << text.substr(0, 4000);
    }
  }
  EXPECT_EQ(failures, 0u);
  EXPECT_GT(mutants, 1000u);
  EXPECT_GT(validMutants, 100u); // both verdicts are exercised
}

TEST(TableParser, DeclinesNestingDeeperThanItsStack) {
  std::string deep = "kernel k (a : Tensor[F16, [M], on=cuda:global]) : Tensor[F16, [M], "
                     "on=cuda:global] { a[0] <- " +
                     std::string(20000, '(') + "1" + std::string(20000, ')') + " }";
  EXPECT_FALSE(parseWithTables(deep).has_value());
  // and parse() still answers, through the runtime, with K0008
  SourceFile file("deep.kina", deep);
  auto r = parse(file);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.diagnostics.front().id, DiagId::NestingTooDeep);
}

} // namespace

namespace {

/// Everything of a parse that later layers read, as text.
std::string dump(const ParseResult &r) {
  std::string out;
  auto span = [&](Span s) { out += "@" + std::to_string(s.begin) + "-" + std::to_string(s.end); };
  const Module &m = r.module;
  for (const Expr &e : m.exprs) {
    out += "E" + std::to_string(int(e.kind)) + e.name.name;
    span(e.span);
    span(e.name.span);
    for (ExprId c : e.children)
      out += " " + std::to_string(c);
    out += "\n";
  }
  for (const Stmt &s : m.stmts) {
    out += "S" + std::to_string(int(s.kind)) + s.name.name + " " + std::to_string(s.type) + " " +
           std::to_string(s.target) + " " + std::to_string(s.value) + " " +
           std::to_string(s.end);
    for (Span x : {s.span, s.keywordSpan, s.name.span, s.countSpan, s.shapeSpan, s.bodySpan})
      span(x);
    for (auto *list : {&s.shape, &s.body, &s.elseBody})
      for (uint32_t id : *list)
        out += " " + std::to_string(id);
    out += "\n";
  }
  for (const TypeRef &t : m.types) {
    out += "T" + std::to_string(int(t.kind)) + t.dtype.name;
    for (Span x : {t.span, t.dtype.span, t.shapeSpan, t.placement.span})
      span(x);
    for (ExprId id : t.shape)
      out += " " + std::to_string(id);
    out += " " + std::to_string(t.placement.device) + "\n";
  }
  for (const Item &it : m.items) {
    out += "I" + it.name.name + " " + std::to_string(it.result);
    for (Span x : {it.span, it.keywordSpan, it.name.span, it.dimsSpan, it.resultSpan, it.bodySpan})
      span(x);
    for (const Param &p : it.params) {
      out += " p" + p.name.name + std::to_string(p.type);
      span(p.span);
    }
    for (const Requirement &q : it.requirements) {
      out += " r" + std::to_string(q.condition) + q.target.name;
      span(q.span);
    }
    for (StmtId id : it.body)
      out += " " + std::to_string(id);
    out += "\n";
  }
  for (const Diagnostic &d : r.diagnostics) {
    out += "D" + std::to_string(int(d.id)) + " " + d.message;
    span(d.span);
    for (const SpanLabel &l : d.labels)
      span(l.span);
    for (const FixIt &f : d.fixits) {
      span(f.span);
      out += f.replacement;
    }
    out += "\n";
  }
  return out;
}

TEST(ParseCache, EqualsAFreshParseAfterEveryEdit) {
  std::string text;
  for (const auto &[path, t] : repositoryKinaFiles())
    if (path.find("/stdlib/") != std::string::npos)
      text += t + "\n";
  ASSERT_GT(text.size(), 5000u);
  ParseCache cache;
  std::mt19937 rng(7);
  const std::vector<std::string> inserts = {"x", " ", "\n", "}", "{", "[", "(", "kernel k ",
                                            "block_sync\n", "let", "<-", "..+", "// c\n"};
  unsigned broken = 0;
  for (int i = 0; i < 300; ++i) {
    size_t at = rng() % (text.size() + 1);
    if (rng() % 3 == 0 && at < text.size())
      text.erase(at, 1 + rng() % 3);
    else
      text.insert(at, inserts[rng() % inserts.size()]);
    SourceFile file("t.kina", text);
    ParseResult cached = cache.parse(file), fresh = parse(file);
    broken += !fresh.tableParsed;
    ASSERT_EQ(dump(cached), dump(fresh)) << "edit " << i;
    EXPECT_EQ(cached.tableParsed, fresh.tableParsed);
  }
  EXPECT_GT(broken, 100u);      // the edits leave syntax errors most of the time
  EXPECT_LT(cache.size(), 64u); // only the last two parses' items are kept
}

/// The item split and the UTF-8 verdict are found again only around the
/// edit (ParseCache::Previous): after every edit they equal a fresh cache's
/// (which scans the whole text), and the parse equals a fresh parse. The
/// edits include item keywords at line starts, line breaks next to them, and
/// valid and invalid multi-byte sequences (a file with an invalid byte is
/// parsed sanitized, and its items must not be reused unsanitized).
TEST(ParseCache, ItemSplitAndUtf8AroundTheEditEqualAFreshScan) {
  std::string text;
  for (const auto &[path, t] : repositoryKinaFiles())
    if (path.find("/stdlib/") != std::string::npos)
      text += t + "\n";
  ParseCache cache;
  std::mt19937 rng(11);
  const std::vector<std::string> inserts = {"\n",       "kernel ",  "tile ",    "fn ",
                                            "kernel k", "\ntile t", "\nkernel", "x",
                                            " ",        "\t",       "\xC3\xA9", "\xE2\x82\xAC",
                                            "\xFF",     "\xC3",     "\xA9",     "// \xC3\xA9\n",
                                            "}\n",      "{"};
  unsigned invalid = 0, splits = 0;
  for (int i = 0; i < 400; ++i) {
    size_t at = rng() % (text.size() + 1);
    if (rng() % 3 == 0 && at < text.size())
      text.erase(at, 1 + rng() % 3);
    else
      text.insert(at, inserts[rng() % inserts.size()]);
    // Now and then a line start: where a keyword decides a split.
    if (rng() % 4 == 0) {
      size_t line = text.rfind('\n', at);
      if (line != std::string::npos)
        text.insert(line + 1, rng() % 2 ? "kernel q" : "tile ");
    }
    SourceFile file("t.kina", text);
    ParseResult cached = cache.parse(file), fresh = parse(file);
    ParseCache scratch;
    scratch.parse(file);
    std::vector<uint32_t> got, want;
    for (const auto &p : cache.previous.parts)
      got.push_back(p.begin);
    for (const auto &p : scratch.previous.parts)
      want.push_back(p.begin);
    ASSERT_EQ(got, want) << "edit " << i;
    splits += want.size();
    EXPECT_EQ(cache.previous.validUtf8, scratch.previous.validUtf8) << "edit " << i;
    invalid += !scratch.previous.validUtf8;
    ASSERT_EQ(dump(cached), dump(fresh)) << "edit " << i;
    EXPECT_EQ(cached.tableParsed, fresh.tableParsed);
    // Now and then the invalid bytes go away again.
    if (rng() % 8 == 0)
      for (size_t j = 0; j < text.size(); ++j)
        if (static_cast<unsigned char>(text[j]) >= 0x80)
          text[j] = 'u';
  }
  EXPECT_GT(invalid, 40u);
  EXPECT_GT(splits, 400u);
}

} // namespace

namespace {

/// A valid file whose item split goes wrong (a continuation line that
/// starts like an item: `tile a` is an argument here) still parses whole,
/// also with broken items after it and with edits anywhere: whenever the
/// whole text table-parses, the parse says so (parse() first tries the text
/// from the first failing item on, and the whole text only if that parses).
TEST(ParseCache, WrongSplitStillParsesWholeWhenTheFileIsValid) {
  const std::string wrong = "kernel k\n  (a : Tensor[F16, [64], on=cuda:global])\n"
                            "  : (c : Tensor[F16, [64], on=cuda:global]) {\n  block_grid [1] {\n"
                            "    let v = foo a\ntile a in\n    block_sync\n  }\n}\n\n";
  std::string stdlib;
  for (const auto &[path, t] : repositoryKinaFiles())
    if (path.find("/stdlib/") != std::string::npos)
      stdlib += t + "\n";
  std::string text = stdlib + wrong + stdlib;
  {
    SourceFile file("t.kina", text);
    ASSERT_TRUE(parseWithTables(text).has_value());
    EXPECT_TRUE(parse(file).tableParsed);
  }
  ParseCache cache;
  std::mt19937 rng(5);
  // Mostly edits that keep a file valid (blanks, comments, a longer name),
  // some that break it, some that add wrong splits.
  const std::vector<std::string> inserts = {" ", "\n", "\n\n", "// c\n",   "x",        "x",
                                            "}", "{",  "(",    "tile a\n", "\ntile b", "let"};
  unsigned valid = 0;
  // A broken text is kept for one edit at most, then the last valid one is
  // restored (kept longer, one unlucky edit early made every later text
  // broken and the test depend on the files' sizes).
  std::string lastValid = text;
  bool keptBroken = false;
  for (int i = 0; i < 300; ++i) {
    size_t at = rng() % (text.size() + 1);
    std::string before = text;
    if (rng() % 3 == 0 && at < text.size())
      text.erase(at, 1 + rng() % 3);
    else
      text.insert(at, inserts[rng() % inserts.size()]);
    SourceFile file("t.kina", text);
    ParseResult fresh = parse(file), cached = cache.parse(file);
    bool whole = parseWithTables(text).has_value();
    valid += whole;
    ASSERT_EQ(fresh.tableParsed, whole) << "edit " << i;
    ASSERT_EQ(dump(cached), dump(fresh)) << "edit " << i;
    if (whole) {
      lastValid = text;
      keptBroken = false;
    } else if (keptBroken) {
      text = lastValid;
      keptBroken = false;
    } else if (rng() % 8 != 0) {
      text = before; // undo mostly: the file is valid again most of the time
    } else {
      keptBroken = true;
    }
  }
  EXPECT_GT(valid, 5u);
}

TEST(ParseCache, LargeFileOnTwoThreadsEqualsItemByItem) {
  // Over 256 KiB, parse() table-parses the second half on a second thread;
  // a fresh ParseCache parses item by item on one. Broken items included.
  std::string stdlib;
  for (const auto &[path, t] : repositoryKinaFiles())
    if (path.find("/stdlib/") != std::string::npos)
      stdlib += t + "\n";
  std::string text;
  for (int copy = 0; text.size() < (300u << 10); ++copy) {
    std::string part = stdlib;
    for (size_t at = 0; (at = part.find("\nkernel ", at)) != std::string::npos; at += 8)
      part.insert(at + 8, "c" + std::to_string(copy) + "_");
    // A broken item in every other copy: the stdlib alone is over 150 KiB,
    // so the text may be two copies long.
    if (copy % 2 == 1)
      part.insert(part.find("block_grid"), "let = 3 in\n"); // a broken item
    text += part;
  }
  SourceFile file("big.kina", text);
  ParseResult threaded = parse(file);
  ParseCache cache;
  ParseResult sequential = cache.parse(file);
  EXPECT_FALSE(threaded.tableParsed);
  EXPECT_GT(threaded.module.items.size(), 100u);
  EXPECT_EQ(dump(threaded), dump(sequential));
}

} // namespace
