"""Independent references for tests/gpu/constructs/int8_mma.kina.

Written from what the kernels mean: NumPy integer matmul in int64, wrapped to
int32 as the kernels' .s32 adds wrap (only wrap_i8 reaches 2^31)."""
import numpy as np


def _gemm(a, b, c0):
    s = c0.astype(np.int64) + a.astype(np.int64) @ b.astype(np.int64).T
    return s.astype(np.int32)


def mma_i8(dims, a, b, c0):
    """c = c0 + a @ b.T."""
    return _gemm(a, b, c0)


def dp4a_i8(dims, a, b, c0):
    """c = c0 + a @ b.T."""
    return _gemm(a, b, c0)


def wrap_i8(dims, a, b):
    """c = (2^31 - 1) + a @ b.T modulo 2^32, as an int32."""
    s = np.int64(2**31 - 1) + a.astype(np.int64) @ b.astype(np.int64).T
    assert (s > 2**31 - 1).any(), "the inputs make no sum wrap: the test would prove nothing"
    return ((s + 2**31) % 2**32 - 2**31).astype(np.int32)
