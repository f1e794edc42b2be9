"""Independent reference for stdlib/gemm_f16_pipelined.kina: c = a @ b (M x K times K x N),
products and sums in float64."""
import numpy as np

REDUCTION = {"gemm_f16_pipelined": "K"}


def gemm_f16_pipelined(dims, a, b):
    return a.astype(np.float64) @ b.astype(np.float64)
