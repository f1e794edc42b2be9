#!/usr/bin/env python3
"""tests/gpu/hopper/check.py KERNEL DIR: compare a saved Hopper run with NumPy.

DIR holds the .npy files hopper_run saved (inputs and outputs; bf16 as raw
'<u2' bit patterns). The references are written here from the kernels'
meaning (tests/unit/ir/HopperKernels.h), independently of the compiler:

  gemm_*_hopper_*     c[M, N] = a[M, K] @ b[N, K].T   (f32 math, output rounded)
  tma_round_trip      out = a                         (bit-exact)
  wgmma_m64nNkK       c[64, N] = a[:, :K] @ b[:, :K].T (f32 output)
  wgmma_rega_ldmatrix_nN  c[64, N] = a @ b.T, A from registers (ldmatrix)
  wgmma_rega_chain_nN     c[64, N] = bf16(a @ b.T) @ b2.T (F32 fragment
                          converted into the register A operand)

Prints PASS/FAIL with the max abs error, the tolerance and the worst index;
exit 0 on PASS, 1 on FAIL.
"""
import os
import re
import sys

import numpy as np


def load(d, name, dtype):
    x = np.load(os.path.join(d, name + ".npy"))
    if dtype == "bf16":
        return (x.astype(np.uint32) << 16).view(np.float32)
    return x.astype(np.float32)


def verdict(name, got, ref, atol, rtol):
    if got.shape != ref.shape:
        print(f"FAIL {name}: shape {got.shape} != reference {ref.shape}")
        return 1
    if not np.all(np.isfinite(got)):
        bad = np.argwhere(~np.isfinite(got))[0]
        print(f"FAIL {name}: non-finite output at {tuple(bad)} (unwritten element?)")
        return 1
    err = np.abs(got - ref)
    tol = atol + rtol * np.abs(ref)
    worst = np.unravel_index(np.argmax(err - tol), err.shape)
    ok = bool(np.all(err <= tol))
    print(f"{'PASS' if ok else 'FAIL'} {name}: max abs err {err.max():.3g}, "
          f"worst {tuple(int(i) for i in worst)} got {got[worst]:.6g} ref {ref[worst]:.6g} "
          f"(tol {atol:.3g} + {rtol:.3g}*|ref|), rel fro {np.linalg.norm(got - ref) / max(np.linalg.norm(ref), 1e-30):.3g}")
    return 0 if ok else 1


def main():
    kernel, d = sys.argv[1], sys.argv[2]
    if kernel.startswith("gemm_"):
        dt = "bf16" if "bf16" in kernel else "f16"
        a, b, c = load(d, "a", dt), load(d, "b", dt), load(d, "c", dt)
        k = a.shape[1]
        ref = a.astype(np.float64) @ b.astype(np.float64).T
        # Output rounding (bf16: 2^-8, f16: 2^-11 relative) plus f32
        # accumulation over K terms of size <= 1.
        rtol = 2.0 ** -8 if dt == "bf16" else 2.0 ** -10
        return verdict(kernel, c, ref.astype(np.float32), 1e-5 * k, rtol)
    if kernel == "tma_round_trip":
        a = np.load(os.path.join(d, "a.npy"))
        out = np.load(os.path.join(d, "out.npy"))
        if a.shape == out.shape and np.array_equal(a, out):
            print(f"PASS {kernel}: {a.shape} bit-exact")
            return 0
        diff = np.argwhere(a != out)
        where = tuple(int(i) for i in diff[0]) if len(diff) else "shape"
        print(f"FAIL {kernel}: {len(diff)} elements differ, first at {where}")
        return 1
    m = re.match(r"wgmma_m64n(\d+)k(\d+)$", kernel)
    if m:
        n, k = int(m.group(1)), int(m.group(2))
        a, b, c = load(d, "a", "bf16"), load(d, "b", "bf16"), load(d, "c", "f32")
        ref = a[:, :k].astype(np.float64) @ b[:, :k].astype(np.float64).T
        return verdict(kernel, c, ref.astype(np.float32), 1e-5 * k, 1e-5)
    m = re.match(r"wgmma_rega_ldmatrix_n(\d+)$", kernel)
    if m:
        a, b, c = load(d, "a", "bf16"), load(d, "b", "bf16"), load(d, "c", "f32")
        ref = a.astype(np.float64) @ b.astype(np.float64).T
        return verdict(kernel, c, ref.astype(np.float32), 1e-5 * 64, 1e-5)
    m = re.match(r"wgmma_rega_chain_n(\d+)$", kernel)
    if m:
        a, b, b2 = load(d, "a", "bf16"), load(d, "b", "bf16"), load(d, "b2", "bf16")
        c = load(d, "c", "f32")
        p = (a.astype(np.float64) @ b.astype(np.float64).T).astype(np.float32)
        # Round p to bf16 (nearest even) as the kernel's convert does.
        bits = p.view(np.uint32).astype(np.uint64)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
        pb = bits.astype(np.uint32).view(np.float32).astype(np.float64)
        ref = pb @ b2.astype(np.float64).T
        # An element of p one bf16 ulp off (f32 accumulation order) moves
        # c by at most 2^-8 |p| |b2| summed over the 64 terms.
        slack = 2.0 ** -8 * (np.abs(pb) @ np.abs(b2.astype(np.float64)).T)
        err = np.abs(c - ref)
        ok = bool(np.all(err <= 1e-5 * 64 + slack))
        worst = np.unravel_index(np.argmax(err - slack), err.shape)
        print(f"{'PASS' if ok else 'FAIL'} {kernel}: max abs err {err.max():.3g}, worst "
              f"{tuple(int(i) for i in worst)} got {c[worst]:.6g} ref {ref[worst]:.6g}")
        return 0 if ok else 1
    print(f"FAIL {kernel}: no reference")
    return 1


if __name__ == "__main__":
    sys.exit(main())
