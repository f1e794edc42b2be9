#!/usr/bin/env python3
"""Compares .npy results with a first one, within the dtype's tolerance
(no NumPy needed; tests/lit/multigpu, tests/gpu/multigpu/run.sh).

  compare_npy.py WANT.npy GOT.npy [GOT.npy ...]

BF16: |got - want| <= 2e-3 + 2e-2 |want| for all but one in a thousand
elements (the tensor-parallel MLP rounds its partial sums to BF16 before the
all-reduce, the single-device one rounds the whole sum once); F32: 1e-5
relative to the largest |want|, every element. Prints PASS or FAIL per file
with the largest difference; exits 1 on any FAIL.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "host"))
from ref_cpu import read_npy  # noqa: E402


def descr(path):
    with open(path, "rb") as f:
        data = f.read(128)
    return data.split(b"'descr': '")[1].split(b"'")[0].decode()


def main():
    want_path, gots = sys.argv[1], sys.argv[2:]
    wshape, want = read_npy(want_path)
    bf16 = descr(want_path) == "<u2"
    scale = max(1e-30, max(abs(w) for w in want))
    failed = False
    for path in gots:
        shape, got = read_npy(path)
        if shape != wshape:
            print("FAIL %s: shape %s, want %s" % (path, shape, wshape))
            failed = True
            continue
        if bf16:
            bad = [i for i, (g, w) in enumerate(zip(got, want)) if abs(g - w) > 2e-3 + 2e-2 * abs(w)]
            ok = len(bad) <= len(want) // 1000
        else:
            bad = [i for i, (g, w) in enumerate(zip(got, want)) if abs(g - w) > 1e-5 * scale]
            ok = not bad
        worst = max(abs(g - w) for g, w in zip(got, want))
        print("%s %s: %d elements, max abs difference %.3g, %d outside tolerance"
              % ("PASS" if ok else "FAIL", path, len(want), worst, len(bad)))
        failed |= not ok
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
