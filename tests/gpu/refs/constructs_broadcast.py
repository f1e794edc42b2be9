"""Independent references for tests/gpu/constructs/broadcast.kina, in
float64: row and column broadcasts, column reductions and block-level
reductions of per-warp tiles."""
import numpy as np

REDUCTION = {"bc_rows": 16, "bc_colred": 32, "bc_block": "N", "bc_colsum": "M"}


def bc_rows(dims, x, bias, res, cb):
    x = x.astype(np.float64)
    m, n = x.shape
    out = np.empty_like(x)
    for r0 in range(0, m, 16):
        for c0 in range(0, n, 64):
            xs = x[r0:r0 + 16, c0:c0 + 64]
            row = xs.sum(axis=0, keepdims=True) * 0.0625
            t = xs * bias[c0:c0 + 64].astype(np.float64)[None, :] + res[r0:r0 + 16, c0:c0 + 64] \
                - cb[r0:r0 + 16, :].astype(np.float64)
            out[r0:r0 + 16, c0:c0 + 64] = np.where(xs > row, t, xs - row)
    return out


def bc_colred(dims, x):
    x = x.astype(np.float64)
    m, n = x.shape
    out = np.empty_like(x)
    for r0 in range(0, m, 32):
        xs = x[r0:r0 + 32]
        out[r0:r0 + 32] = xs * xs.max(axis=0, keepdims=True) + xs.sum(axis=0, keepdims=True)
    return out


def bc_block(dims, x):
    x = x.astype(np.float64)
    m, n = x.shape
    out = np.empty_like(x)
    for r0 in range(0, m, 16):
        xs = x[r0:r0 + 16]
        s = xs.sum(axis=1, keepdims=True)
        mx = xs.max(axis=1, keepdims=True)
        # Column sums of the 16 rows, each warp's 32 columns summed over the
        # warp's column chunks (j) and then over the 4 warps: column c of the
        # result is the sum over every column congruent to c modulo 32.
        cs = xs.sum(axis=0).reshape(-1, 32).sum(axis=0)
        out[r0:r0 + 16] = (xs - mx) * s + np.tile(cs, n // 32)[None, :]
    return out


def bc_colsum(dims, x, w):
    return x.astype(np.float64).sum(axis=0) * w.astype(np.float64)
