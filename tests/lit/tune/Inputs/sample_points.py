#!/usr/bin/env python3
"""Builds and interprets a sample of a tune lattice's legal points.

    sample_points.py KINA FILE OUT --dims M=..,N=..,K=.. [--count N] [--target T]

The legal points come from `kina tune FILE --dry-run --json --shape DIMS`
(the checker is the legality oracle). The sample is each kernel's default
point and first legal point plus points evenly spaced over the legal list,
up to --count. Each is
compiled to a cubin (`kina build --emit cubin`, through ptxas) and run on the
tile-IR interpreter at DIMS (`kina run --interpret --save`), and its output is
compared with the kernel's independent NumPy reference (tests/gpu/refs,
through tests/gpu/compare_ref.py). Prints one line per point and a summary;
exit 1 when any point fails to build or computes a wrong result.
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kina")
    ap.add_argument("file")
    ap.add_argument("out")
    ap.add_argument("--dims", required=True)
    ap.add_argument("--count", type=int, default=8)
    ap.add_argument("--target", default="")
    a = ap.parse_args()
    tgt = ["--target", a.target] if a.target else []
    os.makedirs(a.out, exist_ok=True)
    dry = subprocess.run([a.kina, "tune", a.file, "--dry-run", "--json", "--shape", a.dims] + tgt,
                         capture_output=True, text=True)
    if dry.returncode != 0:
        print("FAIL dry run:", dry.stderr)
        return 1
    report = json.loads(dry.stdout)
    legal = [p for p in report["points"] if p["legal"]]
    # Each kernel's default point: the first kernel's is the hand-written one.
    defaults = []
    with open(a.file) as f:
        text = f.read()
    sample = []
    seen = set()
    kernels = sorted({p["kernel"] for p in legal})
    for k in kernels:
        mine = [p for p in legal if p["kernel"] == k]
        # the default point of the tuned stdlib kernels
        for p in mine:
            if p["point"] == "BM=128,BN=256,STAGES=3,CREGS=232":
                sample.append(p)
                seen.add((p["kernel"], p["point"]))
    # Each kernel's first legal point: a family of several primitives (the
    # mma.sync and the wgmma kernel, the int8 mma.sync and dp4a kernels)
    # gets every kernel built.
    for k in kernels:
        first = next(p for p in legal if p["kernel"] == k)
        if (k, first["point"]) not in seen and len(sample) < a.count:
            sample.append(first)
            seen.add((k, first["point"]))
    step = max(1, len(legal) // max(1, a.count - len(sample)))
    for i in range(0, len(legal), step):
        p = legal[i]
        if len(sample) >= a.count:
            break
        if (p["kernel"], p["point"]) not in seen:
            sample.append(p)
            seen.add((p["kernel"], p["point"]))
    built = right = 0
    for i, p in enumerate(sample):
        k, pt = p["kernel"], p["point"]
        cubin = os.path.join(a.out, f"p{i}.cubin")
        b = subprocess.run([a.kina, "build", a.file, "--kernel", k, "--param", pt, "--emit", "cubin",
                            "-o", cubin] + tgt, capture_output=True, text=True)
        if b.returncode != 0 or not os.path.getsize(cubin):
            print(f"FAIL build {k} [{pt}]: {b.stderr.strip()[:400]}")
            continue
        built += 1
        save = os.path.join(a.out, f"run{i}")
        r = subprocess.run([a.kina, "run", a.file, "--kernel", k, "--param", pt, "--interpret",
                            "--dims", a.dims, "--save", save] + tgt, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"FAIL run {k} [{pt}]: {r.stderr.strip()[:400]}")
            continue
        c = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "gpu", "compare_ref.py"),
                            os.path.join(save, k)], capture_output=True, text=True)
        if c.returncode != 0:
            print(f"FAIL ref {k} [{pt}]: {c.stdout.strip()[:400]} {c.stderr.strip()[:200]}")
            continue
        right += 1
        print(f"PASS {k} [{pt}]: built, interpreted, {c.stdout.strip().splitlines()[-1][:80]}")
    print(f"sampled {len(sample)} of {len(legal)} legal points of {report['latticeSize']}: "
          f"{built} built, {right} computed right")
    return 0 if built == right == len(sample) and sample else 1


if __name__ == "__main__":
    sys.exit(main())
