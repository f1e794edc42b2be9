"""Independent references for tests/gpu/constructs/negative_index.kina.

Written from what the kernels mean, in float64 NumPy.
"""
import numpy as np


def neg_mod(dims, x):
    """Stage (k - 1) mod 3 holds x + k: stage 2 = x, stage 0 = x + 1,
    stage 1 = x + 2; out = stage 2 + 10 stage 0 + 100 stage 1."""
    x = x.astype(np.float64)
    return x + 10.0 * (x + 1.0) + 100.0 * (x + 2.0)


def neg_div(dims, x):
    """Block b's 32-row slab of out: rows 0..15 are x_b - 1, rows 16..31 x_b."""
    x = x.astype(np.float64)
    m = dims["M"]
    out = np.empty((2 * m, 64), dtype=np.float64)
    for b in range(m // 16):
        xb = x[b * 16:(b + 1) * 16]
        out[b * 32:b * 32 + 16] = xb - 1.0
        out[b * 32 + 16:b * 32 + 32] = xb
    return out
