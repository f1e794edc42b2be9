"""bench/gemm/clocks.py: SM clock and power while a GEMM runs sustained.

Samples nvidia-smi every 5 ms while (1) `kina run --bench` times a Kina GEMM
(about 125 ms of GPU time with its do_bench-like warm-up) and (2) cuBLAS
(torch.matmul) runs the same shape with do_bench's L2 flush for the same
wall time; prints median SM clock, power and the active throttle reasons in
each phase. Used to tell a slower kernel from a kernel that runs at a lower
clock under the power limit.

    python3 bench/gemm/clocks.py --kina KINA --kernel-file F --kernel K --dims M=..,N=..,K=..
"""
import argparse, json, statistics, subprocess, sys, time, threading


def sampler(rows, stop):
    p = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw,clocks_throttle_reasons.active",
                          "--format=csv,noheader,nounits", "-lms", "5"], stdout=subprocess.PIPE, text=True)
    for line in p.stdout:
        rows.append((time.time(), line.strip()))
        if stop.is_set():
            break
    p.terminate()


def summarize(rows, t0, t1, name):
    sel = [r.split(", ") for t, r in rows if t0 <= t <= t1]
    clocks = [float(s[1]) for s in sel if len(s) >= 4]
    power = [float(s[2]) for s in sel if len(s) >= 4]
    reasons = sorted({s[3] for s in sel if len(s) >= 4})
    if not clocks:
        print(f"{name}: no samples")
        return
    print(f"{name}: {len(clocks)} samples, SM clock median {statistics.median(clocks):.0f} MHz "
          f"(min {min(clocks):.0f}), power median {statistics.median(power):.0f} W (max {max(power):.0f}), "
          f"throttle reasons {reasons}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kina", required=True)
    ap.add_argument("--kernel-file", required=True)
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--dims", required=True)
    a = ap.parse_args()
    import torch
    dims = dict(kv.split("=") for kv in a.dims.split(","))
    m, n, k = int(dims["M"]), int(dims["N"]), int(dims["K"])
    rows, stop = [], threading.Event()
    th = threading.Thread(target=sampler, args=(rows, stop), daemon=True)
    th.start()
    time.sleep(0.5)
    t0 = time.time()
    out = subprocess.run([a.kina, "run", a.kernel_file, "--kernel", a.kernel, "--dims", a.dims,
                          "--target", "sm_90a", "--bench", "--json"], capture_output=True, text=True)
    t1 = time.time()
    d = json.loads(out.stdout)
    r = d["reports"][0] if "reports" in d else d
    print(f"kina {a.kernel} {a.dims}: median {r['bench']['medianMs']*1e3:.1f} us over {r['bench']['iterations']} runs")
    summarize(rows, t0, t1, "  during kina (whole process)")
    time.sleep(0.5)
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16).t()
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    torch.matmul(x, w); torch.cuda.synchronize()
    t2 = time.time()
    times = []
    while time.time() - t2 < 0.25:  # batches of 50, as do_bench queues its runs
        ev = []
        for _ in range(50):
            flush.zero_()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record(); torch.matmul(x, w); e.record()
            ev.append((s, e))
        torch.cuda.synchronize()
        times += [s.elapsed_time(e) for s, e in ev]
    t3 = time.time()
    print(f"cuBLAS: median {statistics.median(times)*1e3:.1f} us over {len(times)} runs "
          f"(first 20: {statistics.median(times[:20])*1e3:.1f} us, last 100: {statistics.median(times[-100:])*1e3:.1f} us)")
    summarize(rows, t2, t3, "  during cuBLAS")
    stop.set()


if __name__ == "__main__":
    sys.exit(main())
