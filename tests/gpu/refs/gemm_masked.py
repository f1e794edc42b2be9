"""Independent reference for stdlib/gemm_masked.kina: c = a @ b for any
M, N, K (F16 inputs, F32 accumulation)."""
import numpy as np

REDUCTION = {"gemm_masked_f16": "K", "gemm_masked_cp_f16": "K"}


def gemm_masked_f16(dims, a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


def gemm_masked_cp_f16(dims, a, b):
    return a.astype(np.float64) @ b.astype(np.float64)
