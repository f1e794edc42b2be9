"""Independent references for tests/gpu/constructs/epilogues.kina: the Hopper
GEMM a @ transpose(b) (b stored [N, K]) followed by an epilogue, in float64."""
import numpy as np

REDUCTION = {"epi_column_bias": "K", "epi_row_2d": "K", "epi_silu_clamp": "K", "epi_f32_out": "K"}


def _mm(a, b):
    return a.astype(np.float64) @ b.astype(np.float64).T


def epi_column_bias(dims, a, b, bias, cb):
    return _mm(a, b) + cb.astype(np.float64)  # cb [M, 1] broadcast over columns


def epi_row_2d(dims, a, b, bias, rb):
    return (_mm(a, b) + rb.astype(np.float64)) * 0.5  # rb [1, N] over rows


def epi_silu_clamp(dims, a, b, bias):
    x = _mm(a, b) + bias.astype(np.float64)[None, :]
    return np.clip(x / (1.0 + np.exp(-x)), -4.0, 4.0)


def epi_f32_out(dims, a, b, bias):
    x = _mm(a, b) - bias.astype(np.float64)[None, :]
    return 1.0 / (1.0 + np.exp(-x))
