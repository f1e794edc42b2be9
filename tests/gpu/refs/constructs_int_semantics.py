"""Independent references for tests/gpu/constructs/int_semantics.kina.

Integer arithmetic wraps modulo 2^width (NumPy's fixed-width integer
arithmetic does); `convert` to an integer type truncates toward zero and
saturates (np.trunc, np.clip).
"""
import numpy as np


def int_wrap_i8(dims, x):
    """x * 37 + 100 in wrapping int8."""
    return (x.astype(np.int8) * np.int8(37) + np.int8(100)).astype(np.int8)


def int_wrap_u8(dims, x):
    """(100 - x) + x * 3 in wrapping uint8."""
    x = x.astype(np.uint8)
    return ((np.uint8(100) - x) + x * np.uint8(3)).astype(np.uint8)


def int_wrap_i32(dims, x):
    """big = x * 2^22; big * (big + 12345) + (big * 2) / -1, wrapping int32
    (the division by -1 is the negation, which wraps for the minimum)."""
    with np.errstate(over="ignore"):
        x = x.astype(np.int64)
        w = lambda v: ((v + 2**31) % 2**32) - 2**31
        big = w(x * 4194304)
        prod = w(big * w(big + 12345))
        neg = w(-w(big * 2))
        return w(prod + neg).astype(np.int32)


def int_sat_i32_to_i8(dims, x):
    """convert I8 (x * 3): saturating."""
    return np.clip(x.astype(np.int64) * 3, -128, 127).astype(np.int8)


def int_sat_f32_to_u8(dims, x):
    """convert U8 (x * 300 - 37.5) in f32: truncate toward zero, saturate."""
    x = x.astype(np.float32)
    v = x * np.float32(300.0) - np.float32(37.5)
    return np.clip(np.trunc(v.astype(np.float64)), 0, 255).astype(np.uint8)


def int_sat_u8_to_i8(dims, x):
    """s = convert I8 x (saturating at 127), s - 100 (wrapping int8),
    convert U8 s (negative -> 0)."""
    s = np.clip(x.astype(np.int64), -128, 127)
    s = ((s - 100 + 128) % 256) - 128
    return np.clip(s, 0, 255).astype(np.uint8)
