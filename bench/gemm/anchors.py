#!/usr/bin/env python3
"""GEMM benchmark anchors (issue 5, part 6): cuBLAS and Triton next to Kina.

Times, in one run and on the same shapes, for f16 and bf16 inputs with F32
accumulation:
  * cuBLAS through torch.matmul (reduced-precision reductions disabled, so
    cuBLAS accumulates in F32);
  * Triton: the standard tutorial matmul with a handful of autotune configs
    (F32 accumulator, grouped tile order);
  * Kina: `kina run FILE --kernel K --dims M=..,N=..,K=.. --bench --json`
    when --kina is given.
cuBLAS and Triton are timed with triton.testing.do_bench (median, L2 flushed
before each run). Kina's own --bench reports the median of >= 20 CUDA-event
timed runs after warm-up, also with L2 flushed (kina_runtime EventTimer).

Output dtype: cuBLAS and Triton write C in the input dtype (f16/bf16), the
usual convention. Kina's stdlib GEMMs write F32, as their signatures say. The
extra bytes of C are a few percent of the runtime at these sizes.

Shapes: M=N=K in {1024, 2048, 4096, 8192}, plus two LLM projections:
  * M=4096, N=11008, K=4096 (Llama-2-7B MLP up/gate projection, 4096 tokens);
  * M=8192, N=4096, K=14336 (Llama-3-8B MLP down projection, 8192 tokens).

Run on the GPU machine from the repository root:
    python3 bench/gemm/anchors.py --kina ./kina
Writes $OUT/gemm-results.json and $OUT/gemm-results.md ($OUT defaults to
bench/results/) and prints the table: TFLOP/s and the ratios Kina/cuBLAS and
Kina/Triton.

Kina's JSON: the script reads the median time in ms and TFLOP/s from the
first keys found among median_ms/medianMs/time_ms and
tflops/tflop_s/TFLOPs (searched recursively), and derives TFLOP/s from
2*M*N*K when only the time is there.
"""

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SQUARE = [1024, 2048, 4096, 8192]
LLM_SHAPES = [
    ("llama2-7b mlp up (4096 tok)", 4096, 11008, 4096),
    ("llama3-8b mlp down (8192 tok)", 8192, 4096, 14336),
    ("8192x8192x1024", 8192, 8192, 1024),
]
DTYPES = ["f16", "bf16"]


def shapes(quick):
    sizes = [1024, 4096] if quick else SQUARE
    out = [(f"{n}^3", n, n, n) for n in sizes]
    return out + ([] if quick else LLM_SHAPES)


def tflops(m, n, k, ms):
    return 2.0 * m * n * k / (ms * 1e-3) / 1e12


# ---------------------------------------------------------------- Triton
def make_triton_matmul():
    import triton
    import triton.language as tl

    configs = [
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8},
                      num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8},
                      num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8},
                      num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 32, "GROUP_M": 8},
                      num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 256, "BLOCK_K": 32, "GROUP_M": 8},
                      num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8},
                      num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8},
                      num_stages=4, num_warps=4),
    ]

    @triton.autotune(configs=configs, key=["M", "N", "K"])
    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                      stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                      GROUP_M: tl.constexpr):
        pid = tl.program_id(axis=0)
        num_pid_m = tl.cdiv(M, BLOCK_M)
        num_pid_n = tl.cdiv(N, BLOCK_N)
        num_pid_in_group = GROUP_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
        pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m

        offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
        offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
        b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
            acc = tl.dot(a, b, acc)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        c = acc.to(c_ptr.dtype.element_ty)

        offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, c, mask=c_mask)

    def matmul(a, b, c):
        M, K = a.shape
        _, N = b.shape

        def grid(meta):
            return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)

        matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                            b.stride(1), c.stride(0), c.stride(1))
        return c

    return matmul


# ---------------------------------------------------------------- Kina
def find_kina_kernel(stdlib, name):
    """The stdlib file that defines `kernel NAME`, or None."""
    pattern = re.compile(r"^\s*kernel\s+" + re.escape(name) + r"\b", re.M)
    for path in sorted(Path(stdlib).rglob("*.kina")):
        try:
            if pattern.search(path.read_text(errors="replace")):
                return path
        except OSError:
            pass
    return None


def find_key(obj, names):
    if isinstance(obj, dict):
        for key in names:
            if key in obj and isinstance(obj[key], (int, float)):
                return float(obj[key])
        for value in obj.values():
            found = find_key(value, names)
            if found is not None:
                return found
    elif isinstance(obj, list):
        for value in obj:
            found = find_key(value, names)
            if found is not None:
                return found
    return None


