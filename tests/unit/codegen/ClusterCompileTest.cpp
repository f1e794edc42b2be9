//===- ClusterCompileTest.cpp - 2x1 clusters with TMA multicast ----------===//
//
// The persistent GEMM in 2x1 clusters of /work/coord/s3.md "Cluster
// multicast" (tests/unit/ir/HopperKernels.h, hopperGemmCluster) through
// MLIR, LLVM, PTX and the project's ptxas for sm_90a:
//
//  * the shared operand's copy is the multicast bulk tensor copy with the
//    ctaMask of both CTAs, the other operand's copy is the plain one;
//  * a cluster release is, per rank of the cluster, mapa + mbarrier.arrive
//    .release.cluster.shared::cluster; the producer's waits on the released
//    barrier acquire at cluster scope; other waits stay .acquire.cta;
//  * barrier init, fence.mbarrier_init.release.cluster, the cluster barrier
//    before the roles, and a second cluster barrier before exit;
//  * ptxas: no wgmma serialisation (C7510-C7515), no spills; SASS (nvdisasm):
//    UTMALDG with .MULTICAST, HGMMA, the cluster barrier (UCGABAR_*).
//
// Without ptxas/nvdisasm these tests fail, they are never skipped.
//
//===----------------------------------------------------------------------===//
#include "HopperKernels.h"
#include "codegen/Codegen.h"
#include "runtime/LaunchGuard.h"
#include "target/Sass.h"

#include <gtest/gtest.h>

#include <map>

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

/// The SASS of `fn`: base opcode -> count, and every instruction's text.
struct Sass {
  std::map<std::string, unsigned> ops;
  std::vector<std::string> text;
  unsigned countText(const std::string &needle) const {
    unsigned n = 0;
    for (const auto &t : text)
      n += t.find(needle) != std::string::npos;
    return n;
  }
};

Sass sassOf(const CodegenResult &r, const std::string &fn) {
  std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t *>(r.cubin.data()),
                                      r.cubin.size());
  Sass s;
  auto listing = target::disassembleCubin(bytes);
  if (!listing) {
    ADD_FAILURE() << llvm::toString(listing.takeError());
    return s;
  }
  const target::SassFunction *f = listing->find(fn);
  if (!f) {
    ADD_FAILURE() << "no SASS function " << fn;
    return s;
  }
  for (const auto &ins : f->instructions) {
    ++s.ops[ins.opcode.substr(0, ins.opcode.find('.'))];
    s.text.push_back(ins.text);
  }
  return s;
}

CodegenResult compileOrDie(const ir::Kernel &k, Stage stage = Stage::Cubin) {
  CodegenOptions opts;
  opts.target = "sm_90a";
  DiagnosticSink sink;
  auto r = compile(k, opts, stage, sink);
  EXPECT_TRUE(r.has_value()) << diagText(sink);
  return r ? std::move(*r) : CodegenResult{};
}

const char *kMulticast = "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
                         "complete_tx::bytes.multicast::cluster";

/// The register holding the ctaMask of the (one) multicast copy, and whether
/// the PTX sets it to `mask`.
bool multicastMaskIs(const std::string &ptx, int mask) {
  size_t at = ptx.find("multicast::cluster [");
  if (at == std::string::npos)
    return false;
  size_t end = ptx.find(';', at), comma = ptx.rfind(", ", end);
  std::string reg = ptx.substr(comma + 2, end - comma - 2);
  return ptx.find("mov.b16 \t" + reg + ", " + std::to_string(mask) + ";") != std::string::npos;
}
const char *kPlain =
    "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [";

} // namespace

