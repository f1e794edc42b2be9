"""Independent references for tests/gpu/constructs/mma_operands.kina.

Written from what the kernels mean, in float64 NumPy (the one rounding the
kernels do on purpose, P to BF16, is modelled)."""
import numpy as np

REDUCTION = {"mma_nt_bf16": "K"}


def _bf16(x):
    """Rounds float64 to BF16 (round to nearest even), back as float64."""
    f = np.asarray(x, dtype=np.float32)
    u = f.view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16 << 16
    return u.astype(np.uint32).view(np.float32).astype(np.float64)


def mma_nt_bf16(dims, a, b):
    """c = a @ b.T."""
    return a.astype(np.float64) @ b.astype(np.float64).T


def mma_chain_bf16(dims, a, b, w):
    """out = bf16(0.5 * (a @ b.T)) @ w."""
    s = a.astype(np.float64) @ b.astype(np.float64).T
    return _bf16(0.5 * s) @ w.astype(np.float64)


def mma_f16_acc(dims, a, b):
    """c = a @ b."""
    return a.astype(np.float64) @ b.astype(np.float64)
