"""Independent references for tests/gpu/constructs/tile_functions.kina.

Written from what the kernels mean, in float64 NumPy.
"""
import numpy as np

# Reduction lengths for the comparator's tolerance (compare_ref.py).
REDUCTION = {"tf_gemm": "K"}


def tf_scale_rows(dims, x):
    """out[r, :] = x[r, :] * sum(x[r, :]) * 0.5."""
    x = x.astype(np.float64)
    return x * x.sum(axis=1, keepdims=True) * 0.5


def tf_window(dims, x):
    """out = max(x, 0)."""
    return np.maximum(x.astype(np.float64), 0.0)


def tf_gemm(dims, a, b):
    """c = a @ b (F16 inputs, F32 accumulation)."""
    return a.astype(np.float64) @ b.astype(np.float64)
