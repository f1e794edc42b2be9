"""Independent references for tests/gpu/constructs/warpgroup_rows.kina, in
float64 NumPy from what the kernels mean."""
import numpy as np

REDUCTION = {"wgrow_bias_scale": "K", "wgrow_exprs": "K", "wgrow_load_in_loop": "K"}


def _mm(a, b):
    return a.astype(np.float64) @ b.astype(np.float64).T


def wgrow_bias_scale(dims, a, b, bias, scale):
    return (_mm(a, b) + bias.astype(np.float64)[None, :]) * scale.astype(np.float64)


def wgrow_exprs(dims, a, b, bias, scale, hrow):
    r = bias.astype(np.float64)
    # exp and the doubling are computed in BF16 (the row's type), then added
    # to the BF16 row and rounded again before the broadcast converts to F32.
    e = _bf16(_bf16(np.exp(r)) * 2.0)
    row = _bf16(e + r)
    x = np.maximum(_mm(a, b), row[None, :]) - hrow.astype(np.float64)[None, :]
    return x * scale.astype(np.float64)


def wgrow_load_in_loop(dims, a, b, bias, scale):
    return _mm(a, b) * scale.astype(np.float64) + bias.astype(np.float64)[None, :]


def _bf16(x):
    """Rounds float64 values to BF16 (round to nearest even), as float64."""
    f = np.asarray(x, dtype=np.float32)
    u = f.view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    return u.astype(np.uint32).view(np.float32).astype(np.float64)
