#!/usr/bin/env python3
"""The math builtins on the GPU against float64 NumPy, at docs/math.md's bounds.

    tests/gpu/math/check_math.py [--kina PATH] [--interpret] [--rows N] [--out DIR]

For each kernel of tests/gpu/math/math.kina (out = f(x) on an [M, 64] tile
grid), builds inputs that span the function's domain (both signs, tiny to
huge magnitudes, the interesting middle densely, the edges of overflow and
underflow), runs `kina run FILE --kernel K --inputs x.npy --save DIR` and
compares the saved output with a float64 reference written here from the
definition (math.erf for erf and gelu). The error of an element is in ulps
of the output type at the reference's magnitude (F32: 2^(e-23), 2^-149 in
the subnormal range; BF16: 2^(e-7)), or relative for the _approx forms; a
NaN where the reference is a number, a number where it is NaN, or a finite
value where the rounded reference overflows to inf fails.

With --interpret the reference interpreter runs instead of the GPU (libm
values: a check of this script and of the interpreter, 0.5 ulp expected).
Exit status: 0 every kernel within its bound, 1 otherwise. The table it
prints (function, inputs, bound, max error, worst input) is the log to keep.
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
KINA_FILE = os.path.join(HERE, "math.kina")

ERF = np.frompyfunc(math.erf, 1, 1)
ERFC = np.frompyfunc(math.erfc, 1, 1)


def erf(x):
    return ERF(x).astype(np.float64)


def erfc(x):
    return ERFC(x).astype(np.float64)


def sigmoid(x):
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def gelu_tanh(x):
    u = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)
    with np.errstate(over="ignore", invalid="ignore"):
        return x / (1.0 + np.exp(-2.0 * u))


def spread(n, lo_exp, hi_exp, signed=True, dense=None):
    """n F32 values: log-spaced magnitudes 10^lo_exp .. 10^hi_exp (both signs
    when signed), a dense linear part over `dense` = (a, b), and 0."""
    rng = np.random.default_rng(12345)
    k = n // 2
    mags = 10.0 ** rng.uniform(lo_exp, hi_exp, size=k)
    if signed:
        mags *= rng.choice([-1.0, 1.0], size=k)
    a, b = dense if dense else (-4.0, 4.0)
    lin = rng.uniform(a, b, size=n - k)
    x = np.concatenate([mags, lin]).astype(np.float32)
    x[0] = 0.0
    return x


# name: (inputs(n) -> dict of arrays, reference(dict of float64) -> float64,
#        bound, kind) where kind is "ulp" (of the output type) or "rel".
def unary(domain, ref, bound, kind="ulp"):
    return (lambda n: {"x": domain(n)}, lambda a: ref(a["x"]), bound, kind)


POS = lambda n: np.abs(spread(n, -40, 38, dense=(0.0, 4.0)))
ALL = lambda n: spread(n, -40, 38)
MID = lambda n: spread(n, -30, 2.1, dense=(-12.0, 12.0))

KERNELS = {
    "math_sqrt": unary(POS, np.sqrt, 0.5),
    "math_rsqrt": unary(POS, lambda x: 1.0 / np.sqrt(x), 1.0),
    "math_exp2": unary(lambda n: spread(n, -30, 2.2, dense=(-150.0, 128.0)), np.exp2, 1.0),
    "math_log": unary(ALL, np.log, 1.0),
    "math_log2": unary(ALL, np.log2, 1.0),
    "math_tanh": unary(MID, np.tanh, 1.0),
    "math_erf": unary(MID, erf, 1.0),
    "math_sigmoid": unary(lambda n: spread(n, -30, 2.1, dense=(-110.0, 110.0)), sigmoid, 1.0),
    "math_silu": unary(lambda n: spread(n, -30, 30, dense=(-110.0, 110.0)),
                       lambda x: x * sigmoid(x), 1.0),
    "math_gelu": unary(lambda n: spread(n, -30, 30, dense=(-15.0, 15.0)),
                       lambda x: 0.5 * x * erfc(-x / math.sqrt(2.0)), 1.0),
    "math_gelu_tanh": unary(lambda n: spread(n, -30, 30, dense=(-15.0, 15.0)), gelu_tanh, 1.0),
    "math_abs": unary(ALL, np.abs, 0.0),
    "math_floor": unary(lambda n: spread(n, -10, 10, dense=(-8.0, 8.0)), np.floor, 0.0),
    "math_ceil": unary(lambda n: spread(n, -10, 10, dense=(-8.0, 8.0)), np.ceil, 0.0),
    # The hardware approximations: relative error bounds (docs/math.md),
    # over inputs whose results are normal F32 numbers.
    "math_exp2_approx": unary(lambda n: spread(n, -30, 2.0, dense=(-125.0, 127.0)), np.exp2,
                              2.0 ** -21, "rel"),
    "math_rsqrt_approx": unary(lambda n: np.abs(spread(n, -36, 36, dense=(0.01, 4.0))) + 1e-30,
                               lambda x: 1.0 / np.sqrt(x), 2.0 ** -22, "rel"),
    "math_tanh_approx": unary(lambda n: spread(n, -30, 1.5, dense=(-10.0, 10.0)), np.tanh,
                              2.0 ** -10.9, "rel"),
    # x / (1 + ex2.approx(t)): the argument's F32 rounding costs |t| 2^-24
    # relative, |t| <= 36 on [-6, 15] (docs/math.md).
    "math_gelu_tanh_approx": unary(lambda n: spread(n, -30, 0.7, dense=(-6.0, 15.0)) , gelu_tanh,
                                   2.0 ** -18, "rel"),
    # Scalar math: x * exp2(-1.5) * rsqrt(2) (= x / 4), the two scalars and
    # the two products each rounded to F32: 2 ulp at most.
    "math_scalar": unary(lambda n: spread(n, -30, 30, dense=(-4.0, 4.0)),
                         lambda x: x * 2.0 ** -1.5 / math.sqrt(2.0), 2.0),
    "math_pow": (lambda n: {"x": np.abs(spread(n, -6, 6, dense=(0.0, 3.0))),
                            "y": np.random.default_rng(7).uniform(-4, 4, n).astype(np.float32)},
                 lambda a: np.power(a["x"], a["y"]), 1.0, "ulp"),
    "math_pow_scalar": unary(POS, lambda x: np.power(x, 1.5), 1.0),
    "math_exp2_of_tile": unary(lambda n: spread(n, -30, 2.2, dense=(-150.0, 128.0)), np.exp2, 1.0),
    "math_clamp": unary(ALL, lambda x: np.minimum(np.maximum(x, -1.5), 2.25), 0.0),
    "math_min_max_scalar": unary(ALL, lambda x: np.maximum(np.minimum(x, 3.0), -3.0), 0.0),
    # BF16 tiles: computed in F64, rounded through F32 to BF16 (1 BF16 ulp).
    "math_tanh_bf16": unary(MID, np.tanh, 1.0),
    "math_gelu_bf16": unary(lambda n: spread(n, -30, 30, dense=(-15.0, 15.0)),
                            lambda x: 0.5 * x * erfc(-x / math.sqrt(2.0)), 1.0),
    "math_gelu_tanh_bf16": unary(lambda n: spread(n, -30, 30, dense=(-15.0, 15.0)), gelu_tanh, 1.0),
    "math_silu_bf16": unary(lambda n: spread(n, -30, 30, dense=(-110.0, 110.0)),
                            lambda x: x * sigmoid(x), 1.0),
    "math_exp2_bf16": unary(lambda n: spread(n, -30, 2.2, dense=(-130.0, 128.0)), np.exp2, 1.0),
    "math_log_bf16": unary(ALL, np.log, 1.0),
}


def to_bf16_bits(x):
    """float32 -> bf16 bit patterns (<u2), round to nearest even."""
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return b.astype(np.uint16)


def from_bf16_bits(u):
    return (u.astype(np.uint32) << 16).view(np.float32)


def round_bf16(x):
    return from_bf16_bits(to_bf16_bits(x.astype(np.float32)))


def ulp_of(ref, bf16):
    mant = 7 if bf16 else 23
    emin = -126
    a = np.abs(ref)
    with np.errstate(divide="ignore"):
        e = np.floor(np.log2(np.where(a > 0, a, 1.0)))
    e = np.maximum(e, emin)
    return np.exp2(e - mant)


def measure(got, ref, bound, kind, bf16, inputs):
    """Returns (max error, worst index, failures) over all elements."""
    got = got.astype(np.float64).ravel()
    ref = ref.astype(np.float64).ravel()
    fmax = 3.3895313892515355e38 if bf16 else float(np.finfo(np.float32).max)
    with np.errstate(over="ignore", invalid="ignore"):
        rounded = (round_bf16(ref.astype(np.float32)) if bf16 else ref.astype(np.float32)).astype(
            np.float64)
    nan_ref = np.isnan(ref)
    inf_ref = np.isinf(rounded) | (np.abs(ref) > fmax)
    bad = (nan_ref != np.isnan(got)) | (inf_ref & (got != rounded))
    finite = ~nan_ref & ~inf_ref
    err = np.zeros_like(ref)
    with np.errstate(invalid="ignore", divide="ignore"):
        diff = np.abs(got - ref)
        if kind == "ulp":
            err[finite] = diff[finite] / ulp_of(ref[finite], bf16)
        else:
            # Relative, where the reference is a normal F32 (the stated range).
            normal = finite & (np.abs(ref) >= 2.0 ** -126)
            err[normal] = diff[normal] / np.abs(ref[normal])
    err[np.isnan(err)] = np.inf
    bad |= err > bound
    worst = int(np.argmax(np.where(bad, np.inf, err))) if len(err) else 0
    return float(np.max(np.where(bad, np.inf, err))), worst, int(bad.sum())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kina", default=os.environ.get("KINA", os.path.join(ROOT, "build/compiler/driver/kina")))
    ap.add_argument("--interpret", action="store_true", help="run the reference interpreter")
    ap.add_argument("--rows", type=int, default=4096, help="M (a multiple of 64)")
    ap.add_argument("--out", default=None, help="folder for inputs and saved runs")
    ap.add_argument("--only", default=None, help="comma-separated kernel names")
    args = ap.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="kina-math-")
    n = args.rows * 64
    names = args.only.split(",") if args.only else list(KERNELS)
    print(f"kina: {args.kina}; {'interpreter' if args.interpret else 'GPU'}; M={args.rows} "
          f"({n} inputs per kernel); files in {out}")
    print(f"{'kernel':22} {'bound':>12} {'max error':>12}  worst input -> got (want)")
    failures = 0
    for name in names:
        make, ref_fn, bound, kind = KERNELS[name]
        bf16 = name.endswith("_bf16")
        inputs = make(n)
        paths = []
        used = {}
        for key, arr in inputs.items():
            arr = arr.astype(np.float32).reshape(args.rows, 64)
            path = os.path.join(out, f"{name}.{key}.npy")
            if bf16:
                np.save(path, to_bf16_bits(arr))
                used[key] = from_bf16_bits(to_bf16_bits(arr)).astype(np.float64)
            else:
                np.save(path, arr)
                used[key] = arr.astype(np.float64)
            paths.append(path)
        cmd = [args.kina, "run", KINA_FILE, "--kernel", name, "--dims", f"M={args.rows}",
               "--save", out, "--inputs", *paths]
        if args.interpret:
            cmd.append("--interpret")
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{name:22} FAIL: kina run exited {r.returncode}\n{r.stdout}{r.stderr}")
            failures += 1
            continue
        got = np.load(os.path.join(out, name, "out.npy"))
        if bf16:
            got = from_bf16_bits(got)
        with np.errstate(all="ignore"):
            want = ref_fn(used)
        worst_err, worst, nbad = measure(got, want, bound, kind, bf16, used)
        x = used["x"].ravel()[worst]
        unit = "ulp" if kind == "ulp" else "rel"
        status = "ok" if nbad == 0 else f"FAIL ({nbad} elements)"
        print(f"{name:22} {bound:>9.3g} {unit} {worst_err:>9.4g} {unit}  x={x:.9g} -> "
              f"{got.ravel()[worst]:.9g} ({want.ravel()[worst]:.9g})  {status}")
        failures += nbad > 0
    print("PASS" if failures == 0 else f"FAIL: {failures} kernel(s)")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
