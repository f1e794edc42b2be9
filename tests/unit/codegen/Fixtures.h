//===- Fixtures.h - Named hand-built kernels for codegen tests ---*- C++ -*-===//
#pragma once

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

} // namespace kina::codegen::fixtures
