"""Independent reference for stdlib/gemm_f16_tuned.kina: the mma.sync kernel
and the wgmma kernel both compute c = a @ transpose(b) with a [M, K] and b
stored K-major as [N, K] (F16 out, F32 accumulation) at every point of their
tune lattices; products and sums in float64."""
import numpy as np

REDUCTION = {"gemm_f16_tuned_mma": "K", "gemm_f16_tuned_wgmma": "K"}


def gemm_f16_tuned_mma(dims, a, b):
    return a.astype(np.float64) @ b.astype(np.float64).T


def gemm_f16_tuned_wgmma(dims, a, b):
    return a.astype(np.float64) @ b.astype(np.float64).T
