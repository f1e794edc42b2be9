//===- AnalysisTest.cpp - What the analysis re-executes per edit ----------===//
//
// The server-level counterpart of tests/unit/query: an edit inside one
// kernel's body re-scans only that kernel's segment, and the incremental
// result equals a from-scratch analysis of the same text.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace kina;
using namespace kina::lsp;
using ::testing::ElementsAre;

namespace {

const char *kThree = "kernel a (x : F32) : F32 {\n  block_sync\n}\n"
                     "kernel b (x : F32) : F32 {\n  block_sync\n}\n"
                     "kernel c (x : F32) : F32 {\n  block_sync\n}\n";

/// The executions of one query, from an execution log.
std::vector<std::string> only(const std::vector<std::string> &log, const std::string &query) {
  std::vector<std::string> out;
  for (const auto &e : log)
    if (e.rfind(query + "(", 0) == 0)
      out.push_back(e);
  return out;
}

std::shared_ptr<const SourceFile> file(const std::string &text) {
  return std::make_shared<const SourceFile>("u", text);
}

TEST(Analysis, EditInsideOneKernelRescansOnlyThatKernel) {
  AnalysisOptions o;
  o.recordQueryExecutions = true;
  Analysis a(o);
  a.setFile("u", file(kThree), 1);
  EXPECT_EQ(a.snapshot()->kernels("u").size(), 3u);
  a.takeQueryExecutions();

  std::string edited = kThree;
  edited.replace(edited.find("block_sync", 50), 10, "block_sync {");
  a.setFile("u", file(edited), 2);
  auto snap = a.snapshot();
  EXPECT_FALSE(snap->diagnostics("u").empty());
  snap->semanticTokens("u");
  snap.reset();
  // The `{` left kernel b's braces unbalanced, so b and c are one segment
  // now; a's segment is untouched and not re-scanned.
  auto log = a.takeQueryExecutions();
  EXPECT_THAT(only(log, "segmentScan"), ElementsAre("segmentScan(u,1)"));
  EXPECT_THAT(only(log, "segmentText"), ElementsAre("segmentText(u,0)", "segmentText(u,1)"));

  // A balanced edit inside b: only b's segment is re-scanned.
  a.setFile("u", file(kThree), 3);
  a.snapshot()->semanticTokens("u");
  a.takeQueryExecutions();
  std::string inB = kThree;
  inB.replace(inB.find("block_sync", 50), 10, "cp_async_commit");
  a.setFile("u", file(inB), 4);
  EXPECT_EQ(a.snapshot()->semanticTokens("u").size(), 15u);
  // Projections of a and c re-run and cut off; only b is re-scanned.
  EXPECT_THAT(a.takeQueryExecutions(),
              ElementsAre("segments(u)", "lexical(u)", "segmentText(u,0)", "segmentText(u,1)",
                          "segmentScan(u,1)", "segmentText(u,2)"));
}

TEST(Analysis, IncrementalEqualsFromScratch) {
  Analysis inc;
  std::string text = kThree;
  inc.setFile("u", file(text), 1);
  inc.snapshot()->semanticTokens("u");
  const char *edits[] = {"{", "}", "kernel d {", "(", "// c\n", "]", "tile t {"};
  int v = 1;
  for (const char *e : edits) {
    text.insert(text.size() / 3 + v * 7, e);
    inc.setFile("u", file(text), ++v);
    Analysis scratch;
    scratch.setFile("u", file(text), v);
    auto a = inc.snapshot(), b = scratch.snapshot();
    EXPECT_EQ(a->semanticTokens("u"), b->semanticTokens("u")) << text;
    EXPECT_EQ(a->foldingRanges("u"), b->foldingRanges("u")) << text;
    EXPECT_EQ(a->documentSymbols("u"), b->documentSymbols("u")) << text;
    auto da = a->diagnostics("u"), db = b->diagnostics("u");
    ASSERT_EQ(da.size(), db.size()) << text;
    for (size_t i = 0; i < da.size(); ++i) {
      EXPECT_EQ(da[i].span, db[i].span);
      EXPECT_EQ(da[i].message, db[i].message);
    }
  }
}

TEST(Analysis, ClosedFileReadsAsEmpty) {
  Analysis a;
  a.setFile("u", file(kThree), 1);
  EXPECT_EQ(a.snapshot()->kernels("u").size(), 3u);
  a.closeFile("u");
  auto s = a.snapshot();
  EXPECT_EQ(s->file("u"), nullptr);
  EXPECT_FALSE(s->version("u"));
  EXPECT_TRUE(s->kernels("u").empty());
  EXPECT_TRUE(s->diagnostics("u").empty());
}

} // namespace
