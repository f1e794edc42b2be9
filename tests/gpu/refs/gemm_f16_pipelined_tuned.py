"""Independent reference for stdlib/gemm_f16_pipelined_tuned.kina: both kernels
(4 and 3 cp.async stages) compute c = a @ b (M x K times K x N) at every point
of their tune lattice; products and sums in float64."""
import numpy as np

REDUCTION = {"gemm_f16_pipelined_tuned": "K", "gemm_f16_pipelined_tuned_s3": "K"}


def gemm_f16_pipelined_tuned(dims, a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


def gemm_f16_pipelined_tuned_s3(dims, a, b):
    return a.astype(np.float64) @ b.astype(np.float64)
