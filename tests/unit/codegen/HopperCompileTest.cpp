//===- HopperCompileTest.cpp - The sm_90a kernels assemble as intended ----===//
//
// Builds the Hopper kernels of tests/unit/ir/HopperKernels.h in tile IR and
// compiles them through MLIR, LLVM, PTX and the project's ptxas for sm_90a;
// the PTX must use wgmma.mma_async, cp.async.bulk.tensor, mbarriers and
// setmaxnreg, the SASS (nvdisasm from the project's wheels) HGMMA and
// UTMALDG, with no spills and no wgmma-serialisation warning. Without
// ptxas/nvdisasm these tests fail, they are never skipped.
//
//===----------------------------------------------------------------------===//
#include "HopperKernels.h"
#include "codegen/Codegen.h"
#include "codegen/HopperLayout.h"
#include "ir/Builder.h"
#include "runtime/LaunchGuard.h"
#include "runtime/TensorMap.h"
#include "target/Sass.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

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

CodegenResult compileOrDie(const ir::Kernel &k, Stage stage = Stage::Cubin,
                           const std::string &target = "sm_90a") {
  CodegenOptions opts;
  opts.target = target;
  DiagnosticSink sink;
  auto r = compile(k, opts, stage, sink);
  EXPECT_TRUE(r.has_value()) << diagText(sink);
  return r ? std::move(*r) : CodegenResult{};
}

unsigned sassCount(const CodegenResult &r, const std::string &fn, const std::string &opcode) {
  std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t *>(r.cubin.data()),
                                      r.cubin.size());
  auto listing = target::disassembleCubin(bytes);
  if (!listing) {
    ADD_FAILURE() << llvm::toString(listing.takeError());
    return 0;
  }
  const target::SassFunction *f = listing->find(fn);
  if (!f) {
    ADD_FAILURE() << "no SASS function " << fn;
    return 0;
  }
  unsigned n = 0;
  for (const auto &ins : f->instructions)
    if (ins.opcode.rfind(opcode, 0) == 0)
      ++n;
  return n;
}

} // namespace

