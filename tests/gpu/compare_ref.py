#!/usr/bin/env python3
"""Compares a saved `kina run --save DIR` result with the kernel's independent
reference (tests/gpu/README.md, "Independent references").

    compare_ref.py RUN_DIR [--refs DIR] [--module NAME]

RUN_DIR is DIR/<kernel>/ as `kina run --save DIR` writes it: run.json, dims.json
and one .npy per tensor parameter (inputs as used, outputs as computed, on the
GPU or by the interpreter with --interpret). The reference of kernel K of file
F.kina is the function K in REFS/F.py (REFS/constructs_F.py for a file under
tests/gpu/constructs/), called as K(dims, **inputs) with NumPy arrays; it
returns the expected output (or a dict {output name: array} when the kernel has
several) and may compute in any precision it likes (float64 is the rule).

An element passes when |got - want| <= atol * scale * sqrt(n) + rtol * |want|,
where scale = max(1e-30, max |want|) over the output, n is the reduction length
(the dim the module names in REDUCTION[K], else 1), and (rtol, atol) depend on
the output dtype (TOLERANCES below); integers must match exactly, and a NaN or
infinity where the reference has a finite value always fails (the runtime fills
outputs with NaN, so unwritten elements show).

Exit status: 0 every output matches, 1 a mismatch, 2 no reference or a
malformed run directory (a kernel without a reference never passes).
"""
import argparse
import importlib.util
import json
import math
import os
import sys

import numpy as np

# (rtol, atol) by output dtype; atol is relative to the output's largest
# magnitude and widened by sqrt(reduction length).
TOLERANCES = {
    "f64": (1e-10, 1e-12),
    "f32": (1e-4, 1e-5),
    "f16": (1e-2, 1e-3),
    "bf16": (2e-2, 1e-2),
    "i8": (0.0, 0.0),
    "u8": (0.0, 0.0),
    "i32": (0.0, 0.0),
    "i64": (0.0, 0.0),
}

HERE = os.path.dirname(os.path.abspath(__file__))


def load_tensor(path, dtype):
    a = np.load(path)
    if dtype == "bf16":
        # Kina stores bf16 as its raw 16-bit patterns (<u2): the top half of a float32.
        a = (a.astype(np.uint32) << 16).view(np.float32)
    return a


def module_name(kina_file):
    stem = os.path.splitext(os.path.basename(kina_file))[0]
    parent = os.path.basename(os.path.dirname(os.path.abspath(kina_file)))
    return "constructs_" + stem if parent == "constructs" else stem


def load_module(refs, name):
    path = os.path.join(refs, name + ".py")
    if not os.path.isfile(path):
        return None, path
    spec = importlib.util.spec_from_file_location("kina_ref_" + name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, path


def compare(got, want, dtype, n):
    """Returns (ok, summary) for one output."""
    rtol, atol = TOLERANCES.get(dtype, (1e-4, 1e-5))
    got = got.astype(np.float64)
    want = np.asarray(want, dtype=np.float64)
    finite_want = np.isfinite(want)
    scale = max(1e-30, float(np.max(np.abs(want[finite_want]))) if finite_want.any() else 1.0)
    tol = atol * scale * math.sqrt(max(1, n)) + rtol * np.abs(want)
    err = np.abs(got - want)
    with np.errstate(invalid="ignore"):
        bad = ~(err <= tol)
    # Both non-finite and equal (inf == inf, or NaN expected and got) passes.
    same_nonfinite = ~finite_want & ((got == want) | (np.isnan(got) & np.isnan(want)))
    bad &= ~same_nonfinite
    count = int(want.size)
    mismatches = int(bad.sum())
    finite_err = np.where(np.isfinite(err), err, 0.0)
    worst = np.unravel_index(int(np.argmax(finite_err)), want.shape) if count else ()
    text = (f"{count} elements, {mismatches} mismatches, max abs error "
            f"{float(finite_err.max()) if count else 0.0:.3g} at {list(map(int, worst))}, "
            f"tolerance atol {atol:g}*{scale:.3g}*sqrt({n}) + rtol {rtol:g}*|want|")
    if mismatches:
        first = np.unravel_index(int(np.argmax(bad)), want.shape)
        text += (f"; first mismatch at {list(map(int, first))}: got {got[first]!r}, "
                 f"want {want[first]!r}")
        nan = int(np.isnan(got).sum())
        if nan:
            text += f"; {nan} NaN in the result (elements never written?)"
    return mismatches == 0, text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dir")
    ap.add_argument("--refs", default=os.path.join(HERE, "refs"))
    ap.add_argument("--module", help="reference module name (default: from run.json's file)")
    args = ap.parse_args()

    try:
        with open(os.path.join(args.run_dir, "run.json")) as f:
            run = json.load(f)
        with open(os.path.join(args.run_dir, "dims.json")) as f:
            dims = json.load(f)
    except (OSError, ValueError) as e:
        print(f"ref FAIL {args.run_dir}: not a `kina run --save` directory: {e}")
        return 2
    kernel = run["kernel"]
    name = args.module or module_name(run["file"])
    mod, path = load_module(args.refs, name)
    fn = getattr(mod, kernel, None) if mod else None
    if fn is None:
        print(f"ref FAIL {kernel}: no reference: define `def {kernel}(dims, **inputs)` in {path}")
        return 2

    inputs, outputs = {}, []
    for p in run["params"]:
        t = load_tensor(os.path.join(args.run_dir, p["file"]), p["dtype"])
        if list(t.shape) != list(p["shape"]):
            print(f"ref FAIL {kernel}: {p['file']} has shape {list(t.shape)}, run.json says {p['shape']}")
            return 2
        if p["role"] in ("input", "inout"):
            inputs[p["name"]] = t
        if p["role"] in ("output", "inout"):
            outputs.append((p, t))
    # Scalar parameters (`(eps : F32)`), when run.json lists them by name.
    for name, value in run.get("scalars", {}).items():
        inputs[name] = value
    # The reference sees copies: it must not be able to change what is compared.
    want = fn(dict(dims), **{k: v.copy() if hasattr(v, "copy") else v for k, v in inputs.items()})
    if not isinstance(want, dict):
        if len(outputs) != 1:
            print(f"ref FAIL {kernel}: the reference returned one array, the kernel has "
                  f"{len(outputs)} outputs: return a dict by output name")
            return 2
        want = {outputs[0][0]["name"]: want}
    n_dim = getattr(mod, "REDUCTION", {}).get(kernel)
    # A dim name, or a number for a fixed reduction length.
    n = n_dim if isinstance(n_dim, int) else int(dims.get(n_dim, 1)) if n_dim else 1

    status = 0
    for p, got in outputs:
        w = want.get(p["name"])
        if w is None:
            print(f"ref FAIL {kernel} {p['name']}: the reference returned no `{p['name']}`")
            status = 2
            continue
        w = np.asarray(w)
        if list(w.shape) != list(got.shape):
            print(f"ref FAIL {kernel} {p['name']}: the reference has shape {list(w.shape)}, "
                  f"the kernel's output {list(got.shape)}")
            status = max(status, 1)
            continue
        ok, text = compare(got, w, p["dtype"], n)
        dims_text = ",".join(f"{k}={v}" for k, v in dims.items())
        print(f"ref {'PASS' if ok else 'FAIL'} {kernel} {p['name']} ({run.get('backend', '?')}, "
              f"{dims_text}): {text}")
        if not ok:
            status = max(status, 1)
    return status


if __name__ == "__main__":
    sys.exit(main())
