"""Deliberately wrong references: refs-catch-mistakes.test proves that the
reference check fails on them."""
import numpy as np


def add_f32(dims, x, y):
    return x.astype(np.float64) - y.astype(np.float64)  # wrong: add, not sub


def relu_f32(dims, x):
    return np.maximum(x.astype(np.float64), 0.0)[:, :-1]  # wrong shape
