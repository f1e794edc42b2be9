//===- CheckerTest.cpp - Checker side tables the IDE relies on ------------===//
#include "sema/Frontend.h"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

using namespace kina;

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Checker, InfersTileShapesForHoverAndInlayHints) {
  SourceFile file("seed.kina", readFile(KINA_SOURCE_DIR "/tests/lit/syntax/seed_gemm_tc.kina"));
  sema::Analysis a = sema::analyze(file);
  const std::string &text = file.text();
  size_t slice = text.find("a_smem[warp_m * 64 ..+ 64, 0 ..+ 16]");
  ASSERT_NE(slice, std::string::npos);
  bool found = false;
  for (const sema::TypeAnnotation &t : a.program.annotations)
    if (t.span.begin == slice) {
      EXPECT_EQ(t.shape, "[64, 16]");
      EXPECT_TRUE(t.inlay);
      found = true;
    }
  EXPECT_TRUE(found);
  bool reg = false;
  for (const sema::SymbolInfo &s : a.program.symbolInfos)
    if (s.name == "c_reg") {
      EXPECT_EQ(s.type, "Tile[F32, [64, 64], on=cuda:register]");
      EXPECT_GE(s.references.size(), 3u);
      reg = true;
    }
  EXPECT_TRUE(reg);
}

TEST(Checker, SeedIsRejectedWithTheStoreIntoA) {
  SourceFile file("seed.kina", readFile(KINA_SOURCE_DIR "/tests/lit/syntax/seed_gemm_tc.kina"));
  sema::Analysis a = sema::analyze(file);
  bool readOnly = false;
  for (const Diagnostic &d : a.diagnostics)
    readOnly |= d.id == DiagId::StoreToReadOnly;
  EXPECT_TRUE(readOnly);
}

TEST(Checker, StdlibChecksClean) {
  for (const char *name : {"gemm_tc", "gemm_f16_pipelined", "gemm_bf16_pipelined", "elementwise",
                           "reduce", "transpose", "softmax"}) {
    std::string path = std::string(KINA_SOURCE_DIR "/stdlib/") + name + ".kina";
    SourceFile file(path, readFile(path));
    for (const char *target : {"sm_80", "sm_90a"}) {
      sema::FrontendOptions o;
      o.target = target;
      sema::Analysis a = sema::analyze(file, o);
      for (const Diagnostic &d : a.diagnostics)
        ADD_FAILURE() << path << " (" << target << "): " << d.message;
    }
  }
}

} // namespace

namespace {

TEST(Checker, SelectedCalleeReportsWhenReachedThroughASelectedCaller) {
  // Regression: with onlyItems = {callee, caller} and the caller first, the
  // callee's own error went to the caller's scratch sink and was lost.
  const char *text = R"(kernel user [R]
    requires (R mod 16 = 0)
    requires capability(sm_80)
    (x : Tensor[F32, [R, 64], on=cuda:global])
    : (out : Tensor[F32, [R, 64], on=cuda:global]) {
  block_grid [R/16] {
    warp_grid [1] {
      register t : Tile[F32, [16, 64], on=cuda:register]
      t <- x[block_id 0 * 16 ..+ 16, 0 ..+ 64]
      out[block_id 0 * 16 ..+ 16, 0 ..+ 64] <- twice t
    }
  }
}

tile twice [R, C]
    (t : Tile[F32, [R, C], on=cuda:register])
    : Tile[F32, [R, C], on=cuda:register] {
  return add t unknown_name
}
)";
  SourceFile file("t.kina", text);
  sema::FrontendOptions all;
  size_t full = 0;
  for (const Diagnostic &d : sema::analyze(file, all).diagnostics)
    full += d.id == DiagId::UnknownName;
  sema::FrontendOptions subset;
  subset.onlyItems = {0, 1};
  size_t partial = 0;
  for (const Diagnostic &d : sema::analyze(file, subset).diagnostics)
    partial += d.id == DiagId::UnknownName;
  EXPECT_EQ(full, 1u);
  EXPECT_EQ(partial, full);
}

} // namespace
