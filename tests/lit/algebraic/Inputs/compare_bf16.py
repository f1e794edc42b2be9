"""compare_bf16.py A.npy B.npy: two BF16 results (stored as uint16 bits)
agree within 2 BF16 ulps relative (each rounds its F32 value once)."""
import sys

import numpy as np


def f32(path):
    bits = np.load(path).astype(np.uint32) << 16
    return bits.view(np.float32).astype(np.float64)


a, b = f32(sys.argv[1]), f32(sys.argv[2])
err = np.abs(a - b) / np.maximum(np.abs(b), 1e-3)
print("PASS" if a.shape == b.shape and err.max() <= 2.0 ** -7 else "FAIL max rel %g" % err.max())
