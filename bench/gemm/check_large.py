#!/usr/bin/env python3
"""Checks Hopper GEMMs (c = a * transpose(b), b stored [N, K], bf16 or f16)
at benchmark sizes against torch.matmul on the GPU (device machine): the GPU
suite's sizes stay small enough for the tile-IR interpreter; these do not.

Usage: check_large.py --kina PATH [--sizes 4096,2048x1024x512] KERNEL ...
Prints one line per kernel and size: max |kina - torch| / max |torch|, and
PASS below --tol (default 2e-2, bf16 rounding of an f32-accumulated sum).
"""
import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from anchors import ROOT, find_kina_kernel  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kina", required=True)
    ap.add_argument("--sizes", default="4096")
    ap.add_argument("--tol", type=float, default=2e-2)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("kernels", nargs="+")
    args = ap.parse_args()
    import numpy as np
    import torch

    fails = 0
    for name in args.kernels:
        src = find_kina_kernel(ROOT / "stdlib", name) or find_kina_kernel(
            ROOT / "bench" / "gemm" / "variants", name)
        dt = torch.float16 if "_f16_" in name else torch.bfloat16
        for size in args.sizes.split(","):
            m, n, k = (int(x) for x in (size.split("x") if "x" in size else [size] * 3))
            torch.manual_seed(0)
            a = torch.randn(m, k, device="cuda", dtype=dt)
            b = torch.randn(n, k, device="cuda", dtype=dt)
            want = torch.matmul(a, b.t()).float()
            with tempfile.TemporaryDirectory(prefix="kina-large-") as d:
                paths = []
                for nm, t in (("a", a), ("b", b)):
                    p = os.path.join(d, nm + ".npy")
                    np.save(p, t.contiguous().view(torch.int16).cpu().numpy().view(np.uint16))
                    paths.append(p)
                cmd = [args.kina, "run", str(src), "--kernel", name, "--dims",
                       f"M={m},N={n},K={k}", "--save", d, "--inputs", *paths]
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
                if proc.returncode != 0:
                    print(f"FAIL {name} {m}x{n}x{k}: exit {proc.returncode}: {proc.stderr[:300]}")
                    fails += 1
                    continue
                raw = np.load(os.path.join(d, name, "c.npy")).astype(np.uint16)
                if dt == torch.bfloat16:
                    got = torch.from_numpy((raw.astype(np.uint32) << 16).view(np.float32))
                else:
                    got = torch.from_numpy(raw.view(np.float16).astype(np.float32))
                got = got.to("cuda")
                err = (got - want).abs().max().item() / max(want.abs().max().item(), 1e-30)
                bad = (got - want).abs() > args.tol * want.abs().max()
                ok = err <= args.tol
                fails += not ok
                frac = bad.float().mean().item()
                print(f"{'PASS' if ok else 'FAIL'} {name} {m}x{n}x{k}: max rel err {err:.3g}, "
                      f"{frac * 100:.2f}% of elements off", flush=True)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
