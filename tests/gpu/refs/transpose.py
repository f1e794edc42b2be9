"""Independent reference for stdlib/transpose.kina: out = x^T (N x M)."""
import numpy as np


def transpose_f32(dims, x):
    return x.astype(np.float64).T.copy()
