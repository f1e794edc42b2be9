#!/usr/bin/env python3
"""Compares a saved `kina run --save DIR` result of the norms and Ampere
GEMM kernels (tests/gpu/norms/run.sh) with PyTorch on the same inputs.

    compare_torch.py RUN_DIR

PyTorch computes the same function in bf16 (on the GPU when there is one,
else on the CPU): F.layer_norm (eps 1e-5), F.rms_norm (eps 1e-6; by hand
before torch 2.4), gelu(addmm) with approximate 'none' / 'tanh', torch.bmm.
Both results are measured against a float64 computation from the same bf16
inputs; Kina passes when its max error relative to the output's magnitude is
at most twice PyTorch's or 2^-7 (one bf16 rounding of the largest values is
2^-8). Prints both errors. Exit status: 0 pass, 1 fail, 2 bad directory,
77 no PyTorch.
"""
import json
import os
import sys

import numpy as np


def load(path, dtype):
    a = np.load(path)
    if dtype == "bf16":
        a = (a.astype(np.uint32) << 16).view(np.float32)
    return a


def main():
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        print("SKIP: PyTorch is not installed")
        return 77
    d = sys.argv[1]
    try:
        run = json.load(open(os.path.join(d, "run.json")))
    except (OSError, ValueError) as e:
        print(f"FAIL {d}: not a `kina run --save` directory: {e}")
        return 2
    kernel = run["kernel"]
    t = {p["name"]: load(os.path.join(d, p["file"]), p["dtype"]) for p in run["params"]}
    dev = "cuda" if torch.cuda.is_available() else "cpu"

    def bf(name):
        return torch.from_numpy(np.ascontiguousarray(t[name])).to(dev).to(torch.bfloat16)

    f64 = {k: v.astype(np.float64) for k, v in t.items()}
    if kernel in ("layernorm_bf16", "layernorm_cp_bf16"):
        x = bf("x")
        ref_t = F.layer_norm(x, (x.shape[-1],), bf("gamma"), bf("beta"), eps=1e-5)
        x64 = f64["x"]
        mu = x64.mean(1, keepdims=True)
        want = (x64 - mu) / np.sqrt(((x64 - mu) ** 2).mean(1, keepdims=True) + 1e-5) \
            * f64["gamma"] + f64["beta"]
        out = "y"
    elif kernel in ("rmsnorm_bf16", "rmsnorm_cp_bf16"):
        x = bf("x")
        if hasattr(F, "rms_norm"):
            ref_t = F.rms_norm(x, (x.shape[-1],), bf("gamma"), eps=1e-6)
        else:
            xf = x.float()
            ref_t = (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) \
                * bf("gamma")
        x64 = f64["x"]
        want = x64 / np.sqrt((x64 * x64).mean(1, keepdims=True) + 1e-6) * f64["gamma"]
        out = "y"
    elif kernel in ("gemm_bias_gelu_bf16", "gemm_bias_gelu_tanh_bf16"):
        approx = "tanh" if "tanh" in kernel else "none"
        ref_t = F.gelu(torch.addmm(bf("bias"), bf("a"), bf("b")), approximate=approx)
        z = f64["a"] @ f64["b"] + f64["bias"][None, :]
        if approx == "tanh":
            want = 0.5 * z * (1 + np.tanh(np.sqrt(2 / np.pi) * (z + 0.044715 * z ** 3)))
        else:
            from math import erf
            want = 0.5 * z * (1 + np.vectorize(erf)(z / np.sqrt(2)))
        out = "c"
    elif kernel == "gemm_batched_bf16":
        ref_t = torch.bmm(bf("a"), bf("b"))
        want = np.matmul(f64["a"], f64["b"])
        out = "c"
    else:
        print(f"FAIL {kernel}: no PyTorch comparison for this kernel")
        return 2
    got = t[out].astype(np.float64)
    torch_got = ref_t.float().cpu().numpy().astype(np.float64)
    scale = max(np.abs(want).max(), 1e-30)
    kina_err = float(np.abs(got - want).max() / scale)
    torch_err = float(np.abs(torch_got - want).max() / scale)
    kina_vs_torch = float(np.abs(got - torch_got).max() / scale)
    ok = kina_err <= max(2 * torch_err, 2.0 ** -7) and np.isfinite(got).all()
    print(f"{'PASS' if ok else 'FAIL'} {kernel} ({dev}): max error / max |want|: kina "
          f"{kina_err:.3g}, torch {torch_err:.3g}; |kina - torch| {kina_vs_torch:.3g}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
