"""Independent references for stdlib/elementwise.kina (tests/gpu/README.md).

Written from what the kernels mean, in float64 NumPy; never from tile IR or
compiler output.
"""
import numpy as np


def add_f32(dims, x, y):
    """out = x + y, elementwise."""
    return x.astype(np.float64) + y.astype(np.float64)


def relu_f32(dims, x):
    """out = max(x, 0), elementwise."""
    return np.maximum(x.astype(np.float64), 0.0)
