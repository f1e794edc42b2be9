"""Independent references for tests/gpu/constructs/scalars.kina.

Written from what the kernels mean, in float64 NumPy. Scalar parameters
arrive as keyword arguments (a float or a 0-d array).
"""
import numpy as np


def index_ramp(dims, x):
    """out[r, :] = (x[r, :] + sum(range(M/64))) * r0(r) / M, r0(r) = 16 * (r // 16)."""
    m = dims["M"]
    x = x.astype(np.float64)
    trips = m // 64
    ramp = float(sum(range(trips)))
    r0 = (np.arange(m) // 16 * 16).astype(np.float64)[:, None]
    return (x + ramp) * r0 / float(m)


def scalar_affine(dims, x, alpha, beta):
    """out = x * alpha + beta - alpha / 2."""
    a = float(np.asarray(alpha, dtype=np.float64))
    b = float(np.asarray(beta, dtype=np.float64))
    return x.astype(np.float64) * a + b - a / 2.0
