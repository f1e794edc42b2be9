"""Independent references for tests/gpu/constructs/wide_stores.kina.

Written from what the kernels mean, in float64 NumPy: every output element
depends on its own input element only, so a store that swapped two lanes'
pairs or shifted a column by the exchange shows as a mismatch.
"""
import numpy as np


def wide_plain(dims, x):
    return x.astype(np.float64) * 2.0 + 1.0


def wide_masked(dims, x):
    return x.astype(np.float64) * 2.0 + 1.0


def wide_odd_fragments(dims, x):
    return x.astype(np.float64) * 2.0


def wide_stride70(dims, x):
    return x.astype(np.float64) * 2.0
