//===- Hopper2CompileTest.cpp - hopper2.md codegen assembles as intended --===//
//
// The persistent GEMM of hopper2.md section 1 (tests/unit/ir/HopperKernels.h)
// through MLIR, LLVM, PTX and the project's ptxas for sm_90a: the SASS
// (nvdisasm) has HGMMA, UTMALDG, STSM (stmatrix) and UTMASTG (TMA store),
// no spills and no wgmma-serialisation warning, with `wgmma_wait 1` in the
// loop. The stmatrix addressing and the panel-major swizzle are checked
// against the accumulator fragment of the PTX ISA, element by element.
// Without ptxas/nvdisasm these tests fail, they are never skipped.
//
//===----------------------------------------------------------------------===//
#include "HopperKernels.h"
#include "codegen/Codegen.h"
#include "codegen/HopperLayout.h"
#include "codegen/Layout.h"
#include "ir/Builder.h"
#include "runtime/LaunchGuard.h"
#include "runtime/TensorMap.h"
#include "target/Sass.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

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

std::map<std::string, unsigned> sassOpcodes(const CodegenResult &r, const std::string &fn) {
  std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t *>(r.cubin.data()),
                                      r.cubin.size());
  std::map<std::string, unsigned> n;
  auto listing = target::disassembleCubin(bytes);
  if (!listing) {
    ADD_FAILURE() << llvm::toString(listing.takeError());
    return n;
  }
  const target::SassFunction *f = listing->find(fn);
  if (!f) {
    ADD_FAILURE() << "no SASS function " << fn;
    return n;
  }
  for (const auto &ins : f->instructions)
    ++n[ins.opcode.substr(0, ins.opcode.find('.'))];
  return n;
}

CodegenResult compileOrDie(const ir::Kernel &k, Stage stage = Stage::Cubin) {
  CodegenOptions opts;
  opts.target = "sm_90a";
  DiagnosticSink sink;
  auto r = compile(k, opts, stage, sink);
  EXPECT_TRUE(r.has_value()) << diagText(sink);
  return r ? std::move(*r) : CodegenResult{};
}

} // namespace

TEST(Hopper2Compile, PersistentGemmWithTmaStoreEpilogue) {
  for (ir::DType dt : {ir::DType::BF16, ir::DType::F16}) {
    ir::Kernel k = ir::fixtures::hopperGemmPersistent({dt});
    CodegenResult r = compileOrDie(k);
    ASSERT_FALSE(r.cubin.empty()) << k.name;
    for (const char *w : {"C7510", "C7511", "C7512", "C7513", "C7514", "C7515"})
      EXPECT_EQ(r.ptxasLog.find(w), std::string::npos) << r.ptxasLog;
    EXPECT_NE(r.ptxasLog.find("0 bytes spill stores, 0 bytes spill loads"), std::string::npos)
        << r.ptxasLog;
    auto ops = sassOpcodes(r, k.name);
    EXPECT_GT(ops["HGMMA"], 0u);
    EXPECT_GT(ops["UTMALDG"], 0u);
    EXPECT_EQ(ops["STSM"], 16u);   // [64, 256] per warpgroup: 16 x4 squares per warp
    EXPECT_EQ(ops["UTMASTG"], 4u); // four 128-byte panels of the [64, 256] stage
    EXPECT_EQ(count(r.ptx, "cp.async.bulk.commit_group"), 1) << r.ptx;
    EXPECT_GT(
        count(r.ptx, "cvt.rn." + std::string(dt == ir::DType::BF16 ? "bf16x2" : "f16x2") + ".f32"),
        0);
    // Thread 0 of each warpgroup waits for its stores' reads and, at the
    // end of the role, for the writes.
    EXPECT_EQ(count(r.ptx, "cp.async.bulk.wait_group.read"), 2) << r.ptx;
    EXPECT_NE(r.ptx.find("cp.async.bulk.wait_group \t0;"), std::string::npos) << r.ptx;
  }
}

