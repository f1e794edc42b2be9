#!/usr/bin/env python3
"""LayerNorm / RMSNorm and the Ampere-path GEMMs against PyTorch, in one run
(issue 14 part 7), with a device copy anchor.

Times, on the same shapes and in the same process:
  * copy: y.copy_(x) of the bf16 [M, D] tensor (read + write, the anchor
    the norms are measured against: goal >= 80% of its bandwidth);
  * PyTorch: F.layer_norm (eps 1e-5) and F.rms_norm (eps 1e-6) in bf16;
  * Kina: stdlib/layernorm.kina layernorm_bf16 / layernorm_cp_bf16 /
    layernorm_res_bf16 and stdlib/rmsnorm.kina rmsnorm_bf16 / rmsnorm_cp_bf16 /
    rmsnorm_res_bf16 (register loads / a 16-byte cp.async ring / the ring
    holding the whole row block) through `kina run --bench --json --target
    sm_90a`, and as `selected` the one a host function's norm runs there;
  * unless --norms-only: gelu(addmm(bias, a, b)) against
    stdlib/gemm_bias_gelu_bf16.kina (both GELU forms) and torch.bmm against
    stdlib/gemm_batched.kina, bf16 in and out.
Bandwidth counts the bytes read and written once (2 * M * D * 2 for a norm;
gamma and beta are negligible). PyTorch and the copy are timed with CUDA
events (median of --reps runs after warm-up, L2 flushed before each); Kina's
--bench reports the median of >= 20 event-timed runs with L2 flushed.

On the GPU machine, from the repository root:
    python3 bench/norms/norms.py --kina /tmp/kina-bin/kina [--quick]
Writes $OUT/norms-results.json and .md ($OUT defaults to bench/results/).
Here, without a GPU, it prints SKIP and exits 77.
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "gemm"))
from anchors import find_key  # noqa: E402

NORM_SHAPES = [(4096, 1024), (4096, 4096), (8192, 4096), (4096, 8192)]
QUICK_NORM_SHAPES = [(4096, 4096), (4096, 8192)]
GEMM_SHAPES = [(2048, 2048, 2048), (4096, 4096, 4096)]
BMM_SHAPES = [(16, 1024, 1024, 1024), (64, 512, 512, 512)]


def kina_ms(kina, file, kernel, dims, timeout):
    path = Path(file) if "/" in file else ROOT / "stdlib" / file
    cmd = [kina, "run", str(path), "--kernel", kernel, "--dims", dims,
           "--target", "sm_90a", "--bench", "--json"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError) as e:
        return {"error": str(e), "cmd": " ".join(cmd)}
    data = None
    for cand in [proc.stdout.strip()] + proc.stdout.strip().splitlines()[::-1]:
        try:
            data = json.loads(cand)
            break
        except ValueError:
            continue
    if proc.returncode != 0 or data is None:
        return {"error": f"exit {proc.returncode}: {(proc.stderr or proc.stdout)[:400]}",
                "cmd": " ".join(cmd)}
    ms = find_key(data, ["median_ms", "medianMs", "time_ms", "ms"])
    if ms is None:
        return {"error": "no median_ms in kina's JSON", "cmd": " ".join(cmd)}
    return {"ms": ms, "cmd": " ".join(cmd)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kina", help="path to kina (omit to time only PyTorch)")
    ap.add_argument("--out", default=os.environ.get("OUT", str(ROOT / "bench" / "results")))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--norms-only", action="store_true")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--extra", action="append", default=[], metavar="FILE:KERNEL:ANCHOR",
                    help="also time KERNEL of FILE (a path) against ANCHOR (layer_norm or "
                         "rms_norm), e.g. bench/norms/staging.kina:rms_s3:rms_norm")
    ap.add_argument("--timeout", type=int, default=120)
    args = ap.parse_args()
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        print("SKIP: PyTorch is not installed")
        return 77
    if not torch.cuda.is_available():
        print("SKIP: no CUDA device")
        return 77
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")

    def ms(fn):
        for _ in range(5):
            fn()
        times = []
        for _ in range(args.reps):
            flush.zero_()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            torch.cuda.synchronize()
            times.append(s.elapsed_time(e))
        times.sort()
        return times[len(times) // 2]

    dev = torch.cuda.get_device_properties(0)
    env = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "host": platform.node(), "gpu": dev.name, "torch": torch.__version__,
           "kina": None, "timing": "median ms, L2 flushed (256 MiB memset) before each run"}
    if args.kina:
        env["kina"] = subprocess.run([args.kina, "--version"], capture_output=True,
                                     text=True).stdout.strip()
    rows = []
    for m, d in (QUICK_NORM_SHAPES if args.quick else NORM_SHAPES):
        torch.manual_seed(0)
        x = torch.randn(m, d, device="cuda", dtype=torch.bfloat16)
        g = torch.randn(d, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(d, device="cuda", dtype=torch.bfloat16)
        y = torch.empty_like(x)
        gb = 2 * m * d * 2 / 1e9
        row = {"kind": "norm", "M": m, "D": d}
        row["copy_ms"] = ms(lambda: y.copy_(x))
        row["torch_layer_norm_ms"] = ms(lambda: F.layer_norm(x, (d,), g, b, eps=1e-5))
        if hasattr(F, "rms_norm"):
            row["torch_rms_norm_ms"] = ms(lambda: F.rms_norm(x, (d,), g, eps=1e-6))
        for key in ("copy", "torch_layer_norm", "torch_rms_norm"):
            if key + "_ms" in row:
                row[key + "_tbs"] = gb / row[key + "_ms"]
        if args.kina:
            extra = []
            for spec in args.extra:
                file, kernel, anchor = spec.split(":")
                extra.append((kernel, str(ROOT / file), kernel, "torch_" + anchor))
            for name, file, kernel, anchor in [
                    ("layernorm", "layernorm.kina", "layernorm_bf16", "torch_layer_norm"),
                    ("layernorm_cp", "layernorm.kina", "layernorm_cp_bf16", "torch_layer_norm"),
                    ("rmsnorm", "rmsnorm.kina", "rmsnorm_bf16", "torch_rms_norm"),
                    ("rmsnorm_cp", "rmsnorm.kina", "rmsnorm_cp_bf16", "torch_rms_norm"),
                    ("layernorm_res", "layernorm.kina", "layernorm_res_bf16", "torch_layer_norm"),
                    ("rmsnorm_res", "rmsnorm.kina", "rmsnorm_res_bf16", "torch_rms_norm")] + extra:
                r = kina_ms(args.kina, file, kernel, f"M={m},D={d}", args.timeout)
                if "error" in r:
                    row[f"kina_{name}_error"] = r["error"]
                    continue
                row[f"kina_{name}_ms"] = r["ms"]
                row[f"kina_{name}_tbs"] = gb / r["ms"]
                row[f"kina_{name}_vs_copy"] = row["copy_ms"] / r["ms"]
                if anchor + "_ms" in row:
                    row[f"kina_{name}_vs_torch"] = row[anchor + "_ms"] / r["ms"]
            # What a host function's layernorm/rmsnorm runs (pass A's order:
            # the resident form for 1536 < D <= 4096, the cp.async form for
            # D mod 8 = 0, else the plain one).
            form = "res" if d % 8 == 0 and 1536 < d <= 4096 else "cp" if d % 8 == 0 else ""
            for norm in ("layernorm", "rmsnorm"):
                name = f"{norm}_{form}" if form else norm
                if f"kina_{name}_vs_torch" in row:
                    row[f"kina_{norm}_selected"] = name
                    row[f"kina_{norm}_selected_vs_torch"] = row[f"kina_{name}_vs_torch"]
                    row[f"kina_{norm}_selected_vs_copy"] = row[f"kina_{name}_vs_copy"]
        rows.append(row)
        print(json.dumps(row), flush=True)
        del x, y
    if not args.norms_only:
        for m, n, k in GEMM_SHAPES[:1] if args.quick else GEMM_SHAPES:
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            w = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
            bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
            row = {"kind": "gemm_bias_gelu", "M": m, "N": n, "K": k}
            row["torch_addmm_gelu_ms"] = ms(lambda: F.gelu(torch.addmm(bias, a, w)))
            row["torch_addmm_gelu_tanh_ms"] = ms(
                lambda: F.gelu(torch.addmm(bias, a, w), approximate="tanh"))
            row["torch_addmm_act_gelu_ms"] = ms(
                lambda: torch._addmm_activation(bias, a, w, use_gelu=True))
            if args.kina:
                for kernel, anchor in (("gemm_bias_gelu_bf16", "torch_addmm_gelu"),
                                       ("gemm_bias_gelu_tanh_bf16", "torch_addmm_gelu_tanh")):
                    r = kina_ms(args.kina, "gemm_bias_gelu_bf16.kina", kernel,
                                f"M={m},N={n},K={k}", args.timeout)
                    if "error" in r:
                        row[f"kina_{kernel}_error"] = r["error"]
                        continue
                    row[f"kina_{kernel}_ms"] = r["ms"]
                    row[f"kina_{kernel}_tflops"] = 2 * m * n * k / r["ms"] / 1e9
                    row[f"kina_{kernel}_vs_torch"] = row[anchor + "_ms"] / r["ms"]
            rows.append(row)
            print(json.dumps(row), flush=True)
        for bt, m, n, k in BMM_SHAPES[:1] if args.quick else BMM_SHAPES:
            a = torch.randn(bt, m, k, device="cuda", dtype=torch.bfloat16)
            w = torch.randn(bt, k, n, device="cuda", dtype=torch.bfloat16)
            row = {"kind": "bmm", "B": bt, "M": m, "N": n, "K": k}
            row["torch_bmm_ms"] = ms(lambda: torch.bmm(a, w))
            if args.kina:
                r = kina_ms(args.kina, "gemm_batched.kina", "gemm_batched_bf16",
                            f"B={bt},M={m},N={n},K={k}", args.timeout)
                if "error" in r:
                    row["kina_bmm_error"] = r["error"]
                else:
                    row["kina_bmm_ms"] = r["ms"]
                    row["kina_bmm_tflops"] = 2 * bt * m * n * k / r["ms"] / 1e9
                    row["kina_bmm_vs_torch"] = row["torch_bmm_ms"] / r["ms"]
            rows.append(row)
            print(json.dumps(row), flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "norms-results.json").write_text(json.dumps({"env": env, "rows": rows}, indent=2) + "\n")
    lines = [f"# Norms and Ampere GEMMs ({env['gpu']}, {env['date']})", "", env["timing"], ""]
    for r in rows:
        lines.append("- " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                      for k, v in r.items() if not k.endswith("_error")))
        lines += [f"  - {k}: {v}" for k, v in r.items() if k.endswith("_error")]
    (out / "norms-results.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {out / 'norms-results.json'} and {out / 'norms-results.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
