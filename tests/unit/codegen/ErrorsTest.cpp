//===- ErrorsTest.cpp - Impossible targets, bad IR, missing tools ---------===//
//
// Each failure is a catalogued diagnostic, reported before LLVM runs where
// the input is at fault; none aborts the process.
//
//===----------------------------------------------------------------------===//
#include "Fixtures.h"
#include "codegen/Codegen.h"
#include "ir/Builder.h"

#include <gtest/gtest.h>

using namespace kina;
using namespace kina::codegen;

namespace {

/// Compiles and returns the first diagnostic as "Kxxxx: message".
std::string firstError(const ir::Kernel &k, CodegenOptions opts, Stage stage = Stage::PTX) {
  DiagnosticSink sink;
  auto r = compile(k, opts, stage, sink);
  EXPECT_FALSE(r.has_value());
  if (sink.diagnostics().empty())
    return "<no diagnostic>";
  const auto &d = sink.diagnostics().front();
  std::string s = std::string(d.info().code) + ": " + d.message;
  for (const auto &n : d.notes)
    s += " | " + n;
  return s;
}

CodegenOptions target(std::string t, std::string ptx = "") {
  CodegenOptions o;
  o.target = std::move(t);
  o.ptxVersion = std::move(ptx);
  return o;
}

} // namespace

TEST(CodegenErrors, UnknownTarget) {
  std::string e = firstError(ir::fixtures::seedGemm(), target("sm_08"));
  EXPECT_EQ(e.rfind("K1101: ", 0), 0u) << e;
  EXPECT_NE(e.find("sm_80"), std::string::npos) << e;
}

TEST(CodegenErrors, PtxVersionTooOldForTarget) {
  std::string e = firstError(ir::fixtures::seedGemm(), target("sm_90a", "7.0"));
  EXPECT_EQ(e.rfind("K1102: ", 0), 0u) << e;
}

TEST(CodegenErrors, PtxVersionNewerThanKinaEmits) {
  std::string e = firstError(ir::fixtures::seedGemm(), target("sm_80", "9.1"));
  EXPECT_EQ(e.rfind("K1102: ", 0), 0u) << e;
}

TEST(CodegenErrors, UnparsablePtxVersion) {
  std::string e = firstError(ir::fixtures::seedGemm(), target("sm_80", "eighty"));
  EXPECT_EQ(e, "K1102: `eighty` is not a PTX ISA version (write e.g. 8.0)");
}

TEST(CodegenErrors, TargetWithoutCpAsync) {
  std::string e = firstError(ir::fixtures::seedGemm(), target("sm_75"));
  EXPECT_EQ(e.rfind("K1209: kernel 'gemm_tc' needs `", 0), 0u) << e;
  EXPECT_NE(e.find("sm_75 does not have"), std::string::npos) << e;
  EXPECT_NE(e.find("sm_80"), std::string::npos) << e;
}

TEST(CodegenErrors, MalformedIRIsRejectedBeforeLowering) {
  ir::Kernel k = ir::fixtures::seedGemm();
  k.body.ops.push_back(ir::Op{ir::FillOp{77, 0.0}, {}});
  std::string e = firstError(k, target("sm_80"));
  EXPECT_EQ(e.rfind("K1201: ", 0), 0u) << e;
}

TEST(CodegenErrors, TooMuchSharedMemory) {
  ir::fixtures::GemmConfig c;
  c.stages = 8;
  c.blockK = 64; // 8 * (16 KiB + 16 KiB) = 256 KiB
  std::string e = firstError(ir::fixtures::pipelinedGemm(c), target("sm_90a"));
  EXPECT_EQ(e.rfind("K1207: ", 0), 0u) << e;
  EXPECT_NE(e.find("the target allows 232448"), std::string::npos) << e;
}

TEST(CodegenErrors, UnsupportedMmaShape) {
  ir::KernelBuilder b("odd_mma");
  ir::TileId a = b.addSharedTile("a", ir::DType::F16, {24, 16});
  ir::TileId bb = b.addSharedTile("b", ir::DType::F16, {16, 8});
  ir::TileId c = b.addRegisterTile("c", ir::DType::F32, {32, 8});
  b.fill(c, 0);
  b.mma(c, c, ir::Access::tile(a, {ir::SliceDim::range(ir::IndexExpr::constant(0), 24),
                                   ir::SliceDim::range(ir::IndexExpr::constant(0), 16)}),
        ir::Access::tile(bb));
  auto k = b.finish();
  ASSERT_TRUE(static_cast<bool>(k));
  std::string e = firstError(*k, target("sm_80"));
  // The verifier sees the M mismatch first (24 vs 32).
  EXPECT_EQ(e.rfind("K1202: ", 0), 0u) << e;
}

TEST(CodegenErrors, RegisterTileShapeCodegenCannotSpread) {
  ir::KernelBuilder b("odd_tile");
  ir::TileId r = b.addRegisterTile("r", ir::DType::F32, {8, 8});
  b.fill(r, 1.0);
  auto k = b.finish();
  ASSERT_TRUE(static_cast<bool>(k));
  std::string e = firstError(*k, target("sm_80"));
  EXPECT_EQ(e.rfind("K1206: kernel 'odd_tile': register tile 'r': a register tile [8, 8]", 0), 0u) << e;
}

TEST(CodegenErrors, MissingPtxasNamesTheTool) {
  CodegenOptions o = target("sm_80");
  o.ptxasPath = "/nonexistent/ptxas";
  std::string e = firstError(ir::fixtures::seedGemm(), o, Stage::Cubin);
  EXPECT_EQ(e.rfind("K1103: ", 0), 0u) << e;
  EXPECT_NE(e.find("ptxas"), std::string::npos) << e;
}

TEST(CodegenErrors, EveryTargetOrPtxComboIsADiagnosticNotAnAbort) {
  // Sweep a grid of targets and PTX pins: each either compiles or gives
  // K1101/K1102/K1209; the process must never reach an LLVM ERROR.
  for (const char *t : {"sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a",
                        "sm_100a", "sm_120", "sm_35", "sm_90b", ""})
    for (const char *ptx : {"", "6.0", "7.0", "7.8", "8.0", "8.7", "9.0", "9.1", "99.9"}) {
      DiagnosticSink sink;
      auto r = compile(ir::fixtures::elementwiseAddRelu(), target(t, ptx), Stage::PTX, sink);
      if (r) {
        EXPECT_FALSE(r->ptx.empty());
        continue;
      }
      ASSERT_FALSE(sink.diagnostics().empty()) << t << " " << ptx;
      auto code = sink.diagnostics().front().info().code;
      EXPECT_TRUE(code == "K1101" || code == "K1102" || code == "K1209")
          << t << " / " << ptx << ": " << code << " " << sink.diagnostics().front().message;
    }
}
