#!/usr/bin/env python3
"""Triton's autotuner over its matmul tutorial's config space, timed.

The kernel and the 16 configs of triton's python/tutorials/03-matrix-
multiplication.py (get_cuda_autotune_config: 8 for fp16, 8 for fp8 inputs),
autotuned with key=["M", "N", "K"] on bf16 c = a @ b^T (b stored [N, K], as
Kina's tuned GEMM reads it). Prints, per shape, the cold tuning time (first
call: compile + benchmark of every config), the winner's config, its median
(triton.testing.do_bench, L2 flushed) and TFLOP/s, and cuBLAS's beside it;
--json writes the same as one object per shape. Needs a GPU, torch and triton
(the device has Triton 3.6); without them it says so and exits 77.

Usage: triton_autotune.py [--shapes 4096x4096x4096,...] [--json OUT]
"""
import argparse
import json
import os
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="4096x4096x4096,4096x11008x4096,8192x4096x14336",
                    help="MxNxK,...")
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    try:
        import torch
        import triton
        import triton.language as tl
    except ImportError as e:
        print(f"SKIP: torch/triton not importable ({e})")
        return 77
    if not torch.cuda.is_available():
        print("SKIP: no CUDA device")
        return 77

    def configs():
        C = triton.Config
        def c(m, n, k, s, w):
            return C({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k, "GROUP_SIZE_M": 8},
                     num_stages=s, num_warps=w)
        return [
            c(128, 256, 64, 3, 8), c(64, 256, 32, 4, 4), c(128, 128, 32, 4, 4), c(128, 64, 32, 4, 4),
            c(64, 128, 32, 4, 4), c(128, 32, 32, 4, 4), c(64, 32, 32, 5, 2), c(32, 64, 32, 5, 2),
            # the tutorial's "good config for fp8 inputs"
            c(128, 256, 128, 3, 8), c(256, 128, 128, 3, 8), c(256, 64, 128, 4, 4),
            c(64, 256, 128, 4, 4), c(128, 128, 128, 4, 4), c(128, 64, 64, 4, 4),
            c(64, 128, 64, 4, 4), c(128, 32, 64, 4, 4),
        ]

    @triton.autotune(configs=configs(), key=["M", "N", "K"])
    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                      stride_cm, stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                      BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
        pid = tl.program_id(axis=0)
        num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
        num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
        num_pid_in_group = GROUP_SIZE_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_SIZE_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
        pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m
        offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
        offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
        offs_k = tl.arange(0, BLOCK_SIZE_K)
        a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
        b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
            accumulator = tl.dot(a, b, accumulator)
            a_ptrs += BLOCK_SIZE_K * stride_ak
            b_ptrs += BLOCK_SIZE_K * stride_bk
        c = accumulator.to(tl.bfloat16)
        offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, c, mask=c_mask)

    def matmul(a, bt):
        M, K = a.shape
        N = bt.shape[0]
        c = torch.empty((M, N), device=a.device, dtype=torch.bfloat16)
        grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),)
        # b = bt^T: element (k, n) at bt[n, k].
        matmul_kernel[grid](a, bt, c, M, N, K, a.stride(0), a.stride(1), bt.stride(1), bt.stride(0),
                            c.stride(0), c.stride(1))
        return c

    out = []
    for spec in args.shapes.split(","):
        M, N, K = (int(x) for x in spec.lower().split("x"))
        torch.manual_seed(0)
        a = torch.randn((M, K), device="cuda", dtype=torch.bfloat16)
        bt = torch.randn((N, K), device="cuda", dtype=torch.bfloat16)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        c = matmul(a, bt)  # the first call autotunes: compile + bench all 16
        torch.cuda.synchronize()
        tune_s = time.perf_counter() - t0
        ref = a @ bt.T
        err = (c.float() - ref.float()).abs().max().item()
        ms = triton.testing.do_bench(lambda: matmul(a, bt), return_mode="median")
        ms_cublas = triton.testing.do_bench(lambda: a @ bt.T, return_mode="median")
        flops = 2.0 * M * N * K
        best = matmul_kernel.best_config
        row = {
            "shape": f"{M}x{N}x{K}", "configs": len(matmul_kernel.configs),
            "tuneSeconds": tune_s, "best": str(best), "medianMs": ms,
            "tflops": flops / ms * 1e-9, "cublasMs": ms_cublas,
            "cublasTflops": flops / ms_cublas * 1e-9, "maxAbsErrVsTorch": err,
            "triton": triton.__version__, "torch": torch.__version__,
            "device": torch.cuda.get_device_name(),
        }
        out.append(row)
        print(f"triton {row['shape']}: autotune {len(matmul_kernel.configs)} configs cold in "
              f"{tune_s:.1f} s, best {best}: {ms:.4f} ms = {row['tflops']:.0f} TFLOP/s "
              f"(cuBLAS {ms_cublas:.4f} ms = {row['cublasTflops']:.0f} TFLOP/s, max err {err:.3g})",
              flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
