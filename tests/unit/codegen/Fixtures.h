//===- Fixtures.h - Named hand-built kernels for codegen tests ---*- C++ -*-===//
#pragma once

#include "HopperKernels.h"
#include "SeedKernels.h"

#include <functional>
#include <string>
#include <vector>

namespace kina::codegen::fixtures {

struct NamedKernel {
  std::string name;
  std::function<ir::Kernel()> make;
  bool isGemm = false;
};

inline std::vector<NamedKernel> stdlibKernels() {
  using namespace ir::fixtures;
  return {
      {"gemm_tc", seedGemm, true},
      {"gemm_pipelined_f16", [] { return pipelinedGemm(); }, true},
      {"gemm_pipelined_bf16",
       [] {
         GemmConfig c;
         c.input = ir::DType::BF16;
         return pipelinedGemm(c);
       },
       true},
      {"gemm_pipelined_f16_out_f16",
       [] {
         GemmConfig c;
         c.output = ir::DType::F16;
         return pipelinedGemm(c);
       },
       true},
      {"gemm_pipelined_f16_s4",
       [] {
         GemmConfig c;
         c.stages = 4;
         return pipelinedGemm(c);
       },
       true},
      {"gemm_pipelined_f16_128x256",
       [] {
         GemmConfig c;
         c.blockN = 256;
         c.warpsM = 2;
         c.warpsN = 4;
         return pipelinedGemm(c);
       },
       true},
      {"add_relu", elementwiseAddRelu},
      {"row_sum", rowSum},
      {"transpose", transposeShared},
      {"softmax_rows", rowSoftmax},
  };
}

/// The sm_90a kernels (TMA, mbarriers, wgmma, roles): sm_90a only.
inline std::vector<NamedKernel> hopperKernels() {
  using namespace ir::fixtures;
  return {
      {"gemm_bf16_hopper", [] { return hopperGemm(); }, true},
      {"gemm_f16_hopper",
       [] {
         HopperGemmConfig c;
         c.input = ir::DType::F16;
         return hopperGemm(c);
       },
       true},
      {"tma_round_trip", tmaRoundTrip},
      {"wgmma_m64n64k16", [] { return wgmmaSmall(64, 16); }},
      {"wgmma_m64n256k64", [] { return wgmmaSmall(256, 64); }},
      {"gemm_bf16_hopper_wait1",
       [] {
         HopperGemmConfig c;
         c.wgmmaPending = 1;
         return hopperGemm(c);
       },
       true},
      {"wgmma_rega_ldmatrix_n64", [] { return wgmmaRegisterA(64, false); }},
      {"wgmma_rega_ldmatrix_n256", [] { return wgmmaRegisterA(256, false); }},
      {"wgmma_rega_chain_n64", [] { return wgmmaRegisterA(64, true); }},
      {"wgmma_rega_chain_n128", [] { return wgmmaRegisterA(128, true); }},
      // hopper2.md section 1: the persistent kernel, and its older forms.
      {"gemm_bf16_hopper_persistent", [] { return hopperGemmPersistent(); }, true},
      {"gemm_f16_hopper_persistent", [] { return hopperGemmPersistent({ir::DType::F16}); }, true},
      {"gemm_bf16_hopper_persistent_gstore",
       [] { return hopperGemmPersistent({ir::DType::BF16, 132, 1, false}); }, true},
      {"gemm_bf16_hopper_persistent_cluster2",
       [] {
         ir::fixtures::PersistentGemmConfig c;
         c.cluster = 2;
         return hopperGemmPersistent(c);
       },
       true},
      {"gemm_bf16_hopper_persistent_grid1_gstore",
       [] { return hopperGemmPersistent({ir::DType::BF16, 1, 1, false}); }, true},
      {"gemm_bf16_hopper_persistent_wait0_gstore",
       [] { return hopperGemmPersistent({ir::DType::BF16, 132, 0, false}); }, true},
      // s3.md "Cluster multicast": 2x1 clusters sharing B (the plan's
      // kernel) or A through TMA multicast, released by cluster arrivals.
      {"gemm_bf16_hopper_cluster", [] { return hopperGemmCluster(); }, true},
      {"gemm_f16_hopper_cluster", [] { return hopperGemmCluster({ir::DType::F16}); }, true},
      {"gemm_bf16_hopper_cluster_share_a",
       [] { return hopperGemmCluster({ir::DType::BF16, 132, true}); }, true},
      {"gemm_bf16_hopper_cluster_grid2",
       [] { return hopperGemmCluster({ir::DType::BF16, 2, false}); }, true},
  };
}

inline std::vector<NamedKernel> allKernels() {
  auto all = stdlibKernels();
  for (auto &k : hopperKernels())
    all.push_back(k);
  return all;
}

} // namespace kina::codegen::fixtures
