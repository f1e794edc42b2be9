//===- PrinterTest.cpp - The textual tile IR (`--emit=tile-ir`) -----------===//
#include "SeedKernels.h"
#include "ir/Printer.h"

#include <gtest/gtest.h>

using namespace kina::ir;

TEST(TileIRPrinter, SeedGemm) {
  std::string text = print(fixtures::seedGemm());
  const char *expected[] = {
      "kernel @gemm_tc [M, N, K]\n",
      "  param %a : tensor<F16, [M, K], cuda:global>\n",
      "  result %out : tensor<F32, [M, N], cuda:global>\n",
      "  requires M mod 128 = 0\n",
      "  requires capability mma_m16n16k16_f16_f16_f32\n",
      "  block_grid [M / 128, N / 128]\n",
      "  warp_grid [2, 2]\n",
      "  shared %a_smem : tile<F16, [128, 16], cuda:shared>\n",
      "  register %c_reg : tile<F32, [64, 64], cuda:register>\n",
      "  %c_reg <- fill 0.0\n",
      "  for %k in (0 .. K / 16) {\n",
      "    cp_async %a_smem <- %a[%block_m * 128 ..+ 128, %k * 16 ..+ 16] group #0\n",
      "    cp_async_commit #0\n",
      "    cp_async_wait_group 0 completes [#0]\n",
      "    block_sync\n",
      "    %c_reg <- mma %c_reg, %a_smem[%warp_m * 64 ..+ 64, 0 ..+ 16], "
      "%b_smem[0 ..+ 16, %warp_n * 64 ..+ 64]\n",
      "  store %out[%block_m * 128 + %warp_m * 64 ..+ 64, %block_n * 128 + %warp_n * 64 ..+ 64] "
      "<- %c_reg\n",
  };
  for (const char *line : expected)
    EXPECT_NE(text.find(line), std::string::npos) << "missing: " << line << "in:\n" << text;
}

TEST(TileIRPrinter, PrecedenceAndStages) {
  std::string text = print(fixtures::pipelinedGemm());
  EXPECT_NE(text.find("cp_async %a_smem[%next mod 3, 0 ..+ 128, 0 ..+ 32] <- "
                      "%a[block_id 0 * 128 ..+ 128, %next * 32 ..+ 32]"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("if 0 < %k_tiles {"), std::string::npos) << text;
  EXPECT_NE(text.find("store %out[block_id 0 * 128 + warp_id 0 * 64 ..+ 64"), std::string::npos)
      << text;
  Kernel k;
  k.name = "p";
  IndexExpr e = (IndexExpr::constant(1) + IndexExpr::constant(2)) * IndexExpr::constant(3);
  EXPECT_EQ(printIndex(k, e), "(1 + 2) * 3");
  EXPECT_EQ(printIndex(k, IndexExpr::constant(1) - (IndexExpr::constant(2) - IndexExpr::constant(3))),
            "1 - (2 - 3)");
  EXPECT_EQ(printIndex(k, IndexExpr::dim(7)), "?dim7");
}
