"""Independent references for tests/gpu/constructs/masked_pairs.kina.

Written from what the kernels mean, in float64 NumPy.
"""
import numpy as np


def mp_even(dims, x):
    """y = x."""
    return x.astype(np.float64)


def mp_any(dims, x):
    """y = 2 x + s, s the sum over the row's 64-column step (cols 64j..64j+63)
    of x, with 1.0 for each column past N."""
    m, n = dims["M"], dims["N"]
    steps = -(-n // 64)
    xp = np.ones((m, steps * 64), dtype=np.float64)
    xp[:, :n] = x.astype(np.float64)
    s = xp.reshape(m, steps, 64).sum(axis=2)
    return 2.0 * x.astype(np.float64) + np.repeat(s, 64, axis=1)[:, :n]
