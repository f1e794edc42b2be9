"""References for atomic-fold.kina (compare_ref.py reads the module named
after the kernel's source file)."""
import numpy as np

REDUCTION = {"fold_rows": "M"}

def fold_rows(dims, x):
    m, n = x.shape
    return x.astype(np.float64).reshape(m // 16, 16, n).sum(axis=0)

def colmax_ragged(dims, x):
    m, n = x.shape
    blocks = -(-m // 16)
    pad = np.zeros((blocks * 16, n), dtype=np.int64)
    pad[:m] = x
    return np.maximum(pad.reshape(blocks, 16, n).max(axis=0), 0)
