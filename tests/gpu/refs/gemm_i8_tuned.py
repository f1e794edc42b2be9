"""Independent reference for stdlib/gemm_i8_tuned.kina: every kernel (mma.sync
with 3 and 4 stages, and the dp4a fallback) computes c = a @ transpose(b) with
a [M, K] and b stored K-major as [N, K], I8 in, I32 out, at every point of its
tune lattice; NumPy integer matmul in int64 wrapped to int32."""
import numpy as np


def _gemm(a, b):
    return (a.astype(np.int64) @ b.astype(np.int64).T).astype(np.int32)


def gemm_i8_tuned(dims, a, b):
    return _gemm(a, b)


def gemm_i8_tuned_s4(dims, a, b):
    return _gemm(a, b)


def gemm_i8_dp4a_tuned(dims, a, b):
    return _gemm(a, b)
