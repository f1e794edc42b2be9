//===- ItemCheckTest.cpp - Item-by-item checking equals a full check ------===//
//
// ItemCheckCache re-checks only the items whose text (or whose callees'
// text) changed. These tests assert both halves of that contract: what was
// re-checked after each kind of edit, and that the merged result (every
// diagnostic with its labels, notes and fix-its; annotations; symbols;
// kernel summaries) equals kina::sema::analyze of the same text, over a
// seeded series of random edits of a realistic multi-item file.
//
//===----------------------------------------------------------------------===//
#include "ItemCheck.h"

#include "sema/Frontend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include <tuple>

using namespace kina;
using namespace kina::lsp;

namespace {

std::string readFile(const std::string &path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

/// A file with tile functions, their callers, and the stdlib kernels.
std::string corpus() {
  std::string root = KINA_SOURCE_DIR;
  std::string text;
  for (const char *p :
       {"/tests/lit/sema/cap-through-tile-function.kina", "/stdlib/gemm_tc.kina",
        "/tests/lit/sema/call-requires-symbolic.kina", "/stdlib/softmax.kina",
        "/stdlib/reduce.kina", "/stdlib/transpose.kina", "/stdlib/elementwise.kina"})
    text += readFile(root + p) + "\n";
  return text;
}

std::string describe(const Diagnostic &d) {
  std::ostringstream s;
  s << d.info().code << "@" << d.span.begin << "-" << d.span.end << " " << d.message;
  for (const SpanLabel &l : d.labels)
    s << " [label " << l.span.begin << "-" << l.span.end << " " << l.message << "]";
  for (const std::string &n : d.notes)
    s << " [note " << n << "]";
  for (const FixIt &f : d.fixits)
    s << " [fix " << f.span.begin << "-" << f.span.end << " '" << f.replacement << "' "
      << f.title << "]";
  return s.str();
}

std::vector<std::string> describeAll(const std::vector<Diagnostic> &ds) {
  std::vector<std::string> out;
  for (const Diagnostic &d : ds)
    out.push_back(describe(d));
  return out;
}

std::vector<std::string> annotations(const std::vector<sema::TypeAnnotation> &as) {
  std::vector<std::string> out;
  for (const auto &a : as)
    out.push_back(std::to_string(a.span.begin) + "-" + std::to_string(a.span.end) + " " +
                  a.type + " " + a.shape + (a.inlay ? " inlay" : ""));
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> symbols(const std::vector<sema::SymbolInfo> &ss) {
  std::vector<std::string> out;
  for (const auto &s : ss) {
    std::vector<uint32_t> refs;
    for (Span r : s.references)
      refs.push_back(r.begin);
    std::sort(refs.begin(), refs.end());
    std::string line = s.name + " kind" + std::to_string(int(s.kind)) + " item" +
                       std::to_string(s.item) + " @" + std::to_string(s.definition.begin) + " " +
                       s.type + " refs";
    for (uint32_t r : refs)
      line += " " + std::to_string(r);
    out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> kernels(const std::vector<sema::KernelSummary> &ks) {
  std::vector<std::string> out;
  for (const auto &k : ks) {
    std::string line = k.name + " item" + std::to_string(k.item) + " " + k.signature + " smem" +
                       std::to_string(k.sharedBytes) + " tpb" +
                       std::to_string(k.threadsPerBlock) + " regs" +
                       std::to_string(k.registerEstimate) + " caps";
    for (const auto &c : k.capabilities)
      line += " " + c;
    out.push_back(line);
  }
  return out;
}

/// Every node of a Module, ids and spans included.
std::string dump(const syntax::Module &m) {
  using namespace kina::syntax;
  std::string out;
  auto span = [&](Span s) { out += "@" + std::to_string(s.begin) + "-" + std::to_string(s.end); };
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
           std::to_string(s.target) + " " + std::to_string(s.value) + " " + std::to_string(s.end);
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
    out += "I" + std::to_string(int(it.kind)) + it.name.name + " " + std::to_string(it.result);
    for (Span x : {it.span, it.keywordSpan, it.name.span, it.dimsSpan, it.resultSpan, it.bodySpan})
      span(x);
    for (const Ident &d : it.dims) {
      out += " d" + d.name;
      span(d.span);
    }
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
  return out;
}

/// Expects the incremental result to equal a from-scratch analysis.
void expectEqualsFullCheck(const CheckedFile &inc, const std::string &text,
                           const std::string &target, const std::string &context) {
  SourceFile file("t.kina", text);
  sema::FrontendOptions o;
  o.target = target;
  sema::Analysis full = sema::analyze(file, o);
  std::vector<std::string> got = describeAll(inc.diagnostics), want = describeAll(full.diagnostics);
  if (got != want) {
    std::string diff;
    for (const auto &g : got)
      if (std::find(want.begin(), want.end(), g) == want.end())
        diff += "\n  only incremental: " + g;
    for (const auto &w : want)
      if (std::find(got.begin(), got.end(), w) == got.end())
        diff += "\n  only full: " + w;
    FAIL() << context << ": diagnostics differ" << diff;
  }
  EXPECT_EQ(annotations(inc.annotations()), annotations(full.program.annotations)) << context;
  EXPECT_EQ(symbols(inc.symbols()), symbols(full.program.symbolInfos)) << context;
  EXPECT_EQ(kernels(inc.kernels()), kernels(full.program.kernels)) << context;
  // The Module the features read, assembled from the items' parses.
  EXPECT_EQ(dump(inc.module()), dump(full.parse.module)) << context;
}

TEST(ItemCheck, OpenChecksEverythingOnceThenReusesIt) {
  ItemCheckCache cache;
  std::string text = corpus();
  auto first = cache.check(SourceFile("t.kina", text), "sm_80");
  EXPECT_GT(first->itemsChecked, 5u);
  EXPECT_EQ(first->itemsReused, 0u);
  expectEqualsFullCheck(*first, text, "sm_80", "open");
  // The same text again: nothing is re-checked.
  auto again = cache.check(SourceFile("t.kina", text), "sm_80");
  EXPECT_EQ(again->itemsChecked, 0u);
  EXPECT_EQ(again->itemsReused, first->itemsChecked);
  // A comment between items moves every later item: still nothing re-checked.
  std::string moved = text;
  moved.insert(moved.find("kernel gemm_tc"), "// moved\n\n");
  auto shifted = cache.check(SourceFile("t.kina", moved), "sm_80");
  EXPECT_EQ(shifted->itemsChecked, 0u);
  expectEqualsFullCheck(*shifted, moved, "sm_80", "shifted");
  // Another target: every item again.
  auto other = cache.check(SourceFile("t.kina", moved), "sm_90a");
  EXPECT_EQ(other->itemsChecked, first->itemsChecked);
  expectEqualsFullCheck(*other, moved, "sm_90a", "target");
}

TEST(ItemCheck, EditInsideOneKernelRechecksOnlyThatKernel) {
  ItemCheckCache cache;
  std::string text = corpus();
  cache.check(SourceFile("t.kina", text), "sm_80");
  // Inside softmax_f32's body (no other item names it).
  size_t at = text.find("block_grid", text.find("kernel softmax_f32"));
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "block_sync\n    ");
  auto r = cache.check(SourceFile("t.kina", text), "sm_80");
  EXPECT_EQ(r->itemsChecked, 1u);
  expectEqualsFullCheck(*r, text, "sm_80", "edit in kernel");
}

TEST(ItemCheck, EditInsideATileFunctionRechecksItsCallers) {
  ItemCheckCache cache;
  std::string text = corpus();
  cache.check(SourceFile("t.kina", text), "sm_80");
  // mma_step is called by the first gemm_tc only: it and that caller.
  size_t at = text.find("return wmma_mma acc x y");
  text.replace(at, 23, "return acc");
  auto r = cache.check(SourceFile("t.kina", text), "sm_80");
  EXPECT_EQ(r->itemsChecked, 2u);
  // The capability error of the caller is gone with the MMA.
  for (const Diagnostic &d : r->diagnostics)
    EXPECT_EQ(d.message.find("uses `mma_m16n16k16_f16_f16_f32`"), std::string::npos)
        << d.message;
  expectEqualsFullCheck(*r, text, "sm_80", "edit in tile function");
}

TEST(ItemCheck, NewItemNamedLikeAnUnknownFunctionRechecksTheUser) {
  ItemCheckCache cache;
  std::string text = "kernel k\n  (a : Tensor[F16, [64], on=cuda:global])\n"
                     "  : (c : Tensor[F16, [64], on=cuda:global]) {\n"
                     "  block_grid [1] {\n    let v = helper a in\n    block_sync\n  }\n}\n";
  auto before = cache.check(SourceFile("t.kina", text), "sm_80");
  expectEqualsFullCheck(*before, text, "sm_80", "unknown helper");
  text += "\ntile helper\n  (t : Tensor[F16, [64], on=cuda:global])\n"
          "  : Tensor[F16, [64], on=cuda:global] {\n  return t\n}\n";
  auto after = cache.check(SourceFile("t.kina", text), "sm_80");
  EXPECT_EQ(after->itemsChecked, 2u); // the new item and its caller
  expectEqualsFullCheck(*after, text, "sm_80", "helper defined");
}

/// A misspelt call's suggestion reads every item's name and kind: an item
/// that becomes callable from the caller (a host `fn` turned into a `tile`
/// function of the same name) changes the fix-it, though the caller names
/// neither it nor anything it names.
TEST(ItemCheck, ItemKindChangeRechecksAMisspeltCall) {
  ItemCheckCache cache;
  // After the corpus: the two items re-checked are checked one by one.
  std::string text = corpus() +
                     "kernel k\n  (a : Tensor[F16, [64], on=cuda:global])\n"
                     "  : (c : Tensor[F16, [64], on=cuda:global]) {\n"
                     "  block_grid [1] {\n    let v = helpr a in\n    block_sync\n  }\n}\n"
                     "\nfn helper\n  (t : Tensor[F16, [64], on=cuda:global])\n"
                     "  : Tensor[F16, [64], on=cuda:global] {\n  return t\n}\n";
  auto before = cache.check(SourceFile("t.kina", text), "sm_80");
  expectEqualsFullCheck(*before, text, "sm_80", "host helper");
  text.replace(text.find("fn helper"), 2, "tile");
  auto after = cache.check(SourceFile("t.kina", text), "sm_80");
  EXPECT_EQ(after->itemsChecked, 2u); // the changed item and the misspelt call's
  expectEqualsFullCheck(*after, text, "sm_80", "tile helper");
  bool suggested = false;
  for (const Diagnostic &d : after->diagnostics)
    for (const FixIt &f : d.fixits)
      suggested |= f.replacement == "helper";
  EXPECT_TRUE(suggested);
}

/// The file-level verdicts (duplicate item names, item symbols) are kept
/// by the layout of the item headers: edits inside bodies, line breaks and
/// comments between items move them and reuse the verdicts, renames check
/// again; every result equals a full check.
TEST(ItemCheck, FileLevelVerdictsMoveWithTheirItems) {
  ItemCheckCache cache;
  std::string text = corpus();
  // Two more definitions of a kernel's name: duplicates with labels.
  size_t k = text.find("kernel softmax_f32");
  size_t end = text.find("\n}\n", k) + 3;
  std::string again = text.substr(k, end - k);
  text += "\n" + again + "\n// between\n" + again;
  cache.check(SourceFile("t.kina", text), "sm_80");
  size_t checks = cache.fileLevelChecks();
  std::mt19937 rng(4);
  unsigned moved = 0;
  for (int i = 0; i < 120; ++i) {
    size_t at = text.find("\n", rng() % text.size());
    if (at == std::string::npos)
      at = text.size() - 1;
    switch (rng() % 4) {
    case 0: // a line break
      text.insert(at + 1, "\n");
      break;
    case 1: // a comment line
      text.insert(at + 1, "// c\n");
      break;
    case 2: { // an edit inside a body
      size_t b = text.find("block_sync", at);
      if (b != std::string::npos)
        text.insert(b, "block_sync\n    ");
      break;
    }
    default: { // a rename of an item: the verdicts change
      size_t b = text.find("kernel ", at);
      if (b != std::string::npos)
        text.insert(b + 7, "r");
    }
    }
    size_t before = cache.fileLevelChecks();
    auto r = cache.check(SourceFile("t.kina", text), "sm_80");
    moved += cache.fileLevelChecks() == before;
    expectEqualsFullCheck(*r, text, "sm_80", "edit " + std::to_string(i));
    if (::testing::Test::HasFatalFailure())
      return;
  }
  EXPECT_GT(checks, 0u);
  EXPECT_GT(moved, 40u); // kept across edits that move items
}

class ItemCheckRandom : public ::testing::TestWithParam<unsigned> {};

TEST_P(ItemCheckRandom, EditsEqualFullChecks) {
  ItemCheckCache cache;
  std::string text = corpus();
  std::mt19937 rng(GetParam());
  const std::vector<std::string> pieces = {
      "{", "}", "(", ")", "[", "]", "\n", " ", "a", "k", "0", "16", "mma_step ", "rows_max ",
      "block_sync\n", "cp_async_wait_all\n", "kernel z {\n", "tile t {\n", "// c\n", "<- ",
      "c_reg", "F16", "sm_90a", ", cp_async", "requires (M mod 64 = 0)\n"};
  unsigned reused = 0;
  for (int i = 0; i < 300; ++i) {
    size_t at = rng() % (text.size() + 1);
    if (rng() % 3 == 0 && text.size() > 10) {
      text.erase(at, 1 + rng() % 4);
    } else if (rng() % 5 == 0 && text.size() > 40) {
      // Copy a random slice elsewhere (realistic paste).
      size_t from = rng() % (text.size() - 20);
      text.insert(at, text.substr(from, 1 + rng() % 20));
    } else {
      text.insert(at, pieces[rng() % pieces.size()]);
    }
    auto r = cache.check(SourceFile("t.kina", text), "sm_80");
    reused += r->itemsReused;
    expectEqualsFullCheck(*r, text, "sm_80", "edit " + std::to_string(i));
    if (::testing::Test::HasFatalFailure())
      return;
  }
  EXPECT_GT(reused, 300u); // the cache did its job
  // Bounded: the results of the last two checks at most.
  EXPECT_LE(cache.size(), 200u);
}

/// Typing at a cursor: characters of a statement typed one by one (the item
/// is broken in between), backspaces, and now and then a move elsewhere.
/// Incremental parses are kept only when error-free; the result must always
/// equal a fresh check.
TEST_P(ItemCheckRandom, TypingEqualsFullChecks) {
  ItemCheckCache cache;
  std::string text = corpus();
  std::mt19937 rng(GetParam());
  const std::vector<std::string> snippets = {
      "block_sync\n", "let q = block_id 0 in\n", "c_reg <- wmma_mma c_reg a_smem b_smem\n",
      "cp_async_wait_all\n", "register t : Tile[F32, [16, 16], on=cuda:register]\n",
      "for i in (0 .. 4) {\n}\n", "x[0 ..+ 16] <- relu t\n"};
  size_t cursor = text.find("block_grid");
  for (int i = 0; i < 300; ++i) {
    if (i % 40 == 0) {
      // Move to the start of a line inside some item's body.
      size_t at = text.find("\n    ", rng() % text.size());
      cursor = at == std::string::npos ? text.find("block_grid") : at + 1;
    }
    const std::string &snippet = snippets[(i / 40) % snippets.size()];
    if (rng() % 5 == 0 && cursor > 0) {
      text.erase(--cursor, 1); // backspace
    } else {
      text.insert(cursor, 1, snippet[i % snippet.size()]);
      ++cursor;
    }
    auto r = cache.check(SourceFile("t.kina", text), "sm_80");
    expectEqualsFullCheck(*r, text, "sm_80", "typing edit " + std::to_string(i));
    if (::testing::Test::HasFatalFailure())
      return;
  }
}

/// Edits that keep the file syntactically valid (numbers, names, comments,
/// whole statements) take the incremental parse, and still equal fresh checks.
TEST_P(ItemCheckRandom, ValidEditsParseIncrementally) {
  ItemCheckCache cache;
  std::string text = corpus();
  std::mt19937 rng(GetParam());
  cache.check(SourceFile("t.kina", text), "sm_80");
  unsigned tableParsed = 0;
  for (int i = 0; i < 60; ++i) {
    switch (rng() % 4) {
    case 0: { // a number changes
      size_t at = text.find("16", rng() % text.size());
      if (at != std::string::npos)
        text.replace(at, 2, rng() % 2 ? "32" : "8");
      break;
    }
    case 1: { // a comment is typed
      size_t at = text.find("// ", rng() % text.size());
      if (at != std::string::npos)
        text.insert(at + 3, "x");
      break;
    }
    case 2: { // a whole statement is pasted at the start of a body line
      size_t at = text.find("\n    block_sync", rng() % text.size());
      if (at != std::string::npos)
        text.insert(at + 1, "    block_sync\n");
      break;
    }
    default: { // a name is renamed
      size_t at = text.find("c_reg", rng() % text.size());
      if (at != std::string::npos)
        text.replace(at, 5, "c_rg");
    }
    }
    auto r = cache.check(SourceFile("t.kina", text), "sm_80");
    tableParsed += r->tableParsed;
    expectEqualsFullCheck(*r, text, "sm_80", "valid edit " + std::to_string(i));
    if (::testing::Test::HasFatalFailure())
      return;
  }
  EXPECT_EQ(tableParsed, 60u); // every edit here leaves valid syntax
}

INSTANTIATE_TEST_SUITE_P(Seeds, ItemCheckRandom, ::testing::Range(6u, 9u));

} // namespace
