"""Independent references for tests/gpu/constructs/proofs.kina.

Written from what the kernels mean, in float64 NumPy.
"""
import numpy as np

REDUCTION = {"gemm_trailing_guard": "K", "gemm_fn": "K", "rowsum_block": 512}


def rowsum_block(dims, x):
    """out[r, 0] = sum(x[r, :]) (x is [M, 512]): each warp's partial sum is
    stored 8 times, warp 0 sums all 32 columns and scales by 1/8."""
    return x.astype(np.float64).sum(axis=1, keepdims=True)


def gemm_trailing_guard(dims, a, b):
    """c = a @ b."""
    return a.astype(np.float64) @ b.astype(np.float64)


def gemm_fn(dims, a, b):
    """c = a @ b, through the tile function mma_step."""
    return a.astype(np.float64) @ b.astype(np.float64)