TEST(Hopper2Compile, LaunchMetadataHasTheStoreMap) {
  CodegenResult r = compileOrDie(ir::fixtures::hopperGemmPersistent(), Stage::MLIR);
  const LaunchMetadata &m = r.launch;
  ASSERT_EQ(m.params.size(), 9u); // a b c M N K + a, b and c maps
  const LaunchParam &mc = m.params[8];
  EXPECT_EQ(mc.kind, LaunchParam::Kind::TensorMap);
  EXPECT_EQ(mc.tensor, "c");
  EXPECT_EQ(mc.box, (std::vector<int64_t>{64, 64})); // one panel per box
  EXPECT_EQ(m.grid[0].text, "132");
  // The persistent tile loop visits every tile once over all blocks: the
  // flop count is 2 M N K, not grid * per-block work.
  ASSERT_TRUE(m.flops && m.reduction);
  auto fl = evaluate(m, m.flops->expr, {{"M", 256}, {"N", 512}, {"K", 192}});
  ASSERT_TRUE(static_cast<bool>(fl));
  EXPECT_EQ(*fl, 2 * 256 * 512 * 192);
  auto red = evaluate(m, m.reduction->expr, {{"M", 256}, {"N", 512}, {"K", 192}});
  ASSERT_TRUE(static_cast<bool>(red));
  EXPECT_EQ(*red, 192);
  auto spec = runtime::parseLaunchSpec(toJsonText(m), "p.launch.json");
  ASSERT_TRUE(spec) << spec.error().message;
  auto plan = runtime::checkDims(*spec, runtime::DimValues{{"M", 256}, {"N", 512}, {"K", 192}});
  ASSERT_TRUE(plan) << plan.error().message;
  const runtime::ParamPlan &pc = plan->params[8];
  EXPECT_EQ(pc.tensorIndex, 2u); // the result tensor's buffer
  EXPECT_EQ(pc.shape, (std::vector<std::int64_t>{256, 512}));
  runtime::TensorMapRequest req{pc.tensor, pc.dtype, 0x200000, pc.shape, pc.box, true};
  auto enc = runtime::checkTensorMap(req);
  ASSERT_TRUE(enc) << enc.error().message;
  EXPECT_EQ(enc->boxDim, (std::vector<unsigned>{64, 64}));
  EXPECT_EQ(enc->globalStrides, (std::vector<unsigned long long>{512 * 2}));
}

// The panel-major swizzle: element (3, 70) of a [64, 256] BF16 stage is in
// panel 1 (8192 B on), row 3, chunk (70 - 64) / 8 = 0 XOR 3 = 3, byte 12:
// 8192 + 3 * 128 + 3 * 16 + 12 = 8636 (hand-computed, PTX ISA "Tensor
// Swizzling Modes" 128B per panel).
TEST(Hopper2Layout, PanelMajorSwizzle) {
  ir::KernelBuilder b("k");
  ir::TileId t =
      b.addSharedTile("c_s", ir::DType::BF16, {2, 64, 256}, {}, ir::SharedLayout::Swizzle128B);
  ir::Kernel k = std::move(*b.finish());
  KernelLayout l = planLayout(k);
  const SharedTileLayout &s = *l.shared[t];
  EXPECT_TRUE(s.panelled);
  EXPECT_EQ(s.panelBytes, 8192u);
  EXPECT_EQ(s.stageBytes, 32768u);
  EXPECT_EQ(s.byteOffset(3, 70), 8636u);
  EXPECT_EQ(s.byteOffset(0, 0), 0u);
  EXPECT_EQ(s.byteOffset(63, 255), 3u * 8192 + swizzle128BOffset(63, 126));
  // A 64-wide tile is one panel: the old layout, unchanged.
  ir::KernelBuilder b2("k2");
  ir::TileId t2 =
      b2.addSharedTile("a_s", ir::DType::BF16, {64, 64}, {}, ir::SharedLayout::Swizzle128B);
  ir::Kernel k2 = std::move(*b2.finish());
  EXPECT_FALSE(planLayout(k2).shared[t2]->panelled);
}

