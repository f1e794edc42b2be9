"""Independent reference for stdlib/gemm_bf16_hopper_4stage_raster_bias_relu.kina (the grouped-raster 4-stage
GEMM (no cluster) with a fused epilogue): c = relu(a @ transpose(b) + bias)
with a [M, K], b stored K-major as [N, K] and bias [N] added to every row;
float64."""
import numpy as np

REDUCTION = {"gemm_bf16_hopper_4stage_raster_bias_relu": "K"}


def gemm_bf16_hopper_4stage_raster_bias_relu(dims, a, b, bias):
    x = a.astype(np.float64) @ b.astype(np.float64).T + bias.astype(np.float64)[None, :]
    return np.maximum(x, 0.0)
