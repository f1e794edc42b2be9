#!/usr/bin/env python3
"""Compares a saved `kina run --save DIR` of an attention kernel
(stdlib/attention_fwd_bf16.kina) with PyTorch's scaled_dot_product_attention
math backend on the same inputs, computed in float32 from the BF16 inputs.

    sdpa_check.py RUN_DIR... [--tol 2e-2]

Each RUN_DIR is DIR/<kernel>/ (run.json, q.npy, k.npy, v.npy, out.npy; BF16
as raw <u2 patterns). One passes when max |out - ref| <= tol * max |ref|
and no element is NaN. Prints one PASS/FAIL line per directory (PyTorch is
imported once for all of them); exit 0 all pass, 1 a failure, 77 no PyTorch.
"""
import argparse
import json
import os
import sys

import numpy as np


def load_bf16(path):
    return (np.load(path).astype(np.uint32) << 16).view(np.float32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dirs", nargs="+")
    ap.add_argument("--tol", type=float, default=2e-2)
    args = ap.parse_args()
    try:
        import torch
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:
        print("SKIP: no PyTorch (the NumPy reference, compare_ref.py, still ran)")
        return 77
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    failed = 0
    for run_dir in args.run_dirs:
        failed += not check(torch, SDPBackend, sdpa_kernel, dev, run_dir, args.tol)
    return 1 if failed else 0


def check(torch, SDPBackend, sdpa_kernel, dev, run_dir, tol):
    with open(os.path.join(run_dir, "run.json")) as f:
        run = json.load(f)
    kernel = run["kernel"]
    t = {n: load_bf16(os.path.join(run_dir, n + ".npy")) for n in ("q", "k", "v", "out")}
    # [B*H, S, D] as [1, B*H, S, D]: SDPA's batch x heads.
    q, k, v = (torch.from_numpy(t[n]).to(dev)[None] for n in ("q", "k", "v"))
    with sdpa_kernel(SDPBackend.MATH):
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal="causal" in kernel)
    ref = ref[0].double().cpu().numpy()
    got = t["out"].astype(np.float64)
    nan = int(np.isnan(got).sum())
    err = float(np.abs(got - ref).max())
    scale = float(np.abs(ref).max())
    ok = nan == 0 and err <= tol * max(scale, 1e-30)
    print(f"{'PASS' if ok else 'FAIL'} {kernel} {list(got.shape)} vs SDPA math: max abs error "
          f"{err:.3g} (max |ref| {scale:.3g}, tolerance {tol:g} x that), mean abs error "
          f"{float(np.abs(got - ref).mean()):.3g}, {nan} NaN", flush=True)
    return ok

if __name__ == "__main__":
    sys.exit(main())