TEST(HopperCompile, GemmUsesTmaWgmmaAndSetmaxnreg) {
  ir::Kernel k = ir::fixtures::hopperGemm();
  CodegenResult r = compileOrDie(k);
  ASSERT_FALSE(r.cubin.empty());
  // Whitespace runs as one space, so that the checks read like PTX.
  std::string ptx;
  for (char ch : r.ptx)
    if (!(ch == ' ' || ch == '\t') || ptx.empty() || ptx.back() != ' ')
      ptx += ch == '\t' ? ' ' : ch;
  // 64 k16 steps per stage: K = 64 -> 4 wgmma per consumer and k-block.
  EXPECT_EQ(count(ptx, "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"), 4) << ptx;
  // Two loads per stage (LLVM may unroll the producer loop).
  int tma = count(
      ptx, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes");
  EXPECT_GT(tma, 0);
  EXPECT_EQ(tma % 2, 0);
  EXPECT_GT(count(ptx, "wgmma.fence.sync.aligned"), 0);
  EXPECT_GT(count(ptx, "wgmma.commit_group.sync.aligned"), 0);
  EXPECT_GT(count(ptx, "wgmma.wait_group.sync.aligned 0"), 0);
  EXPECT_GT(count(ptx, "mbarrier.try_wait.parity"), 0);
  EXPECT_GT(count(ptx, "mbarrier.arrive.expect_tx"), 0);
  EXPECT_GT(count(ptx, "mbarrier.init"), 0);
  EXPECT_GT(count(ptx, "fence.mbarrier_init"), 0);
  EXPECT_EQ(count(ptx, "setmaxnreg.dec.sync.aligned.u32 40"), 1);
  EXPECT_EQ(count(ptx, "setmaxnreg.inc.sync.aligned.u32 232"), 1);
  EXPECT_NE(ptx.find(".maxnreg 168"), std::string::npos);
  EXPECT_NE(ptx.find(".maxntid 384, 1, 1"), std::string::npos);
  // The tensor maps: by-value 128-byte parameters after the dims.
  EXPECT_EQ(count(ptx, ".param .align 64 .b8 gemm_bf16_hopper_128x256x64_s3_param_"), 2) << ptx;
  EXPECT_EQ(ptx.find(".local"), std::string::npos) << "local memory in the PTX";
  EXPECT_NE(r.ptxasLog.find("0 bytes spill stores, 0 bytes spill loads"), std::string::npos)
      << r.ptxasLog;
  for (const char *w : {"C7510", "C7511", "C7512", "C7513", "C7514", "C7515"})
    EXPECT_EQ(r.ptxasLog.find(w), std::string::npos) << r.ptxasLog;
  EXPECT_GT(sassCount(r, k.name, "HGMMA"), 0u);
  EXPECT_GT(sassCount(r, k.name, "UTMALDG"), 0u);
  std::cout << r.ptxasLog;
  // Launch metadata: 384 threads, > 48 KB of dynamic shared memory.
  EXPECT_EQ(r.launch.block[0], 384u);
  EXPECT_EQ(r.launch.dynamicSharedBytes, 3u * (128 + 256) * 64 * 2 + 128 + 1024);
}

TEST(HopperCompile, GemmF16) {
  ir::fixtures::HopperGemmConfig c;
  c.input = ir::DType::F16;
  CodegenResult r = compileOrDie(ir::fixtures::hopperGemm(c));
  EXPECT_EQ(count(r.ptx, "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16"), 4);
  EXPECT_NE(r.ptxasLog.find("0 bytes spill stores, 0 bytes spill loads"), std::string::npos)
      << r.ptxasLog;
}

TEST(HopperCompile, BringUpKernels) {
  ir::Kernel t = ir::fixtures::tmaRoundTrip();
  CodegenResult r = compileOrDie(t);
  EXPECT_EQ(count(r.ptx, "cp.async.bulk.tensor.2d.shared::cluster.global"), 1) << r.ptx;
  EXPECT_GT(sassCount(r, t.name, "UTMALDG"), 0u);
  for (auto [n, kk] :
       {std::pair{64, 16}, std::pair{64, 64}, std::pair{256, 64}, std::pair{8, 32}}) {
    ir::Kernel w = ir::fixtures::wgmmaSmall(n, kk);
    CodegenResult rw = compileOrDie(w);
    EXPECT_EQ(count(rw.ptx,
                    "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k16.f32.bf16.bf16"),
              kk / 16)
        << rw.ptx;
    EXPECT_GT(sassCount(rw, w.name, "HGMMA"), 0u) << w.name;
    EXPECT_NE(rw.ptxasLog.find("0 bytes spill stores, 0 bytes spill loads"), std::string::npos)
        << rw.ptxasLog;
  }
}

TEST(HopperCompile, Sm90WithoutTheAFeaturesIsACapabilityError) {
  for (const char *target : {"sm_90", "sm_80"}) {
    CodegenOptions opts;
    opts.target = target;
    DiagnosticSink sink;
    auto r = compile(ir::fixtures::hopperGemm(), opts, Stage::PTX, sink);
    EXPECT_FALSE(r.has_value());
    std::string d = diagText(sink);
    EXPECT_NE(d.find("K1209"), std::string::npos) << d;
    EXPECT_NE(d.find("which " + std::string(target) + " does not have"), std::string::npos) << d;
  }
}

TEST(HopperCompile, LaunchMetadataDescribesTheTensorMaps) {
  ir::Kernel k = ir::fixtures::hopperGemm();
  CodegenOptions opts;
  opts.target = "sm_90a";
  DiagnosticSink sink;
  auto r = compile(k, opts, Stage::MLIR, sink);
  ASSERT_TRUE(r.has_value()) << diagText(sink);
  const LaunchMetadata &m = r->launch;
  // a, b, c, then M, N, K, then the two maps (the kernel's parameter order).
  ASSERT_EQ(m.params.size(), 8u);
  const LaunchParam &ma = m.params[6], &mb = m.params[7];
  EXPECT_EQ(ma.kind, LaunchParam::Kind::TensorMap);
  EXPECT_EQ(ma.tensor, "a");
  EXPECT_EQ(ma.box, (std::vector<int64_t>{128, 64}));
  EXPECT_EQ(mb.tensor, "b");
  EXPECT_EQ(mb.box, (std::vector<int64_t>{256, 64}));
  EXPECT_EQ(mb.swizzle, "128B");
  EXPECT_EQ(mb.abi, "tensormap");
  EXPECT_EQ(mb.dtype, "BF16");
  // 2 M N K: two consumer warpgroups, 64 x 256 each, per k-block of 64.
  ASSERT_TRUE(m.flops && m.reduction);
  auto fl = evaluate(m, m.flops->expr, {{"M", 256}, {"N", 512}, {"K", 192}});
  ASSERT_TRUE(static_cast<bool>(fl));
  EXPECT_EQ(*fl, 2 * 256 * 512 * 192);
  auto red = evaluate(m, m.reduction->expr, {{"M", 256}, {"N", 512}, {"K", 192}});
  ASSERT_TRUE(static_cast<bool>(red));
  EXPECT_EQ(*red, 192);
  auto back = launchMetadataFromJson(toJsonText(m));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  ASSERT_EQ(back->params.size(), 8u);
  EXPECT_EQ(back->params[7].kind, LaunchParam::Kind::TensorMap);
  EXPECT_EQ(back->params[7].box, mb.box);
  EXPECT_EQ(back->params[7].tensor, "b");
  EXPECT_EQ(back->params[7].swizzle, "128B");
}

TEST(HopperCompile, RuntimeReadsTheTensorMapsCodegenWrites) {
  CodegenOptions opts;
  opts.target = "sm_90a";
  DiagnosticSink sink;
  auto r = compile(ir::fixtures::hopperGemm(), opts, Stage::MLIR, sink);
  ASSERT_TRUE(r.has_value()) << diagText(sink);
  auto spec = runtime::parseLaunchSpec(toJsonText(r->launch), "gemm.launch.json");
  ASSERT_TRUE(spec) << spec.error().message;
  auto plan = runtime::checkDims(*spec, runtime::DimValues{{"M", 256}, {"N", 512}, {"K", 192}});
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->params.size(), 8u);
  const runtime::ParamPlan &mb = plan->params[7];
  EXPECT_EQ(mb.kind, runtime::ParamKind::TensorMap);
  EXPECT_EQ(mb.tensorIndex, 1u);
  EXPECT_EQ(mb.shape, (std::vector<std::int64_t>{512, 192}));
  EXPECT_EQ(mb.box, (std::vector<std::int64_t>{256, 64}));
  runtime::TensorMapRequest req{mb.tensor, mb.dtype, 0x100000, mb.shape, mb.box, true};
  auto enc = runtime::checkTensorMap(req);
  ASSERT_TRUE(enc) << enc.error().message;
  EXPECT_EQ(enc->boxDim, (std::vector<unsigned>{64, 256}));
  EXPECT_EQ(plan->config.block.x, 384u);
  EXPECT_GT(plan->config.dynamicSharedBytes, 48u * 1024);
}

