//===- GemmFixture.h - Launch metadata of the seed gemm_tc kernel ---------===//
//
// The launch metadata codegen emits for seed 003's gemm_tc (as documented in
// docs/launch-metadata.md), shared by the LaunchSpec and guard tests.
//
//===----------------------------------------------------------------------===//
#pragma once

inline const char *kGemmTcLaunchJson = R"json({
  "schema": "kina.launch/1",
  "kernel": "gemm_tc",
  "symbol": "gemm_tc",
  "target": "sm_90a",
  "cubin": "gemm_tc.sm_90a.cubin",
  "dims": ["M", "N", "K"],
  "grid": ["M/128", "N/128", 1],
  "block": [128],
  "dynamic_smem_bytes": 0,
  "static_smem_bytes": 8192,
  "params": [
    {"name": "a", "kind": "tensor", "dtype": "f16", "shape": ["M", "K"], "role": "input"},
    {"name": "b", "kind": "tensor", "dtype": "f16", "shape": ["K", "N"], "role": "input"},
    {"name": "out", "kind": "tensor", "dtype": "f32", "shape": ["M", "N"], "role": "output"},
    {"name": "M", "kind": "dim", "type": "i32"},
    {"name": "N", "kind": "dim", "type": "i32"},
    {"name": "K", "kind": "dim", "type": "i32"}
  ],
  "requires": [
    {"expr": "M", "modulus": 128, "source": "requires (M mod 128 = 0)"},
    {"expr": "N", "modulus": 128, "source": "requires (N mod 128 = 0)"},
    {"expr": "K", "modulus": 16, "source": "requires (K mod 16 = 0)"}
  ],
  "capabilities": ["mma_m16n16k16_f16_f16_f32"],
  "flops": "2*M*N*K",
  "reduction": "K"
})json";