TEST(ClusterCompile, MulticastGemmAssemblesWithoutSerialisationOrSpills) {
  for (auto cfg :
       {ir::fixtures::ClusterGemmConfig{}, ir::fixtures::ClusterGemmConfig{ir::DType::F16},
        ir::fixtures::ClusterGemmConfig{ir::DType::BF16, 132, true}}) {
    ir::Kernel k = ir::fixtures::hopperGemmCluster(cfg);
    CodegenResult r = compileOrDie(k);
    ASSERT_FALSE(r.cubin.empty()) << k.name;
    for (const char *w : {"C7510", "C7511", "C7512", "C7513", "C7514", "C7515"})
      EXPECT_EQ(r.ptxasLog.find(w), std::string::npos) << k.name << "\n" << r.ptxasLog;
    EXPECT_NE(r.ptxasLog.find("0 bytes spill stores, 0 bytes spill loads"), std::string::npos)
        << r.ptxasLog;

    // One multicast copy (the shared operand's half box) and one plain copy.
    EXPECT_EQ(count(r.ptx, kMulticast), 1) << r.ptx;
    EXPECT_EQ(count(r.ptx, kPlain), 1) << r.ptx;
    // The ctaMask: both CTAs (0b11).
    EXPECT_TRUE(multicastMaskIs(r.ptx, 3)) << r.ptx;

    // Two release sites in the consumer (in the loop, after it), each one
    // arrival per rank of the cluster, through mapa. Only wgmma reads the
    // stages, so the arrivals keep .release.cta and the waits .acquire.cta
    // (no MEMBAR.GPU in the consumer's loop; ClusterToMLIR.cpp).
    EXPECT_EQ(count(r.ptx, "mapa.shared::cluster.u64"), 4) << r.ptx;
    EXPECT_EQ(count(r.ptx, "mbarrier.arrive.shared::cluster.b64 _,"), 4) << r.ptx;
    EXPECT_EQ(r.ptx.find("release.cluster.shared::cluster"), std::string::npos) << r.ptx;
    EXPECT_EQ(r.ptx.find("acquire.cluster"), std::string::npos) << r.ptx;
    EXPECT_EQ(count(r.ptx, "mbarrier.try_wait.parity.shared.b64"), 3) << r.ptx;
    // The local expect_tx arrival on `full` is the ordinary CTA one.
    EXPECT_EQ(count(r.ptx, "mbarrier.arrive.expect_tx"), 1) << r.ptx;

    // Start: init, fence.mbarrier_init, cluster barrier; end: cluster barrier.
    EXPECT_NE(r.ptx.find("fence.mbarrier_init.release.cluster;"), std::string::npos);
    EXPECT_EQ(count(r.ptx, "barrier.cluster.arrive.aligned;"), 2) << r.ptx;
    EXPECT_EQ(count(r.ptx, "barrier.cluster.wait.aligned;"), 2) << r.ptx;
    size_t lastWait = r.ptx.rfind("barrier.cluster.wait.aligned;");
    size_t lastStore = r.ptx.rfind("cp.async.bulk.wait_group \t0;");
    ASSERT_NE(lastStore, std::string::npos) << r.ptx;
    EXPECT_GT(lastWait, lastStore) << "the exit barrier comes after the roles";
    EXPECT_NE(r.ptx.find(".reqnctapercluster 2, 1, 1"), std::string::npos);

    Sass s = sassOf(r, k.name);
    EXPECT_GT(s.ops["HGMMA"], 0u) << k.name;
    EXPECT_EQ(s.countText("UTMALDG") - s.countText("MULTICAST"), 1u) << k.name;
    EXPECT_EQ(s.countText("MULTICAST"), 1u) << k.name;
    EXPECT_GE(s.ops["UCGABAR_ARV"], 2u) << k.name;
    EXPECT_GE(s.ops["UCGABAR_WAIT"], 2u) << k.name;
    EXPECT_GT(s.ops["UTMASTG"], 0u) << k.name;
    // Remote arrivals are SYNCS.ARRIVE.TRANS64.RED (a write to the peer's
    // barrier); no GPU-scope membar comes before them.
    EXPECT_EQ(s.countText("SYNCS.ARRIVE.TRANS64.RED"), 4u) << k.name;
    // The two cluster barriers (start, exit) are releases: one MEMBAR.GPU each.
    EXPECT_EQ(s.countText("MEMBAR.ALL.GPU"), 2u) << k.name;
  }
}

