"""Independent reference for stdlib/gemm_bf16_hopper_4stage_raster_bias_gelu_tanh.kina (the grouped-raster 4-stage
GEMM (no cluster) with a fused epilogue): c = gelu_tanh(a @ transpose(b) + bias)
with a [M, K], b stored K-major as [N, K] and bias [N] added to every row;
float64."""
import math

import numpy as np

REDUCTION = {"gemm_bf16_hopper_4stage_raster_bias_gelu_tanh": "K"}


def gemm_bf16_hopper_4stage_raster_bias_gelu_tanh(dims, a, b, bias):
    x = a.astype(np.float64) @ b.astype(np.float64).T + bias.astype(np.float64)[None, :]
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))
