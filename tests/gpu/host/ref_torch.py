#!/usr/bin/env python3
"""PyTorch inputs and reference for tests/gpu/host/run.sh (on the GPU).

  ref_torch.py gen   DIR FN M D H DTYPE   write DIR/{x,w1,b1,w2,b2}.npy (bf16 as <u2)
  ref_torch.py check DIR FN M D H DTYPE   compare DIR/y.npy with PyTorch

FN mlp: F.linear -> gelu(approximate='tanh') -> F.linear; FN block:
layer_norm (no affine, eps 1e-5) -> the MLP -> softmax over the last axis.
The computation runs on the GPU in DTYPE, as PyTorch eager does.
"""
import sys

import numpy as np
import torch
import torch.nn.functional as F


def tensors(d, fn, M, D, H, dt):
    g = torch.Generator(device="cpu").manual_seed(16)
    def r(*shape, scale=1.0):
        return (torch.rand(*shape, generator=g) * 2 - 1) * scale
    x = r(M, D)
    w1, b1 = r(H, D, scale=D ** -0.5), r(H, scale=0.1)
    w2, b2 = r(D, H, scale=H ** -0.5), r(D, scale=0.1)
    return [t.to(dt) for t in (x, w1, b1, w2, b2)]


def save(path, t):
    if t.dtype == torch.bfloat16:
        np.save(path, t.contiguous().view(torch.int16).numpy().view(np.uint16))
    else:
        np.save(path, t.numpy())


def load(path, dt):
    a = np.load(path)
    if a.dtype == np.uint16:
        return torch.from_numpy(a.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(a).to(dt)


def forward(fn, x, w1, b1, w2, b2):
    if fn == "block":
        x = F.layer_norm(x, (x.shape[-1],), eps=1e-5)
    h = F.gelu(F.linear(x, w1, b1), approximate="tanh")
    y = F.linear(h, w2, b2)
    return torch.softmax(y, dim=-1) if fn == "block" else y


def main():
    mode, d, fn = sys.argv[1], sys.argv[2], sys.argv[3]
    M, D, H = (int(v) for v in sys.argv[4:7])
    dt = {"bf16": torch.bfloat16, "f32": torch.float32}[sys.argv[7]]
    if not torch.cuda.is_available():
        sys.exit("no CUDA device for PyTorch")
    ts = tensors(d, fn, M, D, H, dt)
    if mode == "gen":
        for name, t in zip(("x", "w1", "b1", "w2", "b2"), ts):
            save("%s/%s.npy" % (d, name), t)
        return
    torch.backends.cuda.matmul.allow_tf32 = False
    want = forward(fn, *(t.cuda() for t in ts)).float().cpu()
    got = load("%s/y.npy" % d, dt).float()
    if got.shape != want.shape:
        sys.exit("shape %s, PyTorch %s" % (tuple(got.shape), tuple(want.shape)))
    err = (got - want).abs()
    rtol, atol = (2e-2, 2e-2) if dt == torch.bfloat16 else (1e-3, 1e-5)
    bad = int((err > atol + rtol * want.abs()).sum())
    msg = "%d elements, max abs error %.3g (PyTorch max |y| %.3g), %d outside rtol %g atol %g" % (
        want.numel(), err.max().item(), want.abs().max().item(), bad, rtol, atol)
    if bad > want.numel() // 10000:
        sys.exit("differs from PyTorch: " + msg)
    print("matches PyTorch: " + msg)


if __name__ == "__main__":
    main()
