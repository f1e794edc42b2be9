"""Independent reference for stdlib/gemm_f16_hopper_4stage_raster.kina (the grouped-raster 4-stage
GEMM (no cluster); the stages, the split accumulator, the half-width C stage and the grouped walk
change only how the tiles are loaded and stored): c = a @ transpose(b)
with a [M, K] and b stored K-major as [N, K]; float64."""
import numpy as np

REDUCTION = {"gemm_f16_hopper_4stage_raster": "K"}


def gemm_f16_hopper_4stage_raster(dims, a, b):
    return a.astype(np.float64) @ b.astype(np.float64).T
