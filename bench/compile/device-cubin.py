#!/usr/bin/env python3
"""Source-to-cubin wall time of `kina build --emit=cubin` (ptxas included),
pinned to 2 CPU cores with taskset, median of N runs per kernel.

Issue 13 asks for the fastest GEMM from source to cubin in <= 150 ms on
2 cores. Each run is a whole `kina build` process (parse, check, tile IR,
MLIR, LLVM, PTX, ptxas, cubin written), as a user runs it; the first run of
each kernel is a warm-up (page cache), not counted.

Usage: bench/compile/device-cubin.py --kina PATH [--cores 0,1] [--runs 20] FILE:KERNEL ...
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kina", required=True)
    ap.add_argument("--cores", default="0,1")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("kernels", nargs="+", help="FILE:KERNEL")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for spec in args.kernels:
            path, kernel = spec.rsplit(":", 1)
            cmd = ["taskset", "-c", args.cores, args.kina, "build", path, "--kernel", kernel,
                   "--emit=cubin", "-o", os.path.join(d, kernel + ".cubin")]
            times = []
            for i in range(args.runs + 1):
                t0 = time.perf_counter()
                proc = subprocess.run(cmd, capture_output=True, text=True)
                dt = (time.perf_counter() - t0) * 1000.0
                if proc.returncode != 0:
                    sys.exit(f"{' '.join(cmd)} failed: {proc.stderr[:400]}")
                if i:
                    times.append(dt)
            row = {"kernel": kernel, "file": path, "runs": args.runs, "cores": args.cores,
                   "min_ms": min(times), "median_ms": statistics.median(times),
                   "max_ms": max(times)}
            rows.append(row)
            print(json.dumps(row), flush=True)
    env = {"host": platform.node(), "nproc": os.cpu_count(), "kina": subprocess.run(
        [args.kina, "--version"], capture_output=True, text=True).stdout.strip()}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "compile-cubin.json"), "w") as f:
        json.dump({"env": env, "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main()
