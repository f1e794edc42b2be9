"""Independent reference for stdlib/gemm_f16_hopper_64x128.kina: c = a @
transpose(b) with a [M, K] and b stored K-major as [N, K] (the persistent tile
walk and the TMA-store epilogue change only how the tiles are scheduled and
written); products and sums in float64 (the result is rounded to the output's
bf16 by the comparison's tolerance)."""
import numpy as np

REDUCTION = {"gemm_f16_hopper_64x128": "K"}


def gemm_f16_hopper_64x128(dims, a, b):
    return a.astype(np.float64) @ b.astype(np.float64).T
