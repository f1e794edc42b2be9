#!/usr/bin/env python3
"""Flash attention forward (issue 14 part 7): Kina's stdlib/attention_fwd_bf16.kina
against PyTorch's scaled_dot_product_attention with the flash backend and
the cuDNN backend, in one run.

For each shape (batch B, heads H, sequence S, head dim D), causal and not,
BF16 q, k, v of layout [B, H, S, D] (Kina's [B*H, S, D] is the same memory),
it times in the same process:
  * flash: sdpa_kernel(SDPBackend.FLASH_ATTENTION) (FlashAttention-2, what
    PyTorch runs by default for BF16 on the H200);
  * cudnn: sdpa_kernel(SDPBackend.CUDNN_ATTENTION) (reported beside it);
  * Kina:  `kina run stdlib/attention_fwd_bf16.kina --kernel
    attention_fwd[_causal]_bf16_d{64,128} --dims BH=..,S=.. --bench --json`.
torch is timed with triton.testing.do_bench (median, L2 flushed; warmup 25,
rep 100) when Triton is installed, else CUDA events (median of 50 after 10
warm-up runs); Kina's --bench is the median of >= 20 CUDA-event runs with
L2 flushed. TFLOP/s count 4 B H S^2 D (half of it when causal). The goal
is Kina >= 0.8x flash. --check also runs each Kina kernel once at the first
shape on torch's inputs (`kina run --inputs`) against the math backend.

Run on the GPU machine from the repository root:
    python3 bench/attention/attention.py --kina ./kina [--quick] [--check] [--variants]
Writes $OUT/attention-results.json and .md ($OUT defaults to bench/results/).
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
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "bench" / "gemm"))
from anchors import find_key  # noqa: E402

SOURCE = ROOT / "stdlib" / "attention_fwd_bf16.kina"
# --variants: other tilings, timed beside the stdlib kernel of their head
# dim and mask: (file, kernel, D, causal).
VARIANTS = [
    (HERE / "variants" / "attention_fwd_bf16_d128_n32.kina", "attention_fwd_bf16_d128_n32", 128, False),
    (HERE / "variants" / "attention_fwd_causal_bf16_d64_w32.kina", "attention_fwd_causal_bf16_d64_w32",
     64, True),
    (HERE / "variants" / "attention_fwd_bf16_d128_w8.kina", "attention_fwd_bf16_d128_w8", 128, False),
    (HERE / "variants" / "attention_fwd_causal_bf16_d128_w32n32.kina",
     "attention_fwd_causal_bf16_d128_w32n32", 128, True),
]
SHAPES = [  # (label, B, H, S)
    ("B8 H16 S1024", 8, 16, 1024),
    ("B4 H16 S4096", 4, 16, 4096),
]
QUICK = SHAPES[:1]


def kernel_name(d, causal):
    return f"attention_fwd{'_causal' if causal else ''}_bf16_d{d}"


def flops(b, h, s, d, causal):
    return 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)


def run_kina_bench(kina, kernel, bh, s, extra, timeout, source=SOURCE):
    cmd = [kina, "run", str(source), "--kernel", kernel, "--dims", f"BH={bh},S={s}",
           "--bench", "--json"] + extra
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (subprocess.TimeoutExpired, OSError) as e:
        return {"error": str(e), "cmd": " ".join(cmd)}
    text = proc.stdout.strip()
    data = None
    for candidate in [text] + text.splitlines()[::-1]:
        try:
            data = json.loads(candidate)
            break
        except ValueError:
            continue
    if proc.returncode != 0 or data is None:
        return {"error": (f"exit {proc.returncode}: " + (proc.stderr or proc.stdout).strip())[:600],
                "cmd": " ".join(cmd)}
    ms = find_key(data, ["median_ms", "medianMs", "time_ms", "ms"])
    if ms is None:
        return {"error": "no median_ms in kina's JSON: " + text[:300], "cmd": " ".join(cmd)}
    return {"ms": ms, "cmd": " ".join(cmd)}


def check_kina(kina, kernel, q, k, v, causal, extra, timeout):
    """Kina on torch's inputs vs SDPA math (float32): max error / max |ref|."""
    import numpy as np
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    b, h, s, d = q.shape
    with tempfile.TemporaryDirectory(prefix="kina-attn-") as tmp:
        paths = []
        for name, t in (("q", q), ("k", k), ("v", v)):
            p = os.path.join(tmp, name + ".npy")
            np.save(p, t.reshape(b * h, s, d).contiguous().view(torch.int16).cpu().numpy()
                    .view(np.uint16))
            paths.append(p)
        cmd = [kina, "run", str(SOURCE), "--kernel", kernel, "--dims", f"BH={b * h},S={s}",
               "--save", tmp, "--inputs", *paths] + extra
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            return {"error": f"exit {proc.returncode}: {(proc.stderr or proc.stdout)[:400]}"}
        got = np.load(os.path.join(tmp, kernel, "out.npy")).astype(np.uint32) << 16
        got = torch.from_numpy(got.view(np.float32)).to(q.device).reshape(b, h, s, d)
    with sdpa_kernel(SDPBackend.MATH):
        want = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)
    err = (got - want).abs().max().item() / max(want.abs().max().item(), 1e-30)
    return {"max_rel_err_vs_sdpa_math": err, "nan": int(torch.isnan(got).sum().item())}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kina", help="path to the kina binary (omit to time only PyTorch)")
    ap.add_argument("--kina-arg", action="append", default=[])
    ap.add_argument("--out", default=os.environ.get("OUT", str(ROOT / "bench" / "results")))
    ap.add_argument("--quick", action="store_true", help="only the first shape")
    ap.add_argument("--check", action="store_true", help="check Kina against SDPA math at the first shape")
    ap.add_argument("--dims", default="64,128", help="head dims to run (comma separated)")
    ap.add_argument("--variants", action="store_true",
                    help="also time bench/attention/variants/*.kina (VARIANTS)")
    ap.add_argument("--timeout", type=int, default=300)
    args = ap.parse_args()

    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    if not torch.cuda.is_available():
        print("SKIP: no CUDA device (torch.cuda.is_available() is False)")
        return 77
    try:
        from triton.testing import do_bench

        def ms_of(fn):
            return do_bench(fn, warmup=25, rep=100, return_mode="median")
        timing = "do_bench(warmup=25, rep=100, median)"
    except ImportError:
        def ms_of(fn):
            for _ in range(10):
                fn()
            times = []
            for _ in range(50):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                fn()
                b.record()
                b.synchronize()
                times.append(a.elapsed_time(b))
            return sorted(times)[len(times) // 2]
        timing = "CUDA events, median of 50"
    dev = torch.cuda.get_device_properties(0)
    env = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "host": platform.node(), "gpu": dev.name, "torch": torch.__version__,
        "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(), "kina": None,
        "timing": f"median ms; {timing} for torch; kina run --bench for Kina",
        "dtypes": "bf16 q, k, v, out; f32 softmax statistics",
    }
    if args.kina:
        try:
            env["kina"] = subprocess.run([args.kina, "--version"], capture_output=True, text=True,
                                         timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError) as e:
            env["kina"] = f"unavailable: {e}"
    rows = []
    head_dims = [int(x) for x in args.dims.split(",")]
    for si, (label, b, h, s) in enumerate(QUICK if args.quick else SHAPES):
        for d in head_dims:
            torch.manual_seed(0)
            q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
            for causal in (False, True):
                row = {"shape": label, "B": b, "H": h, "S": s, "D": d, "causal": causal}
                fl = flops(b, h, s, d, causal)
                for name, backend in (("flash", SDPBackend.FLASH_ATTENTION),
                                      ("cudnn", SDPBackend.CUDNN_ATTENTION)):
                    try:
                        with sdpa_kernel(backend):
                            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                            t = ms_of(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
                        row[f"{name}_ms"] = t
                        row[f"{name}_tflops"] = fl / (t * 1e-3) / 1e12
                    except RuntimeError as e:
                        row[f"{name}_error"] = str(e)[:200]
                if args.kina:
                    kernel = kernel_name(d, causal)
                    res = run_kina_bench(args.kina, kernel, b * h, s, args.kina_arg, args.timeout)
                    row["kina_cmd"] = res["cmd"]
                    if "error" in res:
                        row["kina_error"] = res["error"]
                    else:
                        row["kina_ms"] = res["ms"]
                        row["kina_tflops"] = fl / (res["ms"] * 1e-3) / 1e12
                        for ref in ("flash", "cudnn"):
                            if f"{ref}_ms" in row:
                                row[f"kina_vs_{ref}"] = row[f"{ref}_ms"] / res["ms"]
                    if args.check and si == 0:
                        row["kina_check"] = check_kina(args.kina, kernel, q, k, v, causal,
                                                       args.kina_arg, args.timeout)
                    for vfile, vkernel, vd, vcausal in VARIANTS if args.variants else []:
                        if (vd, vcausal) != (d, causal):
                            continue
                        res = run_kina_bench(args.kina, vkernel, b * h, s, args.kina_arg,
                                             args.timeout, source=vfile)
                        if "error" in res:
                            row[f"variant_{vkernel}_error"] = res["error"]
                        else:
                            row[f"variant_{vkernel}_tflops"] = fl / (res["ms"] * 1e-3) / 1e12
                            if "flash_ms" in row:
                                row[f"variant_{vkernel}_vs_flash"] = row["flash_ms"] / res["ms"]
                rows.append(row)
                print(format_row(row), flush=True)
            del q, k, v
            torch.cuda.empty_cache()

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "attention-results.json").write_text(json.dumps({"env": env, "rows": rows}, indent=2) + "\n")
    (out / "attention-results.md").write_text(markdown(env, rows))
    print(f"\nwrote {out / 'attention-results.json'} and {out / 'attention-results.md'}")
    return 0


