"""Independent reference for stdlib/softmax.kina: softmax along each row."""
import numpy as np


def softmax_f32(dims, x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
