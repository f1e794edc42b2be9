#!/usr/bin/env python3
"""bench/mlp/mlp_tp.py: the tensor-parallel MLP of issue 19 in PyTorch on two
GPUs, the reference and the baseline for `kina run --fn mlp_tp`
(tests/gpu/multigpu/mlp_tp.kina): w1 and b1 split by output rows (H), w2 by
input columns (H), each device computes its block of h and a partial sum of
y, one NCCL all-reduce (torch.cuda.comm.reduce_add) sums them, then + b2.

  python3 bench/mlp/mlp_tp.py [--quick] [--inputs DIR] [--torch-only]

Writes DIR/{x,w1,b1,w2,b2}.npy (bf16, nn.Linear layout) and DIR/torch_tp.npy
(the result on device 0), prints the single-GPU and the two-GPU times
(median of CUDA-event timings, L2 flushed), and, unless --torch-only,
runs `kina run --fn mlp_tp --bench` on the same inputs. Needs two GPUs
(NCCL_NVLS_ENABLE=0 on the H200 x2 machine).
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KINA = os.environ.get("KINA", "/tmp/kina-bin/kina")
QUICK = "--quick" in sys.argv
OUTDIR = sys.argv[sys.argv.index("--inputs") + 1] if "--inputs" in sys.argv else "/tmp/kina-out/tp"
M, D, H = (1024 if QUICK else 4096), 4096, 16384


def save_bf16(path, t):
    import numpy as np
    a = t.detach().to("cpu").contiguous().view(dtype=__import__("torch").int16).numpy().view(np.uint16)
    with open(path, "wb") as f:
        shape = "(" + ", ".join(str(s) for s in a.shape) + ("," if a.ndim == 1 else "") + ")"
        header = "{'descr': '<u2', 'fortran_order': False, 'shape': %s, }" % shape
        header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
        f.write(a.tobytes())


def timed(fn, devices, iters=20):
    import torch
    flush = [torch.empty(256 << 20, dtype=torch.uint8, device=d) for d in devices]
    for _ in range(5):
        fn()
    times = []
    for _ in range(iters):
        for f in flush:
            f.fill_(1)
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for d in devices:
            torch.cuda.synchronize(d)
        s.record()
        fn()
        for d in devices:
            torch.cuda.synchronize(d)
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) * 1e3)
    times.sort()
    return times[len(times) // 2]


def main():
    import torch
    import torch.nn.functional as F
    if torch.cuda.device_count() < 2:
        raise SystemExit("SKIP: fewer than two GPUs")
    os.makedirs(OUTDIR, exist_ok=True)
    torch.manual_seed(0)
    dt = torch.bfloat16
    d0, d1 = torch.device("cuda:0"), torch.device("cuda:1")
    x = torch.randn(M, D, device=d0, dtype=dt)
    w1 = torch.randn(H, D, device=d0, dtype=dt) * D ** -0.5
    b1 = torch.randn(H, device=d0, dtype=dt) * 0.1
    w2 = torch.randn(D, H, device=d0, dtype=dt) * H ** -0.5
    b2 = torch.randn(D, device=d0, dtype=dt) * 0.1
    for name, t in (("x", x), ("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2)):
        save_bf16(os.path.join(OUTDIR, name + ".npy"), t)
    h2 = H // 2
    parts = [(x.to(d), w1[i * h2:(i + 1) * h2].to(d), b1[i * h2:(i + 1) * h2].to(d),
              w2[:, i * h2:(i + 1) * h2].contiguous().to(d)) for i, d in enumerate((d0, d1))]
    b2r = b2

    def tp():
        partial = [F.linear(F.gelu(F.linear(xi, w1i, b1i), approximate="tanh"), w2i)
                   for xi, w1i, b1i, w2i in parts]
        return torch.cuda.comm.reduce_add(partial, destination=0) + b2r

    def single():
        return F.linear(F.gelu(F.linear(x, w1, b1), approximate="tanh"), w2, b2)

    y = tp()
    save_bf16(os.path.join(OUTDIR, "torch_tp.npy"), y)
    diff = (y.float() - single().float()).abs().max().item()
    print("torch single-GPU vs tensor-parallel: max abs difference %.3g" % diff)
    print("torch single GPU: %.1f us" % timed(single, [d0]))
    print("torch tensor-parallel, 2 GPUs: %.1f us" % timed(tp, [d0, d1]))
    if "--torch-only" in sys.argv:
        return
    ins = [os.path.join(OUTDIR, n + ".npy") for n in ("x", "w1", "b1", "w2", "b2")]
    r = subprocess.run([KINA, "run", os.path.join(ROOT, "tests/gpu/multigpu/mlp_tp.kina"), "--fn",
                        "mlp_tp", "--dims", "M=%d,D=%d,H=%d" % (M, D, H), "--bench", "--inputs",
                        *ins, "--output", os.path.join(OUTDIR, "kina_tp.npy")],
                       capture_output=True, text=True)
    print(r.stdout + r.stderr)


if __name__ == "__main__":
    main()