// Lane 9 of warp 1, square 5: row 16 + 8 * 1 + 1 = 25, column 80 + 0 =
// panel 1, chunk 2 XOR (25 % 8 = 1) = 3: 8192 + 25 * 128 + 48 = 11440.
TEST(Hopper2Layout, StmatrixRowAddressHandComputed) {
  EXPECT_EQ(stmatrixRowAddress(32 + 9, 5, 64), 11440u);
  EXPECT_EQ(stmatrixRowAddress(0, 0, 64), 0u);
  // Lane 16 of warp 0, square 0: row 0, column 8 -> chunk 1.
  EXPECT_EQ(stmatrixRowAddress(16, 0, 64), 16u);
}

// Every accumulator register of every thread, stored by the stmatrix
// sequence of WarpgroupSharedToMLIR.cpp, lands where the tile layout (and
// so TMA) expects element (row, col): register i of lane l is in stmatrix
// register j = 2 * ((col % 16) / 8) + (i / 2) % 2 of square col / 16, row
// l / 4 of matrix j, whose address lane 8j + l / 4 of the warp gives.
TEST(Hopper2Layout, StmatrixStoresEveryFragmentElementAtItsTileOffset) {
  ir::KernelBuilder b("k");
  ir::TileId t =
      b.addSharedTile("c_s", ir::DType::BF16, {64, 256}, {}, ir::SharedLayout::Swizzle128B);
  ir::Kernel k = std::move(*b.finish());
  KernelLayout layout = planLayout(k);
  const SharedTileLayout &s = *layout.shared[t];
  std::set<uint64_t> seen;
  for (unsigned thread = 0; thread < 128; ++thread)
    for (unsigned i = 0; i < 128; ++i) {
      FragmentCoord c = wgmmaAccumulatorCoord(thread, i);
      unsigned lane = thread % 32, warp = thread / 32;
      unsigned j = 2 * ((c.col % 16) / 8) + (i / 2) % 2;
      unsigned addrThread = 32 * warp + 8 * j + lane / 4;
      uint64_t at =
          stmatrixRowAddress(addrThread, static_cast<unsigned>(c.col / 16), 64) + (c.col % 8) * 2;
      ASSERT_EQ(at, s.byteOffset(c.row, c.col)) << "thread " << thread << " register " << i;
      seen.insert(at);
    }
  EXPECT_EQ(seen.size(), 64u * 256); // every element written once
}

// wgmma with A from registers: ldmatrix.x4 per k16 step into the A
// fragment, or the F32 accumulator fragment converted (cvt-packed) into it;
// HGMMA takes a register operand (R...) instead of a descriptor for A.
TEST(Hopper2Compile, RegisterAWgmma) {
  for (bool chain : {false, true})
    for (int64_t n : {64, 256}) {
      ir::Kernel k = ir::fixtures::wgmmaRegisterA(n, chain);
      CodegenResult r = compileOrDie(k);
      ASSERT_FALSE(r.cubin.empty()) << k.name;
      for (const char *w : {"C7510", "C7511", "C7512", "C7513", "C7514", "C7515"})
        EXPECT_EQ(r.ptxasLog.find(w), std::string::npos) << r.ptxasLog;
      EXPECT_NE(r.ptxasLog.find("0 bytes spill stores, 0 bytes spill loads"), std::string::npos)
          << r.ptxasLog;
      std::string form =
          "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k16.f32.bf16.bf16";
      // K = 64: four k16 steps (the chain's first, shared-A product is m64n64 too).
      EXPECT_EQ(count(r.ptx, form), chain && n == 64 ? 8 : 4) << r.ptx;
      EXPECT_NE(r.ptx.find("}, {%r"), std::string::npos) << "no register A operand:\n" << r.ptx;
      auto ops = sassOpcodes(r, k.name);
      EXPECT_EQ(ops["HGMMA"], chain ? 8u : 4u);
      if (chain) {
        EXPECT_EQ(ops["LDSM"], 0u);
        EXPECT_EQ(count(r.ptx, "cvt.rn.bf16x2.f32"), 16); // [64, 64] F32: 32 regs -> 16 pairs
      } else {
        EXPECT_EQ(ops["LDSM"], 4u); // one ldmatrix.x4 per k16 step
      }
    }
}

