"""Independent reference for stdlib/gemm_tc.kina: c = a @ b (M x K times K x N),
products and sums in float64."""
import numpy as np

REDUCTION = {"gemm_tc": "K"}


def gemm_tc(dims, a, b):
    return a.astype(np.float64) @ b.astype(np.float64)
