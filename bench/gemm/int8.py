#!/usr/bin/env python3
"""int8 GEMM against its anchor (issue 15 part 6): torch._int_mm (cuBLASLt's
int8 "TN" GEMM, I8 x I8 -> I32) next to Kina's stdlib/gemm_i8_tuned.kina
kernels (mma.sync m16n8k32 with 3 and 4 stages, and the dp4a fallback), on
the same shapes. Kina writes c = a @ b.T with b stored [N, K]; torch gets the
same bytes as b_nk.t() (a column-major [K, N], the layout cuBLAS's int8 path
reads), so both read K-major operands.

    python3 bench/gemm/int8.py --kina ./kina [--shapes 4096x4096x4096 ...]
        [--param gemm_i8_tuned=BM=128,BN=256,...] [--out DIR]

torch is timed with triton.testing.do_bench when Triton is there (median, L2
flushed), else with CUDA events (median of 50 after 10 warm-ups); Kina with
`kina run --bench --json` (median of >= 20 CUDA-event runs, L2 flushed).
Prints TOPS (2 M N K / time) and Kina / torch; writes $OUT/int8-results.json.
"""
import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
from anchors import run_kina, tflops  # noqa: E402

KERNELS = ["gemm_i8_tuned", "gemm_i8_tuned_s4", "gemm_i8_dp4a_tuned"]


def time_torch(m, n, k):
    import torch
    a = torch.randint(-8, 8, (m, k), dtype=torch.int8, device="cuda")
    b = torch.randint(-8, 8, (n, k), dtype=torch.int8, device="cuda")
    want = (a.cpu().to(torch.int64) @ b.cpu().to(torch.int64).T).to(torch.int32) if m * n * k <= 1 << 30 else None
    got = torch._int_mm(a, b.t())
    if want is not None and not torch.equal(got.cpu(), want):
        raise SystemExit("torch._int_mm disagrees with the int64 reference")
    fn = lambda: torch._int_mm(a, b.t())  # noqa: E731
    try:
        import triton.testing
        return triton.testing.do_bench(fn, warmup=25, rep=200)
    except ImportError:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for _ in range(10):
            fn()
        ts = []
        for _ in range(50):
            start.record()
            fn()
            end.record()
            end.synchronize()
            ts.append(start.elapsed_time(end))
        return sorted(ts)[len(ts) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kina", required=True)
    ap.add_argument("--shapes", nargs="*", default=["4096x4096x4096", "8192x8192x8192",
                                                     "4096x11008x4096"])
    ap.add_argument("--param", action="append", default=[],
                    help="KERNEL=P=V,... : run KERNEL at that tune point")
    ap.add_argument("--out", default=os.environ.get("OUT", str(ROOT / "bench" / "results")))
    ap.add_argument("--timeout", type=int, default=300)
    args = ap.parse_args()
    params = dict(p.split("=", 1) for p in args.param)
    source = ROOT / "stdlib" / "gemm_i8_tuned.kina"
    rows = []
    for shape in args.shapes:
        m, n, k = (int(x) for x in shape.split("x"))
        row = {"shape": shape}
        try:
            row["torch_ms"] = time_torch(m, n, k)
            row["torch_tops"] = tflops(m, n, k, row["torch_ms"])
        except Exception as e:  # noqa: BLE001 - reported, the Kina rows still run
            row["torch_error"] = str(e)[:300]
        for kern in KERNELS:
            extra = ["--check"] if m * n * k <= 1 << 27 else []
            if kern in params:
                extra += ["--param", params[kern]]
            row[kern] = run_kina(args.kina, source, kern, m, n, k, extra, args.timeout)
            row[kern].pop("raw", None)
        rows.append(row)
        print(f"{shape}: torch._int_mm {row.get('torch_tops', float('nan')):.0f} TOPS"
              + "".join(f", {kern} " + (f"{row[kern]['tflops']:.0f} TOPS"
                                        + (f" ({row[kern]['tflops'] / row['torch_tops']:.2f}x)"
                                           if row.get("torch_tops") else "")
                                        if "tflops" in row[kern] else row[kern].get("error", "?")[:80])
                        for kern in KERNELS), flush=True)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    with open(Path(args.out) / "int8-results.json", "w") as f:
        json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
