"""Independent reference for stdlib/gemm_bias_gelu_bf16.kina:
c = gelu(a @ b + bias) in float64, with the erf GELU and its tanh form."""
import math

import numpy as np

REDUCTION = {"gemm_bias_gelu_bf16": "K", "gemm_bias_gelu_tanh_bf16": "K"}

_erf = np.vectorize(math.erf)


def gemm_bias_gelu_bf16(dims, a, b, bias):
    z = a.astype(np.float64) @ b.astype(np.float64) + bias.astype(np.float64)[None, :]
    return 0.5 * z * (1.0 + _erf(z / math.sqrt(2.0)))


def gemm_bias_gelu_tanh_bf16(dims, a, b, bias):
    z = a.astype(np.float64) @ b.astype(np.float64) + bias.astype(np.float64)[None, :]
    return 0.5 * z * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (z + 0.044715 * z ** 3)))
