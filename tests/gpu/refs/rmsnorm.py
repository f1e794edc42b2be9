"""Independent reference for stdlib/rmsnorm.kina: RMSNorm over each row
(eps = 1e-6), in float64 from the BF16 inputs."""
import numpy as np


def rmsnorm_bf16(dims, x, gamma):
    x = x.astype(np.float64)
    return x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6) * gamma.astype(np.float64)


def rmsnorm_cp_bf16(dims, x, gamma):
    return rmsnorm_bf16(dims, x, gamma)


def rmsnorm_res_bf16(dims, x, gamma):
    return rmsnorm_bf16(dims, x, gamma)
