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

/// The same kernel in the form compiler/codegen/LaunchMetadata.cpp writes:
/// formulas as {"text", "expr": tree}, "entry", "abi", "writable"/"result",
/// "*_shared_bytes", and `requires` as boolean condition trees.
inline const char *kGemmTcCodegenJson = R"json({
  "schema": "kina.launch/1",
  "kernel": "gemm_tc",
  "entry": "gemm_tc",
  "target": "sm_90a",
  "ptx_version": "8.6",
  "dims": ["M", "N", "K"],
  "params": [
    {"name": "a", "kind": "tensor", "abi": "ptr", "dtype": "F16", "shape": ["M", "K"],
     "writable": false, "result": false},
    {"name": "b", "kind": "tensor", "abi": "ptr", "dtype": "F16", "shape": ["K", "N"],
     "writable": false, "result": false},
    {"name": "result", "kind": "tensor", "abi": "ptr", "dtype": "F32", "shape": ["M", "N"],
     "writable": true, "result": true},
    {"name": "M", "kind": "dim", "abi": "i32"},
    {"name": "N", "kind": "dim", "abi": "i32"},
    {"name": "K", "kind": "dim", "abi": "i32"}
  ],
  "grid": [
    {"text": "M/128", "expr": {"op": "div", "lhs": {"dim": "M"}, "rhs": {"const": 128}}},
    {"text": "N/128", "expr": {"op": "div", "lhs": {"dim": "N"}, "rhs": {"const": 128}}},
    {"text": "1", "expr": {"const": 1}}
  ],
  "block": [128, 1, 1],
  "static_shared_bytes": 8192,
  "dynamic_shared_bytes": 0,
  "requires": [
    {"text": "M mod 128 = 0", "expr": {"op": "eq", "lhs": {"op": "mod", "lhs": {"dim": "M"},
      "rhs": {"const": 128}}, "rhs": {"const": 0}}},
    {"text": "N mod 128 = 0", "expr": {"op": "eq", "lhs": {"op": "mod", "lhs": {"dim": "N"},
      "rhs": {"const": 128}}, "rhs": {"const": 0}}},
    {"text": "K mod 16 = 0", "expr": {"op": "eq", "lhs": {"op": "mod", "lhs": {"dim": "K"},
      "rhs": {"const": 16}}, "rhs": {"const": 0}}}
  ],
  "capabilities": ["mma_m16n16k16_f16_f16_f32"]
})json";
