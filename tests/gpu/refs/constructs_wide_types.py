"""Independent references for tests/gpu/constructs/wide_types.kina.

Written from what the kernels mean, in float64 (int64 for I64) NumPy.
"""
import numpy as np

REDUCTION = {"sum_bf16": 64, "sum_f64": 64}


def sum_f64(dims, x):
    """out[r, 0] = sum(x[r, :])."""
    return x.astype(np.float64).sum(axis=1, keepdims=True)


def sum_i64(dims, x):
    """out[r, 0] = sum(x[r, :]), exactly."""
    return x.astype(np.int64).sum(axis=1, keepdims=True)


def sum_bf16(dims, x):
    """out[r, 0] = sum(x[r, :]) (rounded to bf16 once by the kernel)."""
    return x.astype(np.float64).sum(axis=1, keepdims=True)


def transpose_f64(dims, x):
    """out = x transposed."""
    return x.astype(np.float64).T.copy()


def exp_f64(dims, x):
    """out = exp(5 x), in f64."""
    return np.exp(x.astype(np.float64) * 5.0)


def exp_f64_wide(dims, x):
    """out = exp(700 x), in f64."""
    return np.exp(x.astype(np.float64) * 700.0)