// A generic-proxy read of a multicast destination (ldmatrix from the
// multicast A stage) may still be outstanding at the release: the arrival
// is then .release.cluster and the wait on the released barrier acquires at
// cluster scope.
TEST(ClusterCompile, GenericReadOfMulticastStageReleasesAtClusterScope) {
  ir::Kernel k = ir::fixtures::clusterLdmatrixRelease();
  CodegenResult r = compileOrDie(k);
  ASSERT_FALSE(r.cubin.empty());
  EXPECT_TRUE(multicastMaskIs(r.ptx, 3)) << r.ptx;
  EXPECT_EQ(count(r.ptx, "mbarrier.arrive.release.cluster.shared::cluster.b64 _,"), 2) << r.ptx;
  EXPECT_EQ(count(r.ptx, "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64"), 1) << r.ptx;
  EXPECT_EQ(count(r.ptx, "mbarrier.try_wait.parity.shared.b64"), 1) << r.ptx; // `full`
  EXPECT_GT(count(r.ptx, "ldmatrix"), 0) << r.ptx;
  EXPECT_EQ(count(r.ptx, "barrier.cluster.arrive.aligned;"), 2) << r.ptx;
  Sass s = sassOf(r, k.name);
  EXPECT_EQ(s.countText("MULTICAST"), 1u);
  EXPECT_GT(s.ops["HGMMA"], 0u);
}

// The shared operand's tensor map has the half box (each rank copies
// [128, 64] of B, or [64, 64] of A), the other operand's the whole one; the
// launch metadata carries the cluster and the guard accepts only a grid the
// cluster divides.
TEST(ClusterCompile, LaunchMetadataHasHalfBoxesAndTheCluster) {
  CodegenResult r = compileOrDie(ir::fixtures::hopperGemmCluster(), Stage::MLIR);
  const LaunchMetadata &m = r.launch;
  std::map<std::string, std::vector<int64_t>> boxes;
  for (const LaunchParam &p : m.params)
    if (p.kind == LaunchParam::Kind::TensorMap)
      boxes[p.tensor] = p.box;
  EXPECT_EQ(boxes["a"], (std::vector<int64_t>{128, 64}));
  EXPECT_EQ(boxes["b"], (std::vector<int64_t>{128, 64}));
  EXPECT_EQ(boxes["c"], (std::vector<int64_t>{64, 64}));
  EXPECT_EQ(m.cluster[0], 2u);
  CodegenResult ra =
      compileOrDie(ir::fixtures::hopperGemmCluster({ir::DType::BF16, 132, true}), Stage::MLIR);
  boxes.clear();
  for (const LaunchParam &p : ra.launch.params)
    if (p.kind == LaunchParam::Kind::TensorMap)
      boxes[p.tensor] = p.box;
  EXPECT_EQ(boxes["a"], (std::vector<int64_t>{64, 64}));
  EXPECT_EQ(boxes["b"], (std::vector<int64_t>{256, 64}));
  // The flop count is 2 M N K (every tile once over all clusters).
  ASSERT_TRUE(m.flops);
  auto fl = evaluate(m, m.flops->expr, {{"M", 512}, {"N", 512}, {"K", 192}});
  ASSERT_TRUE(static_cast<bool>(fl));
  EXPECT_EQ(*fl, 2 * 512 * 512 * 192);
  auto spec = runtime::parseLaunchSpec(toJsonText(m), "c.launch.json");
  ASSERT_TRUE(spec) << spec.error().message;
  auto plan = runtime::checkDims(*spec, runtime::DimValues{{"M", 512}, {"N", 512}, {"K", 192}});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->config.cluster.x, 2u);
  EXPECT_EQ(plan->config.grid.x, 132u);
  // M = 128 breaks `M mod 256 = 0`: the guard refuses it before the launch.
  auto bad = runtime::checkDims(*spec, runtime::DimValues{{"M", 128}, {"N", 512}, {"K", 192}});
  EXPECT_FALSE(bad);
}

// A cluster launch without multicast or cluster arrivals keeps the old form:
// one cluster barrier (after the init), no exit barrier, no mapa, and every
// wait CTA-scoped (Hopper2Compile.ClusterLaunch checks the rest).
TEST(ClusterCompile, NoSharingNoExitBarrier) {
  ir::fixtures::PersistentGemmConfig cfg;
  cfg.cluster = 2;
  CodegenResult r = compileOrDie(ir::fixtures::hopperGemmPersistent(cfg), Stage::PTX);
  EXPECT_EQ(count(r.ptx, "barrier.cluster.arrive.aligned;"), 1);
  EXPECT_EQ(r.ptx.find("mapa"), std::string::npos);
  EXPECT_EQ(r.ptx.find("multicast"), std::string::npos);
  EXPECT_EQ(r.ptx.find("acquire.cluster"), std::string::npos);
}
