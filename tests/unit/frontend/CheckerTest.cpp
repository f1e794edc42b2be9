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
