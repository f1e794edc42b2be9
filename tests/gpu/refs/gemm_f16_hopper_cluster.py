"""Independent reference for stdlib/gemm_f16_hopper_cluster.kina: c = a @
transpose(b) with a [M, K] and b stored K-major as [N, K] (the 2x1 clusters,
the multicast of B's halves and the cluster releases change only how the
tiles are scheduled and loaded); products and sums in float64 (the result is
rounded to the output's f16 by the comparison's tolerance)."""
import numpy as np

REDUCTION = {"gemm_f16_hopper_cluster": "K"}


def gemm_f16_hopper_cluster(dims, a, b):
    return a.astype(np.float64) @ b.astype(np.float64).T
