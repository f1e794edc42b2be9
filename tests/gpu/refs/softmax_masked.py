"""Independent reference for stdlib/softmax_masked.kina: softmax along each
row for any M and N, and the causal form (row i over columns j <= i; the
other elements are 0)."""
import numpy as np


def softmax_masked_f32(dims, x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def softmax_causal_f32(dims, x):
    x = x.astype(np.float64)
    m, n = x.shape
    keep = np.arange(n)[None, :] <= np.arange(m)[:, None]
    y = np.where(keep, x, -np.inf)
    e = np.exp(y - y.max(axis=1, keepdims=True))
    return np.where(keep, e / e.sum(axis=1, keepdims=True), 0.0)
