#!/usr/bin/env python3
"""Hopper GEMM tile shapes against cuBLAS, per problem size (device machine).

Times `torch.matmul` (cuBLAS; B given as the transposed view of an [N, K]
tensor, as the Hopper kernels take it) and each Kina kernel named on the
command line (`kina run --bench --json`, found by name under --stdlib and
bench/gemm/variants) at each size, in one process, and writes a markdown
table of TFLOP/s and Kina/cuBLAS ratios to $OUT/gemm-tiles.md (+ .json).
Which tile wins at which size is what a `kina tune` lattice must capture.

Usage: python3 bench/gemm/tiles.py --kina PATH [--sizes 1024,2048] K1 K2 ...
"""
import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from anchors import ROOT, find_kina_kernel, run_kina, tflops  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kina", required=True)
    ap.add_argument("--stdlib", default=str(ROOT / "stdlib"))
    ap.add_argument("--sizes", default="1024,2048,4096")
    ap.add_argument("--dtype", default="bf16", choices=["bf16", "f16"])
    ap.add_argument("--out", default=os.environ.get("OUT", str(ROOT / "bench" / "results")))
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("kernels", nargs="+")
    args = ap.parse_args()

    import torch
    from triton.testing import do_bench

    dt = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    sources = {}
    for name in args.kernels:
        path = find_kina_kernel(args.stdlib, name) or find_kina_kernel(
            ROOT / "bench" / "gemm" / "variants", name)
        if path is None:
            sys.exit(f"tiles.py: no kernel {name}")
        sources[name] = path
    rows = []
    for n in [int(s) for s in args.sizes.split(",")]:
        a = torch.randn(n, n, device="cuda", dtype=dt)
        b = torch.randn(n, n, device="cuda", dtype=dt).t()  # [N, K] storage, [K, N] view
        ms = do_bench(lambda: torch.matmul(a, b), warmup=25, rep=100, return_mode="median")
        row = {"size": n, "cublas": tflops(n, n, n, ms)}
        for name, path in sources.items():
            r = run_kina(args.kina, path, name, n, n, n, [], args.timeout)
            row[name] = r.get("tflops") if "error" not in r else None
            if "error" in r:
                print(f"{name} {n}^3: {r['error']}", file=sys.stderr)
        rows.append(row)
        print(json.dumps(row), flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "gemm-tiles.json").write_text(json.dumps(rows, indent=2) + "\n")
    head = "| size | cuBLAS | " + " | ".join(args.kernels) + " |"
    lines = [f"# Hopper GEMM tiles vs cuBLAS ({args.dtype}, TFLOP/s, ratio to cuBLAS)", "",
             head, "|" + "---|" * (2 + len(args.kernels))]
    for r in rows:
        cells = []
        for name in args.kernels:
            v = r[name]
            cells.append("error" if v is None else f"{v:.1f} ({v / r['cublas']:.2f})")
        lines.append(f"| {r['size']}^3 | {r['cublas']:.1f} | " + " | ".join(cells) + " |")
    (out / "gemm-tiles.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
