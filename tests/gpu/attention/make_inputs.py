#!/usr/bin/env python3
"""Writes q.npy, k.npy, v.npy ([BH, S, D], BF16 as raw <u2 patterns, the
form `kina run --inputs` reads) for tests/gpu/attention/run.sh: normal
values with q scaled by 2, so the softmax rows are peaked (uniform inputs
in [-1, 1) give nearly flat rows whose output is close to the mean of v,
which would hide a wrong score).

    make_inputs.py DIR BH S D [SEED]
"""
import os
import sys

import numpy as np


def to_bf16_bits(x):
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def main():
    out, bh, s, d = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    rng = np.random.default_rng(int(sys.argv[5]) if len(sys.argv) > 5 else 0)
    os.makedirs(out, exist_ok=True)
    for name, scale in (("q", 2.0), ("k", 1.0), ("v", 1.0)):
        np.save(os.path.join(out, name + ".npy"), to_bf16_bits(scale * rng.standard_normal((bh, s, d))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
