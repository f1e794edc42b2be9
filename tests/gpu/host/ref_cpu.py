#!/usr/bin/env python3
"""Pure-Python (no NumPy) inputs and reference for the host programs at
small sizes, so `kina run --fn --interpret` is checked on a machine without
a GPU or NumPy (lit tests/lit/algebraic). On the H200, run.sh checks the GPU
against PyTorch instead.

  ref_cpu.py gen  DIR PROGRAM M D H      write the inputs DIR/<param>.npy
  ref_cpu.py check DIR PROGRAM M D H OUT compare OUT.npy with the reference

PROGRAM is mlp (BF16) or block (F32: LayerNorm -> MLP -> softmax). The
reference rounds where the plan stores (BF16 after each fused GEMM) and
computes in float64 otherwise; the tolerance is per dtype.
"""
import math
import random
import struct
import sys


def bf16(x):
    """float64 -> float32 -> bfloat16 (round to nearest even) -> float."""
    b = struct.unpack("<I", struct.pack("<f", x))[0]
    if (b & 0x7FFFFFFF) > 0x7F800000:
        return x
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", b))[0]


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def write_npy(path, shape, values, dtype):
    descr = "<u2" if dtype == "BF16" else "<f4"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else ""))
    pad = 64 - (10 + len(header) + 1) % 64
    header += " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        if dtype == "BF16":
            f.write(b"".join(struct.pack("<H", struct.unpack("<I", struct.pack("<f", v))[0] >> 16)
                             for v in values))
        else:
            f.write(struct.pack("<%df" % len(values), *values))


def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    hlen = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + hlen].decode()
    body = data[10 + hlen:]
    descr = header.split("'descr': '")[1].split("'")[0]
    shape = tuple(int(s) for s in header.split("'shape': (")[1].split(")")[0].split(",") if s.strip())
    n = 1
    for s in shape:
        n *= s
    if descr == "<u2":
        vals = [struct.unpack("<f", struct.pack("<I", h << 16))[0] for h in struct.unpack("<%dH" % n, body[:2 * n])]
    elif descr == "<f4":
        vals = list(struct.unpack("<%df" % n, body[:4 * n]))
    else:
        raise SystemExit("unsupported dtype " + descr)
    return shape, vals


def params(program, M, D, H):
    dt = "BF16" if program == "mlp" else "F32"
    return dt, [("x", (M, D)), ("w1", (H, D)), ("b1", (H,)), ("w2", (D, H)), ("b2", (D,))]


def inputs(program, M, D, H):
    dt, ps = params(program, M, D, H)
    rnd = random.Random(20261201)
    rnd_dt = bf16 if dt == "BF16" else f32
    out = {}
    for name, shape in ps:
        n = 1
        for s in shape:
            n *= s
        scale = 1.0 if name == "x" else 1.0 / math.sqrt(shape[-1])
        out[name] = (shape, [rnd_dt(rnd.uniform(-1, 1) * scale) for _ in range(n)])
    return dt, out


def gelu_tanh(v):
    return 0.5 * v * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (v + 0.044715 * v * v * v)))


def linear(x, M, K, w, N, b, rnd, act=None):
    out = []
    for i in range(M):
        row = x[i * K:(i + 1) * K]
        for j in range(N):
            wr = w[j * K:(j + 1) * K]
            s = sum(a * c for a, c in zip(row, wr)) + b[j]
            out.append(rnd(act(s) if act else s))
    return out


def reference(program, M, D, H, ins):
    x, w1, b1, w2, b2 = (ins[k][1] for k in ("x", "w1", "b1", "w2", "b2"))
    if program == "mlp":
        h = linear(x, M, D, w1, H, b1, bf16, gelu_tanh)
        return linear(h, M, H, w2, D, b2, bf16)
    n = []
    for i in range(M):
        row = x[i * D:(i + 1) * D]
        mean = sum(row) / D
        var = sum((v - mean) ** 2 for v in row) / D
        inv = 1.0 / math.sqrt(var + 1e-5)
        n.extend(f32((v - mean) * inv) for v in row)
    h = linear(n, M, D, w1, H, b1, f32, gelu_tanh)
    y = linear(h, M, H, w2, D, b2, f32)
    out = []
    for i in range(M):
        row = y[i * D:(i + 1) * D]
        mx = max(row)
        e = [math.exp(v - mx) for v in row]
        s = sum(e)
        out.extend(f32(v / s) for v in e)
    return out


def main():
    mode, d, program = sys.argv[1], sys.argv[2], sys.argv[3]
    M, D, H = (int(v) for v in sys.argv[4:7])
    dt, ins = inputs(program, M, D, H)
    if mode == "gen":
        for name, (shape, vals) in ins.items():
            write_npy("%s/%s.npy" % (d, name), shape, vals, dt)
        return
    shape, got = read_npy(sys.argv[7])
    want = reference(program, M, D, H, ins)
    if shape != (M, D) or len(got) != len(want):
        raise SystemExit("FAIL: shape %s, want %s" % (shape, (M, D)))
    # BF16: a product rounded to 8 bits, then a second GEMM over it; F32: 1e-4.
    rtol, atol = (2e-2, 2e-3) if dt == "BF16" else (1e-4, 1e-6)
    bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if abs(g - w) > atol + rtol * abs(w)]
    worst = max(abs(g - w) for g, w in zip(got, want))
    if len(bad) > len(want) // 1000:
        i, g, w = bad[0]
        raise SystemExit("FAIL: %d of %d elements differ (first at %d: %r vs %r), max abs %.3g"
                         % (len(bad), len(want), i, g, w, worst))
    print("PASS %s %dx%dx%d: %d elements, max abs error %.3g, %d outside tolerance"
          % (program, M, D, H, len(want), worst, len(bad)))


if __name__ == "__main__":
    main()