// ldmatrix.x4 for k16 step s gives lane l of warp w, in register j, row
// 16w + 8 * (j % 2) + l / 4, columns 16s + 8 * (j / 2) + 2 * (l % 4) + {0, 1}
// (PTX ISA ldmatrix: thread l holds row l / 4 of each 8x8 matrix); the
// register A tile keeps it as pair 4s + j, i.e. accumulator-numbered
// elements 8s + 2j + {0, 1}: the same coordinates as wgmmaAccumulatorCoord.
TEST(Hopper2Layout, LdmatrixFillsTheAccumulatorNumberedPairs) {
  for (unsigned t = 0; t < 128; ++t)
    for (unsigned s = 0; s < 4; ++s)
      for (unsigned j = 0; j < 4; ++j)
        for (unsigned e = 0; e < 2; ++e) {
          unsigned l = t % 32, w = t / 32;
          FragmentCoord c = wgmmaAccumulatorCoord(t, 8 * s + 2 * j + e);
          EXPECT_EQ(c.row, 16 * w + 8 * (j % 2) + l / 4);
          EXPECT_EQ(c.col, 16 * s + 8 * (j / 2) + 2 * (l % 4) + e);
        }
}

// Clusters change the launch only: .reqnctapercluster in the PTX, the
// mbarrier initialisation made cluster-visible (fence.mbarrier_init is a
// cluster-scope release; barrier.cluster arrive/wait instead of bar.sync 0),
// the launch metadata's "cluster", and the launch guard's checks (K1327).
TEST(Hopper2Compile, ClusterLaunch) {
  ir::fixtures::PersistentGemmConfig cfg;
  cfg.cluster = 2;
  ir::Kernel k = ir::fixtures::hopperGemmPersistent(cfg);
  CodegenResult r = compileOrDie(k);
  ASSERT_FALSE(r.cubin.empty());
  EXPECT_NE(r.ptx.find(".reqnctapercluster 2, 1, 1"), std::string::npos) << r.ptx;
  EXPECT_EQ(count(r.ptx, "barrier.cluster.arrive.aligned;"), 1);
  EXPECT_EQ(count(r.ptx, "barrier.cluster.wait.aligned;"), 1);
  EXPECT_NE(r.ptx.find("fence.mbarrier_init.release.cluster;"), std::string::npos);
  EXPECT_NE(r.ptxasLog.find("0 bytes spill stores, 0 bytes spill loads"), std::string::npos);
  EXPECT_EQ(r.launch.cluster[0], 2u);
  std::string json = toJsonText(r.launch);
  auto spec = runtime::parseLaunchSpec(json, "c.launch.json");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->cluster.x, 2u);
  auto plan = runtime::checkDims(*spec, runtime::DimValues{{"M", 256}, {"N", 512}, {"K", 192}});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->config.cluster.x, 2u);
  // A grid the cluster does not divide, and a cluster over 8 CTAs: K1327.
  runtime::LaunchSpec bad = *spec;
  bad.cluster = {5, 1, 1};
  auto p5 = runtime::checkDims(bad, runtime::DimValues{{"M", 256}, {"N", 512}, {"K", 192}});
  ASSERT_FALSE(p5);
  EXPECT_EQ(p5.error().kind, runtime::ErrorKind::ClusterInvalid);
  EXPECT_EQ(std::string(diagInfo(p5.error().diagId()).code), "K1327");
  EXPECT_NE(p5.error().message.find("grid x = `132` = 132 is not a multiple of the cluster's 5"),
            std::string::npos)
      << p5.error().message;
  bad.cluster = {4, 3, 1};
  auto p12 = runtime::checkDims(bad, runtime::DimValues{{"M", 256}, {"N", 512}, {"K", 192}});
  ASSERT_FALSE(p12);
  EXPECT_NE(p12.error().message.find("has 12 CTAs; at most 8 are portable"), std::string::npos);
  // Without a cluster, the metadata has no "cluster" and the PTX no cluster barrier.
  CodegenResult plain = compileOrDie(ir::fixtures::hopperGemmPersistent(), Stage::PTX);
  EXPECT_EQ(toJsonText(plain.launch).find("\"cluster\""), std::string::npos);
  EXPECT_EQ(plain.ptx.find("barrier.cluster"), std::string::npos);
  EXPECT_EQ(plain.ptx.find("reqnctapercluster"), std::string::npos);
}
