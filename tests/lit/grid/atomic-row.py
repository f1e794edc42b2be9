"""References for atomic-row.kina (compare_ref.py reads the module named
after the kernel's source file): the column sums of x, each element added
once (the result starts at zero)."""
import numpy as np

REDUCTION = {"colsum_add_ragged": "M"}

def colsum_add(dims, x):
    s = x.astype(np.int64).sum(axis=0, keepdims=True)
    return ((s + 2**31) % 2**32) - 2**31  # I32 addition wraps

def colsum_add_ragged(dims, x):
    return x.astype(np.float64).sum(axis=0, keepdims=True)
