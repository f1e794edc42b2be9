//===- CompileTest.cpp - Every stdlib kernel assembles for sm_80/sm_90a ---===//
//
// Compiles each hand-built stdlib kernel through MLIR, LLVM, PTX and the
// project's ptxas, and pins the instructions it must use and the absence of
// local-memory spills in the GEMMs. Needs ptxas (scripts/setup.sh installs
// it under .deps/cuda); without it these tests fail with K1103, they are
// never skipped.
//
//===----------------------------------------------------------------------===//
#include "Fixtures.h"
#include "codegen/Codegen.h"

#include <gtest/gtest.h>
#include <regex>

using namespace kina;
using namespace kina::codegen;

namespace {

std::string diagText(const DiagnosticSink &sink) {
  std::string s;
  for (const auto &d : sink.diagnostics())
    s += std::string(d.info().code) + ": " + d.message + "\n";
  return s;
}

int count(const std::string &text, const std::string &needle) {
  int n = 0;
  for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1))
    ++n;
  return n;
}

struct Param {
  fixtures::NamedKernel kernel;
  std::string target;
};

class StdlibCompile : public ::testing::TestWithParam<Param> {};

} // namespace

TEST_P(StdlibCompile, AssemblesWithPtxas) {
  const Param &p = GetParam();
  ir::Kernel k = p.kernel.make();
  CodegenOptions opts;
  opts.target = p.target;
  DiagnosticSink sink;
  auto r = compile(k, opts, Stage::Cubin, sink);
  ASSERT_TRUE(r.has_value()) << diagText(sink);
  EXPECT_FALSE(r->cubin.empty());
  EXPECT_EQ(r->cubin.substr(0, 4), "\x7f" "ELF");
  EXPECT_NE(r->ptx.find(".target " + p.target), std::string::npos);
  EXPECT_NE(r->ptx.find(".entry " + k.name), std::string::npos);
  EXPECT_NE(r->ptxasLog.find("Compiling entry function '" + k.name + "'"), std::string::npos)
      << r->ptxasLog;
  EXPECT_NE(r->ptxasLog.find("0 bytes spill stores, 0 bytes spill loads"), std::string::npos)
      << r->ptxasLog;
  EXPECT_EQ(r->ptx.find(".local"), std::string::npos) << "local memory in the PTX";
  if (p.kernel.isGemm) {
    EXPECT_GT(count(r->ptx, "mma.sync.aligned.m16n8k16.row.col.f32."), 0);
    EXPECT_GT(count(r->ptx, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"), 0);
    EXPECT_GT(count(r->ptx, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"), 0);
    EXPECT_GT(count(r->ptx, "cp.async.cg.shared.global"), 0);
    EXPECT_GT(count(r->ptx, "cp.async.commit_group"), 0);
    EXPECT_GT(count(r->ptx, "cp.async.wait_group"), 0);
    EXPECT_GT(count(r->ptx, "bar.sync"), 0);
  }
  EXPECT_EQ(r->launch.entry, k.name);
  EXPECT_EQ(r->launch.block[0], k.threadsPerBlock());
}

static std::vector<Param> allParams() {
  std::vector<Param> ps;
  for (const auto &k : fixtures::stdlibKernels())
    for (const char *t : {"sm_80", "sm_90a"})
      ps.push_back({k, t});
  return ps;
}

INSTANTIATE_TEST_SUITE_P(Kernels, StdlibCompile, ::testing::ValuesIn(allParams()),
                         [](const ::testing::TestParamInfo<Param> &info) {
                           return info.param.kernel.name + "_" + info.param.target;
                         });

TEST(GemmCodegen, InstructionCountsOfTheSeedGemm) {
  // 64x64 warp tile, BK = 16: per k step 4 A fetches, 4 B fetches, 4*8 mma.
  DiagnosticSink sink;
  auto r = compile(ir::fixtures::seedGemm(), {}, Stage::PTX, sink);
  ASSERT_TRUE(r.has_value()) << diagText(sink);
  EXPECT_EQ(count(r->ptx, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"), 32);
  EXPECT_EQ(count(r->ptx, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"), 4);
  EXPECT_EQ(count(r->ptx, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"), 4);
  // 128x16 + 16x128 halves = 512 chunks of 16 bytes over 128 threads.
  EXPECT_EQ(count(r->ptx, "cp.async.cg.shared.global"), 4);
  // Stores of the accumulator are 8-byte vectors: 64x64 / 32 lanes / 2.
  EXPECT_EQ(count(r->ptx, "st.global.v2.b32"), 64);
}

TEST(GemmCodegen, Bf16UsesBf16Mma) {
  ir::fixtures::GemmConfig c;
  c.input = ir::DType::BF16;
  DiagnosticSink sink;
  auto r = compile(ir::fixtures::pipelinedGemm(c), {}, Stage::PTX, sink);
  ASSERT_TRUE(r.has_value()) << diagText(sink);
  EXPECT_GT(count(r->ptx, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"), 0);
}

TEST(GemmCodegen, FourStagesUseDynamicSharedMemory) {
  ir::fixtures::GemmConfig c;
  c.stages = 4;
  DiagnosticSink sink;
  auto r = compile(ir::fixtures::pipelinedGemm(c), {}, Stage::PTX, sink);
  ASSERT_TRUE(r.has_value()) << diagText(sink);
  EXPECT_EQ(r->launch.dynamicSharedBytes, 65536u);
  EXPECT_EQ(r->launch.staticSharedBytes, 0u);
  EXPECT_NE(r->ptx.find(".extern .shared .align 128 .b8 __kina_smem[]"), std::string::npos);
}

TEST(Codegen, StagesStopWhereAsked) {
  DiagnosticSink sink;
  auto r = compile(ir::fixtures::elementwiseAddRelu(), {}, Stage::MLIR, sink);
  ASSERT_TRUE(r.has_value()) << diagText(sink);
  EXPECT_NE(r->mlir.find("gpu.func @add_relu"), std::string::npos);
  EXPECT_TRUE(r->ptx.empty());
  r = compile(ir::fixtures::elementwiseAddRelu(), {}, Stage::LLVM, sink);
  ASSERT_TRUE(r.has_value()) << diagText(sink);
  EXPECT_NE(r->llvmIR.find("define ptx_kernel void @add_relu"), std::string::npos) << r->llvmIR;
  EXPECT_TRUE(r->ptx.empty());
}
