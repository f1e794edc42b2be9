"""Independent reference for stdlib/gemm_bf16_hopper_persistent_raster.kina:
c = a @ transpose(b) with a [M, K] and b stored K-major as [N, K]. The grouped
tile walk changes only which block computes which tile, so the reference is
the plain product; a walk that skipped or repeated a tile would leave tiles
unwritten or wrong here. Products and sums in float64 (the result is rounded
to the output's bf16 by the comparison's tolerance)."""
import numpy as np

REDUCTION = {"gemm_bf16_hopper_persistent_raster": "K"}


def gemm_bf16_hopper_persistent_raster(dims, a, b):
    return a.astype(np.float64) @ b.astype(np.float64).T
