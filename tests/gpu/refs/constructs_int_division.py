"""Independent references for tests/gpu/constructs/int_division.kina.

Integer division truncates towards zero, and x / 0 is 0.
"""
import numpy as np


def _div(x, y):
    x = x.astype(np.int64)
    y = y.astype(np.int64)
    safe = np.where(y == 0, 1, y)
    q = np.abs(x) // np.abs(safe) * np.sign(x) * np.sign(safe)
    return np.where(y == 0, 0, q)


def div_i32(dims, x, y):
    """out = x / y + 1000 * (x / 0) = x / y."""
    return _div(x, y) + 1000 * _div(x, y - y)


def div_i64(dims, x, y):
    """out = x / y + 1000 * (x / 0) = x / y."""
    return _div(x, y) + 1000 * _div(x, y - y)