TEST(HopperCompile, SerializationWarningsAreFound) {
  const char *log =
      "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
      "ptxas warning : (C7515) Potential Performance Loss: wgmma.mma_async instructions are "
      "serialized due to the presence of Extern calls in the function 'k'.\n"
      "ptxas info    : Used 90 registers\n"
      "ptxas warning : (C7511) Potential Performance Loss: wgmma.mma_async instructions are "
      "serialized due to insufficient register resources for the wgmma pipeline in the function "
      "'k'\n";
  auto w = wgmmaSerializationWarnings(log);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NE(w[0].find("(C7515)"), std::string::npos);
  EXPECT_NE(w[1].find("(C7511)"), std::string::npos);
  EXPECT_TRUE(wgmmaSerializationWarnings("ptxas info : Used 168 registers\n").empty());
}

TEST(HopperCompile, TooManyAccumulatorRegistersIsAK1224) {
  // Two [64, 256] accumulators live at once need 256 registers per thread
  // for the accumulators alone: ptxas serialises the wgmma pipeline (C7511),
  // and the build fails with K1224 at the first wgmma.
  using E = ir::IndexExpr;
  ir::KernelBuilder b("two_accumulators");
  auto c = [](int64_t v) { return E::constant(v); };
  auto R = [](E off, int64_t n) { return ir::SliceDim::range(std::move(off), n); };
  ir::ParamId a = b.addTensor("a", ir::DType::BF16, {c(64), c(64)});
  ir::ParamId bt = b.addTensor("b", ir::DType::BF16, {c(256), c(64)});
  ir::ParamId out = b.addResult("c", ir::DType::F32, {c(128), c(256)});
  b.setWarpgroups(1);
  ir::TileId as =
      b.addSharedTile("a_s", ir::DType::BF16, {64, 64}, {}, ir::SharedLayout::Swizzle128B);
  ir::TileId bs =
      b.addSharedTile("b_s", ir::DType::BF16, {256, 64}, {}, ir::SharedLayout::Swizzle128B);
  ir::BarrierId full = b.addBarrier("full", 1, 1);
  b.barrierArrive(full, c(0), (64 + 256) * 64 * 2);
  b.tmaLoad(ir::Access::tile(as), ir::Access::tensor(a, {R(c(0), 64), R(c(0), 64)}), full, c(0));
  b.tmaLoad(ir::Access::tile(bs), ir::Access::tensor(bt, {R(c(0), 256), R(c(0), 64)}), full, c(0));
  b.barrierWait(full, c(0), c(0));
  ir::TileId acc0 =
      b.addRegisterTile("acc0", ir::DType::F32, {64, 256}, {}, ir::RegisterScope::Warpgroup);
  ir::TileId acc1 =
      b.addRegisterTile("acc1", ir::DType::F32, {64, 256}, {}, ir::RegisterScope::Warpgroup);
  b.wgmma(acc0, ir::Access::tile(as), ir::Access::tile(bs), E::binary(E::Kind::Eq, c(0), c(0)),
          Span{40, 52});
  b.wgmma(acc1, ir::Access::tile(as), ir::Access::tile(bs), E::binary(E::Kind::Eq, c(0), c(0)),
          Span{60, 72});
  b.wgmmaCommit();
  b.wgmmaWait(0);
  b.store(ir::Access::tensor(out, {R(c(0), 64), R(c(0), 256)}), acc0);
  b.store(ir::Access::tensor(out, {R(c(64), 64), R(c(0), 256)}), acc1);
  auto k = b.finish();
  ASSERT_TRUE(static_cast<bool>(k));
  CodegenOptions opts;
  opts.target = "sm_90a";
  DiagnosticSink sink;
  auto r = compile(*k, opts, Stage::Cubin, sink);
  EXPECT_FALSE(r.has_value());
  std::string d = diagText(sink);
  EXPECT_NE(d.find("K1224"), std::string::npos) << d;
  ASSERT_FALSE(sink.diagnostics().empty());
  EXPECT_EQ(sink.diagnostics()[0].span, (Span{40, 52}));
  // The second wgmma's line says it is serialised too (K0862, a note).
  bool here = false;
  for (const Diagnostic &x : sink.diagnostics())
    if (x.id == DiagId::WgmmaSerializedHere) {
      EXPECT_EQ(x.span, (Span{60, 72}));
      EXPECT_NE(x.message.find("serialised too: ptxas (C751"), std::string::npos) << x.message;
      here = true;
    }
  EXPECT_TRUE(here) << d;
}

TEST(HopperCompile, ConsumerBudgetTooSmallIsAnError) {
  // Consumers squeezed to 24 registers per thread cannot hold a [64, 256]
  // accumulator (128 registers): ptxas 13 then drops every setmaxnreg
  // (C7507) and allocates 154 registers for all; the build fails with K1226
  // at the consumer role instead of producing a cubin without the split.
  ir::fixtures::HopperGemmConfig c;
  c.consumerRegisters = 24;
  CodegenOptions opts;
  opts.target = "sm_90a";
  DiagnosticSink sink;
  auto r = compile(ir::fixtures::hopperGemm(c), opts, Stage::Cubin, sink);
  EXPECT_FALSE(r.has_value());
  std::string d = diagText(sink);
  EXPECT_NE(d.find("K1226"), std::string::npos) << d;
  EXPECT_NE(d.find("C7507"), std::string::npos) << d;
  ASSERT_FALSE(sink.diagnostics().empty());
  // The consumer role (the hand-built fixture has no spans: the kernel's).
  EXPECT_EQ(sink.diagnostics()[0].id, DiagId::SetmaxnregIgnored);
}
