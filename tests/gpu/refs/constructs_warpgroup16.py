"""Independent references for tests/gpu/constructs/warpgroup16.kina, in
float64 NumPy from what the kernels mean."""
import numpy as np

REDUCTION = {"epi_residual_alpha": "K"}


def wg16_store_a(dims, a, b):
    """c[r, n] = a[r, K - 64 + (n mod 64)]: every 64-column block of c is the
    A tile of the last K step (rows r of the block's M tile)."""
    k = dims["K"]
    n = dims["N"]
    last = a[:, k - 64:k].astype(np.float64)
    return np.tile(last, (1, n // 64))


def epi_residual_alpha(dims, a, b, res, alpha):
    x = a.astype(np.float64) @ b.astype(np.float64).T
    return float(np.asarray(alpha, dtype=np.float64)) * x + res.astype(np.float64)
