"""Independent references for tests/gpu/constructs/layouts.kina.

Written from what the kernels mean, in float64 NumPy.
"""
import numpy as np

REDUCTION = {"decayed_gemm": "K"}


def grid3d_relu(dims, x):
    """out[b] = max(x[b], 0) + b."""
    x = x.astype(np.float64)
    return np.maximum(x, 0.0) + np.arange(x.shape[0], dtype=np.float64)[:, None, None]


def vector_rows(dims, x, y):
    """out[r, :] = 2 x[r, :] + y."""
    return 2.0 * x.astype(np.float64) + y.astype(np.float64)[None, :]


def shared_whole(dims, x):
    """out = max(x, 0)."""
    return np.maximum(x.astype(np.float64), 0.0)


def decayed_gemm(dims, a, b):
    """acc <- 0.5 acc + a[:, 16k:16k+16] @ b[16k:16k+16, :] for each k block."""
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    acc = np.zeros((a.shape[0], b.shape[1]))
    for k in range(0, a.shape[1], 16):
        acc = 0.5 * acc + a[:, k:k + 16] @ b[k:k + 16, :]
    return acc


def middle_point(dims, x):
    """out = x[:, 2, :] - x[:, 1, :]."""
    x = x.astype(np.float64)
    return x[:, 2, :] - x[:, 1, :]