def run_kina(kina, source, kernel, m, n, k, extra, timeout):
    cmd = [kina, "run", str(source), "--kernel", kernel, "--dims", f"M={m},N={n},K={k}",
           "--bench", "--json"] + extra
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout}s", "cmd": " ".join(cmd)}
    except OSError as e:
        return {"error": str(e), "cmd": " ".join(cmd)}
    result = {"cmd": " ".join(cmd), "exit": proc.returncode}
    if proc.returncode == 77:
        result["error"] = "SKIP: " + (proc.stdout + proc.stderr).strip()[:300]
        return result
    text = proc.stdout.strip()
    data = None
    # The JSON document may be the whole stdout or its last line.
    for candidate in [text] + text.splitlines()[::-1]:
        try:
            data = json.loads(candidate)
            break
        except ValueError:
            continue
    if proc.returncode != 0 or data is None:
        result["error"] = (f"exit {proc.returncode}: " + (proc.stderr or proc.stdout).strip())[:600]
        return result
    ms = find_key(data, ["median_ms", "medianMs", "time_ms", "ms"])
    tf = find_key(data, ["tflops", "tflop_s", "TFLOPs", "tflops_per_s"])
    if ms is None and tf is None:
        result["error"] = "no median_ms or tflops in kina's JSON: " + text[:300]
        return result
    # The GEMM's 2 M N K over the median time: a bench must not trust the
    # kernel's own FLOP formula (it counted ping-pong tiles twice once).
    if ms is not None:
        tf = tflops(m, n, k, ms)
    result.update({"ms": ms, "tflops": tf, "raw": data})
    return result


# ---------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kina", help="path to the kina binary (omit to time only the anchors)")
    ap.add_argument("--stdlib", default=str(ROOT / "stdlib"))
    ap.add_argument("--kernel-f16", default="gemm_f16_pipelined",
                    help="Kina stdlib kernel for f16 (default %(default)s)")
    ap.add_argument("--kernel-bf16", default="gemm_bf16_pipelined",
                    help="Kina stdlib kernel for bf16 (default %(default)s)")
    ap.add_argument("--kina-arg", action="append", default=[],
                    help="extra argument for `kina run` (repeatable), e.g. --kina-arg=--target=auto")
    ap.add_argument("--out", default=os.environ.get("OUT", str(ROOT / "bench" / "results")))
    ap.add_argument("--quick", action="store_true", help="only 1024^3 and 4096^3")
    ap.add_argument("--no-triton", action="store_true")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per kina invocation")
    ap.add_argument("--b-layout", choices=["kn", "nk"], default="kn",
                    help="how the Kina kernels take B: kn = b[K, N] (the sm_80 GEMMs), nk = "
                         "b[N, K], K-major (the Hopper GEMMs: c = a * transpose(b)); cuBLAS and "
                         "Triton then multiply by the transposed view of the same b")
    args = ap.parse_args()

    import torch
    import triton
    from triton.testing import do_bench

    if not torch.cuda.is_available():
        print("SKIP: no CUDA device (torch.cuda.is_available() is False)")
        return 77
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.cuda.get_device_properties(0)
    env = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "host": platform.node(),
        "gpu": dev.name,
        "compute_capability": f"{dev.major}.{dev.minor}",
        "sm_count": dev.multi_processor_count,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "triton": triton.__version__,
        "kina": None,
        "timing": "median ms; do_bench(warmup=25, rep=100, return_mode='median') for "
                  "cuBLAS/Triton; kina run --bench for Kina",
        "accumulate": "f32",
        "output_dtype": "cuBLAS/Triton: input dtype; Kina: as the kernel's signature says "
                        "(the sm_80 stdlib GEMMs F32, the Hopper GEMMs the input dtype)",
        "b_layout": args.b_layout,
    }
    try:
        drv = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout.strip()
        env["driver"] = drv.splitlines()[0] if drv else None
    except (OSError, subprocess.SubprocessError):
        env["driver"] = None
    if args.kina:
        try:
            env["kina"] = subprocess.run([args.kina, "--version"], capture_output=True, text=True,
                                         timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError) as e:
            env["kina"] = f"unavailable: {e}"

    triton_mm = None if args.no_triton else make_triton_matmul()
    torch_dtype = {"f16": torch.float16, "bf16": torch.bfloat16}
    rows = []
    for dtype in DTYPES:
        # `NAME` or `NAME,SHAPE=NAME,...`: a kernel per shape label (the tile
        # that bench/gemm/tiles.py measured fastest there), NAME elsewhere.
        spec = (args.kernel_f16 if dtype == "f16" else args.kernel_bf16).split(",")
        by_shape = dict(e.split("=", 1) for e in spec[1:])
        for label, m, n, k in shapes(args.quick):
            kernel = by_shape.get(label, spec[0])
            source = find_kina_kernel(args.stdlib, kernel) if args.kina else None
            torch.manual_seed(0)
            a = torch.randn(m, k, device="cuda", dtype=torch_dtype[dtype])
            if args.b_layout == "nk":
                b = torch.randn(n, k, device="cuda", dtype=torch_dtype[dtype]).t()
            else:
                b = torch.randn(k, n, device="cuda", dtype=torch_dtype[dtype])
            row = {"dtype": dtype, "shape": label, "M": m, "N": n, "K": k,
                   "b_layout": args.b_layout, "kina_kernel": kernel if args.kina else None}

            ms = do_bench(lambda: torch.matmul(a, b), warmup=25, rep=100, return_mode="median")
            row["cublas_ms"], row["cublas_tflops"] = ms, tflops(m, n, k, ms)

            if triton_mm is not None:
                c = torch.empty(m, n, device="cuda", dtype=torch_dtype[dtype])
                triton_mm(a, b, c)  # autotunes once per shape
                ref = torch.matmul(a, b)
                err = (c.float() - ref.float()).abs().max().item()
                scale = ref.float().abs().max().item()
                row["triton_max_rel_err_vs_cublas"] = err / max(scale, 1e-30)
                ms = do_bench(lambda: triton_mm(a, b, c), warmup=25, rep=100,
                              return_mode="median")
                row["triton_ms"], row["triton_tflops"] = ms, tflops(m, n, k, ms)
                del c, ref

            if args.kina:
                if source is None:
                    row["kina_error"] = f"kernel {kernel} not found under {args.stdlib}"
                else:
                    res = run_kina(args.kina, source, kernel, m, n, k, args.kina_arg, args.timeout)
                    row["kina_cmd"] = res.get("cmd")
                    if "error" in res:
                        row["kina_error"] = res["error"]
                    else:
                        row["kina_ms"], row["kina_tflops"] = res["ms"], res["tflops"]
                        row["kina_vs_cublas"] = res["tflops"] / row["cublas_tflops"]
                        if "triton_tflops" in row:
                            row["kina_vs_triton"] = res["tflops"] / row["triton_tflops"]
            rows.append(row)
            print(format_row(row), flush=True)
            del a, b
            torch.cuda.empty_cache()

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "gemm-results.json").write_text(json.dumps({"env": env, "rows": rows}, indent=2) + "\n")
    (out / "gemm-results.md").write_text(markdown(env, rows))
    print(f"\nwrote {out / 'gemm-results.json'} and {out / 'gemm-results.md'}")
    return 0


