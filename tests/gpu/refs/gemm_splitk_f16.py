"""Independent reference for stdlib/gemm_splitk_f16.kina: c = a @ b with a
[M, K] and b [K, N] in F16, the product in float64. The kernel adds four
K-slice partial sums into c with atomics (c starts at zero), so its result is
the plain product up to F32 rounding in some order of the four adds."""
import numpy as np

REDUCTION = {"gemm_splitk_f16": "K"}


def gemm_splitk_f16(dims, a, b):
    return a.astype(np.float64) @ b.astype(np.float64)