def fmt(value, spec):
    return format(value, spec) if isinstance(value, (int, float)) else "—"


def format_row(r):
    s = (f"{r['shape']:14} D{r['D']:<4} {'causal' if r['causal'] else 'full  '}  "
         f"flash {fmt(r.get('flash_tflops'), '6.1f')}  cuDNN {fmt(r.get('cudnn_tflops'), '6.1f')}  "
         f"Kina {fmt(r.get('kina_tflops'), '6.1f')} TFLOP/s  Kina/flash "
         f"{fmt(r.get('kina_vs_flash'), '5.2f')}  Kina/cuDNN {fmt(r.get('kina_vs_cudnn'), '5.2f')}")
    for key in ("flash_error", "cudnn_error", "kina_error"):
        if r.get(key):
            s += f"  [{key}: {r[key][:160]}]"
    for key, value in r.items():
        if key.startswith("variant_") and key.endswith("_tflops"):
            name = key[len("variant_"):-len("_tflops")]
            s += f"  [{name} {value:.1f} TFLOP/s, {fmt(r.get(f'variant_{name}_vs_flash'), '.2f')}x flash]"
        elif key.startswith("variant_") and key.endswith("_error"):
            s += f"  [{key}: {str(value)[:160]}]"
    if r.get("kina_check"):
        s += f"  [check: {r['kina_check']}]"
    return s


def markdown(env, rows):
    lines = ["# Flash attention forward: Kina vs PyTorch SDPA (flash, cuDNN)", ""]
    for key, value in env.items():
        lines.append(f"- {key}: {value}")
    lines += ["", "| shape | D | causal | flash TFLOP/s | cuDNN TFLOP/s | Kina TFLOP/s | Kina/flash | Kina/cuDNN |",
              "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['shape']} | {r['D']} | {'yes' if r['causal'] else 'no'} | "
                     f"{fmt(r.get('flash_tflops'), '.1f')} | {fmt(r.get('cudnn_tflops'), '.1f')} | "
                     f"{fmt(r.get('kina_tflops'), '.1f')} | {fmt(r.get('kina_vs_flash'), '.2f')} | "
                     f"{fmt(r.get('kina_vs_cudnn'), '.2f')} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