def fmt(value, spec):
    return format(value, spec) if isinstance(value, (int, float)) else "—"


def format_row(r):
    return (f"{r['dtype']:5} {r['shape']:32} cuBLAS {fmt(r.get('cublas_tflops'), '7.1f')}  "
            f"Triton {fmt(r.get('triton_tflops'), '7.1f')}  Kina {fmt(r.get('kina_tflops'), '7.1f')}"
            f"  Kina/cuBLAS {fmt(r.get('kina_vs_cublas'), '5.2f')}"
            f"  Kina/Triton {fmt(r.get('kina_vs_triton'), '5.2f')}"
            + (f"  [kina: {r['kina_error'][:120]}]" if r.get("kina_error") else ""))


def markdown(env, rows):
    lines = ["# GEMM benchmark: Kina vs cuBLAS vs Triton", ""]
    for key in ("date", "gpu", "compute_capability", "driver", "cuda", "torch", "triton", "kina",
                "timing", "accumulate", "output_dtype"):
        lines.append(f"- **{key}**: {env.get(key)}")
    lines += ["", "TFLOP/s (higher is better); ratios are Kina's TFLOP/s over the anchor's.", "",
              "| dtype | shape | M | N | K | cuBLAS | Triton | Kina | Kina/cuBLAS | Kina/Triton | Kina kernel |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        lines.append(
            f"| {r['dtype']} | {r['shape']} | {r['M']} | {r['N']} | {r['K']} | "
            f"{fmt(r.get('cublas_tflops'), '.1f')} | {fmt(r.get('triton_tflops'), '.1f')} | "
            f"{fmt(r.get('kina_tflops'), '.1f')} | {fmt(r.get('kina_vs_cublas'), '.2f')} | "
            f"{fmt(r.get('kina_vs_triton'), '.2f')} | {r.get('kina_kernel') or '—'} |")
    errors = [r for r in rows if r.get("kina_error")]
    if errors:
        lines += ["", "Kina runs that did not produce a time:", ""]
        lines += [f"- {r['dtype']} {r['shape']}: {r['kina_error']}" for r in errors]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
