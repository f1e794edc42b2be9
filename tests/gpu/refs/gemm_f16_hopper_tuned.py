"""Independent reference for stdlib/gemm_f16_hopper_tuned.kina: both kernels
(one CTA per tile, and 2-CTA clusters sharing B) compute c = a @ transpose(b)
with a [M, K] and b stored K-major as [N, K], at every point of their tune
lattice (the parameters change only the tiling and the schedule); products
and sums in float64."""
import numpy as np

REDUCTION = {"gemm_f16_hopper_tuned": "K", "gemm_f16_hopper_tuned_cluster": "K"}


def gemm_f16_hopper_tuned(dims, a, b):
    return a.astype(np.float64) @ b.astype(np.float64).T


def gemm_f16_hopper_tuned_cluster(dims, a, b):
    return a.astype(np.float64) @ b.astype(np.float64).T
