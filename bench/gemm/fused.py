#!/usr/bin/env python3
"""Fused GEMM epilogues (issue 13): Kina's bias+ReLU and bias+GELU(tanh) GEMMs
against cuBLASLt's fused epilogues and the unfused library paths, one run.

For each shape, bf16 inputs, F32 accumulation, bf16 output, with a [M, K],
b stored K-major as [N, K] (w = b.T is what PyTorch multiplies by) and a bf16
bias [N] added to every row, it times in the same process:
  * mm:              a @ b.T (cuBLAS, no epilogue: the floor);
  * addmm_act relu:  torch._addmm_activation(bias, a, b.T)
                     (cuBLASLt RELU_BIAS, one kernel);
  * addmm_act gelu:  torch._addmm_activation(bias, a, b.T, use_gelu=True)
                     (cuBLASLt GELU_BIAS, tanh form, one kernel);
  * linear + relu:   torch.relu(F.linear(a, b, bias)) (Lt BIAS epilogue, then
                     a separate elementwise kernel: 2 kernels);
  * linear + gelu:   F.gelu(F.linear(a, b, bias), approximate="tanh") (2);
  * Kina relu/gelu:  `kina run stdlib/... --kernel gemm_bf16_hopper_bias_relu /
                     _gelu --dims ... --bench --json` (one kernel each).
The torch paths are timed with triton.testing.do_bench (median, L2 flushed
before each run; warmup 25, rep 100); Kina's --bench reports the median of
>= 20 CUDA-event timed runs with L2 flushed. With --check, each Kina kernel
also runs once at the first shape against torch on the same inputs (saved
as .npy, `kina run --inputs`), and the max error relative to the output's
magnitude is reported (bf16 output: ~4e-3 is rounding).

Run on the GPU machine from the repository root:
    python3 bench/gemm/fused.py --kina ./kina [--quick] [--check]
Writes $OUT/gemm-fused-results.json and .md ($OUT defaults to
bench/results/). The ratios printed are speedups (anchor time / Kina time):
issue 13 asks >= 1.05 over addmm_act relu and >= 1.10 over linear + relu at
4096^3 and 8192x8192x1024, and >= 1.00 over addmm_act gelu.
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from anchors import ROOT, find_kina_kernel, run_kina, tflops  # noqa: E402

SHAPES = [
    ("4096^3", 4096, 4096, 4096),
    ("8192x8192x1024", 8192, 8192, 1024),
    ("8192^3", 8192, 8192, 8192),
    ("llama2-7b mlp up (4096 tok)", 4096, 11008, 4096),
]
KERNELS = {"relu": "gemm_bf16_hopper_bias_relu", "gelu": "gemm_bf16_hopper_bias_gelu"}
# --persistent: the same epilogues on the persistent TMA-store GEMM.
PERSISTENT_KERNELS = {"relu": "gemm_bf16_hopper_persistent_bias_relu",
                      "gelu": "gemm_bf16_hopper_persistent_bias_gelu"}
# --cluster: the same epilogues on the 2x1-cluster multicast GEMM.
CLUSTER_KERNELS = {"relu": "gemm_bf16_hopper_cluster_bias_relu",
                   "gelu": "gemm_bf16_hopper_cluster_bias_gelu"}


def check_kina(kina, source, kernel, a, b, bias, want, extra, timeout):
    """Runs the Kina kernel on these inputs; max |got - want| / max |want|."""
    import numpy as np
    import torch

    with tempfile.TemporaryDirectory(prefix="kina-fused-") as d:
        paths = []
        for name, t in (("a", a), ("b", b), ("bias", bias)):
            p = os.path.join(d, name + ".npy")
            # bf16 as its raw 16-bit patterns (<u2), as kina reads it.
            np.save(p, t.contiguous().view(torch.int16).cpu().numpy().view(np.uint16))
            paths.append(p)
        m, k = a.shape
        n = b.shape[0]
        cmd = [kina, "run", str(source), "--kernel", kernel, "--dims", f"M={m},N={n},K={k}",
               "--save", d, "--inputs", *paths] + extra
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            return {"error": f"exit {proc.returncode}: {(proc.stderr or proc.stdout)[:400]}"}
        got = np.load(os.path.join(d, kernel, "c.npy")).astype(np.uint32) << 16
        got = torch.from_numpy(got.view(np.float32)).to(want.device)
        w = want.float()
        err = (got - w).abs().max().item() / max(w.abs().max().item(), 1e-30)
        return {"max_rel_err_vs_torch": err, "cmd": " ".join(cmd)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kina", help="path to the kina binary (omit to time only the anchors)")
    ap.add_argument("--stdlib", default=str(ROOT / "stdlib"))
    ap.add_argument("--kina-arg", action="append", default=[])
    ap.add_argument("--out", default=os.environ.get("OUT", str(ROOT / "bench" / "results")))
    ap.add_argument("--quick", action="store_true", help="only 4096^3 and 8192x8192x1024")
    ap.add_argument("--check", action="store_true", help="check Kina against torch at one shape")
    ap.add_argument("--persistent", action="store_true",
                    help="time the persistent TMA-store kernels (stdlib/*_persistent_bias_*)")
    ap.add_argument("--cluster", action="store_true",
                    help="time the 2x1-cluster multicast kernels (stdlib/*_cluster_bias_*)")
    ap.add_argument("--kernel", action="append", default=[], metavar="ACT[@SHAPE]=NAME",
                    help="time this kernel for relu or gelu (after --family); with @SHAPE "
                         "(a shape label, e.g. 8192x8192x1024) only at that shape")
    ap.add_argument("--also", action="append", default=[], metavar="ACT=NAME",
                    help="also time this kernel for relu or gelu at every shape, listed "
                         "beside the table's kernel (the table keeps --kernel's)")
    ap.add_argument("--family", help="time stdlib/gemm_bf16_hopper_FAMILY_bias_{relu,gelu} "
                                     "(e.g. pingpong, pingpong_cluster)")
    ap.add_argument("--timeout", type=int, default=600)
    args = ap.parse_args()

    import torch
    import torch.nn.functional as F
    from triton.testing import do_bench

    if not torch.cuda.is_available():
        print("SKIP: no CUDA device (torch.cuda.is_available() is False)")
        return 77
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    dev = torch.cuda.get_device_properties(0)
    env = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "host": platform.node(), "gpu": dev.name, "torch": torch.__version__,
        "cuda": torch.version.cuda, "kina": None,
        "timing": "median us; do_bench(warmup=25, rep=100, return_mode='median') for torch; "
                  "kina run --bench for Kina (L2 flushed in both)",
        "dtypes": "bf16 inputs and bias, f32 accumulate, bf16 output",
    }
    if args.kina:
        try:
            env["kina"] = subprocess.run([args.kina, "--version"], capture_output=True, text=True,
                                         timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError) as e:
            env["kina"] = f"unavailable: {e}"

    if args.persistent:
        KERNELS.clear()
        KERNELS.update(PERSISTENT_KERNELS)
    if args.cluster:
        KERNELS.clear()
        KERNELS.update(CLUSTER_KERNELS)
    if args.family:
        KERNELS.clear()
        KERNELS.update({act: f"gemm_bf16_hopper_{args.family}_bias_{act}" for act in ("relu", "gelu")})
    picks = {}  # (shape label, act) -> kernel
    for spec in args.kernel:
        act, name = spec.split("=", 1)
        if "@" in act:
            act, shape = act.split("@", 1)
            picks[(shape, act)] = name
        else:
            KERNELS[act] = name
    also = [tuple(spec.split("=", 1)) for spec in args.also]
    env["kernels"] = dict(KERNELS)
    if picks:
        env["kernels at shapes"] = {f"{s} {a}": k for (s, a), k in picks.items()}
    shapes = SHAPES[:2] if args.quick else SHAPES
    rows = []
    checked = False
    for label, m, n, k in shapes:
        torch.manual_seed(0)
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        w = b.t()
        row = {"shape": label, "M": m, "N": n, "K": k}

        def us(fn):
            return 1000.0 * do_bench(fn, warmup=25, rep=100, return_mode="median")

        row["mm_us"] = us(lambda: a @ w)
        row["addmm_act_relu_us"] = us(lambda: torch._addmm_activation(bias, a, w))
        row["addmm_act_gelu_us"] = us(lambda: torch._addmm_activation(bias, a, w, use_gelu=True))
        row["linear_relu_us"] = us(lambda: torch.relu(F.linear(a, b, bias)))
        row["linear_gelu_us"] = us(lambda: F.gelu(F.linear(a, b, bias), approximate="tanh"))
        for act, default in KERNELS.items():
            if not args.kina:
                continue
            kernel = picks.get((label, act), default)
            row[f"kina_{act}_kernel"] = kernel
            source = find_kina_kernel(args.stdlib, kernel)
            if source is None:
                row[f"kina_{act}_error"] = f"kernel {kernel} not found under {args.stdlib}"
                continue
            res = run_kina(args.kina, source, kernel, m, n, k, args.kina_arg, args.timeout)
            if "error" in res:
                row[f"kina_{act}_error"] = res["error"]
                continue
            t = 1000.0 * res["ms"]
            row[f"kina_{act}_us"] = t
            row[f"kina_{act}_tflops"] = tflops(m, n, k, res["ms"])
            row[f"kina_{act}_vs_addmm_act"] = row[f"addmm_act_{act}_us"] / t
            row[f"kina_{act}_vs_linear_{act}"] = row[f"linear_{act}_us"] / t
            if args.check and not checked:
                want = (torch._addmm_activation(bias, a, w) if act == "relu" else
                        torch._addmm_activation(bias, a, w, use_gelu=True))
                row[f"kina_{act}_check"] = check_kina(args.kina, source, kernel, a, b, bias, want,
                                                      args.kina_arg, args.timeout)
        for act, kernel in also if args.kina else []:
            source = find_kina_kernel(args.stdlib, kernel)
            res = ({"error": f"kernel {kernel} not found"} if source is None else
                   run_kina(args.kina, source, kernel, m, n, k, args.kina_arg, args.timeout))
            entry = {"act": act, "kernel": kernel}
            if "error" in res:
                entry["error"] = res["error"]
            else:
                entry["us"] = 1000.0 * res["ms"]
                entry["vs_addmm_act"] = row[f"addmm_act_{act}_us"] / entry["us"]
            row.setdefault("also", []).append(entry)
        checked = checked or args.check
        rows.append(row)
        print(format_row(row), flush=True)
        del a, b, bias, w
        torch.cuda.empty_cache()

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "gemm-fused-results.json").write_text(json.dumps({"env": env, "rows": rows}, indent=2)
                                                 + "\n")
    (out / "gemm-fused-results.md").write_text(markdown(env, rows))
    print(f"\nwrote {out / 'gemm-fused-results.json'} and {out / 'gemm-fused-results.md'}")
    return 0


def fmt(value, spec):
    return format(value, spec) if isinstance(value, (int, float)) else "—"


def format_row(r):
    s = (f"{r['shape']:30} mm {fmt(r.get('mm_us'), '8.1f')}  "
         f"addmm_act relu {fmt(r.get('addmm_act_relu_us'), '8.1f')} gelu "
         f"{fmt(r.get('addmm_act_gelu_us'), '8.1f')}  linear+relu "
         f"{fmt(r.get('linear_relu_us'), '8.1f')} +gelu {fmt(r.get('linear_gelu_us'), '8.1f')}  "
         f"Kina relu {fmt(r.get('kina_relu_us'), '8.1f')} "
         f"({fmt(r.get('kina_relu_vs_addmm_act'), '4.2f')}x, "
         f"{fmt(r.get('kina_relu_vs_linear_relu'), '4.2f')}x) gelu "
         f"{fmt(r.get('kina_gelu_us'), '8.1f')} ({fmt(r.get('kina_gelu_vs_addmm_act'), '4.2f')}x)")
    for e in r.get("also", []):
        s += (f"\n    also {e['act']} {e['kernel']}: " +
              (e["error"][:120] if "error" in e else
               f"{e['us']:.1f} us ({e['vs_addmm_act']:.2f}x addmm_act)"))
    for act in KERNELS:
        if r.get(f"kina_{act}_error"):
            s += f"  [kina {act}: {r[f'kina_{act}_error'][:120]}]"
        if r.get(f"kina_{act}_check"):
            s += f"  [check {act}: {r[f'kina_{act}_check']}]"
    return s


def markdown(env, rows):
    lines = ["# Fused GEMM epilogues: Kina vs cuBLASLt (bf16, H200)", ""]
    for key in ("date", "gpu", "cuda", "torch", "kina", "kernels", "kernels at shapes", "timing",
                "dtypes"):
        lines.append(f"- **{key}**: {env.get(key)}")
    lines += ["", "Times in µs (lower is better); speedups are the anchor's time over Kina's.", "",
              "| shape | mm | addmm_act relu | linear+relu (2) | Kina relu | vs addmm_act | "
              "vs linear+relu | addmm_act gelu | linear+gelu (2) | Kina gelu | vs addmm_act |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {r['shape']} | {fmt(r.get('mm_us'), '.1f')} | "
            f"{fmt(r.get('addmm_act_relu_us'), '.1f')} | {fmt(r.get('linear_relu_us'), '.1f')} | "
            f"{fmt(r.get('kina_relu_us'), '.1f')} | {fmt(r.get('kina_relu_vs_addmm_act'), '.2f')} | "
            f"{fmt(r.get('kina_relu_vs_linear_relu'), '.2f')} | "
            f"{fmt(r.get('addmm_act_gelu_us'), '.1f')} | {fmt(r.get('linear_gelu_us'), '.1f')} | "
            f"{fmt(r.get('kina_gelu_us'), '.1f')} | {fmt(r.get('kina_gelu_vs_addmm_act'), '.2f')} |")
    lines += ["", "Kernels: " + "; ".join(
        f"{r['shape']} {act} `{r[f'kina_{act}_kernel']}`" for r in rows for act in KERNELS
        if r.get(f"kina_{act}_kernel"))]
    extra = [(r["shape"], e) for r in rows for e in r.get("also", [])]
    if extra:
        lines += ["", "Also timed in this run (not in the table):", "",
                  "| shape | act | kernel | us | vs addmm_act |", "|---|---|---|---:|---:|"]
        lines += [f"| {s} | {e['act']} | `{e['kernel']}` | {fmt(e.get('us'), '.1f')} | "
                  f"{fmt(e.get('vs_addmm_act'), '.2f')} |" for s, e in extra]
    notes = [(r["shape"], act, r[f"kina_{act}_error"]) for r in rows for act in KERNELS
             if r.get(f"kina_{act}_error")]
    notes += [(r["shape"], act, json.dumps(r[f"kina_{act}_check"])) for r in rows
              for act in KERNELS if r.get(f"kina_{act}_check")]
    if notes:
        lines += ["", "Kina notes:", ""] + [f"- {s} {a}: {t}" for s, a, t in notes]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
