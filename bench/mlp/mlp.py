#!/usr/bin/env python3
"""bench/mlp/mlp.py: the MLP forward of issue 16 (Linear+bias -> GELU(tanh) ->
Linear+bias, M = 4096, D = 4096, H = 16384, bf16) in one run:

  * Kina: `kina run tests/gpu/host/mlp.kina --fn mlp --bench` (pass A's plan,
    its kernel launches timed with CUDA events, inputs already on the device);
  * PyTorch eager (F.linear, F.gelu(approximate="tanh"), F.linear);
  * torch.compile(mode="max-autotune"), compiled in a child process with a
    time cap (MAX_AUTOTUNE_TIMEOUT, default 300 s) and a persistent Inductor
    cache under OUT, so a second run reuses the tuned kernels.

Timings: median of CUDA-event timings after warm-up, L2 flushed before each
run (a 256 MiB write), as `kina run --bench` does. Prints one table and
writes OUT/mlp-bench.json. Usage (on the H200):

  KINA=/tmp/kina-bin/kina python3 bench/mlp/mlp.py   [--quick: M = 1024]
"""
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KINA = os.environ.get("KINA", "/tmp/kina-bin/kina")
OUT = os.environ.get("OUT", "/tmp/kina-out")
QUICK = "--quick" in sys.argv
M, D, H = (1024 if QUICK else 4096), 4096, 16384


def torch_times(mode):
    import torch
    import torch.nn.functional as F
    torch.manual_seed(0)
    dev, dt = "cuda", torch.bfloat16
    x = torch.randn(M, D, device=dev, dtype=dt)
    w1 = torch.randn(H, D, device=dev, dtype=dt) * D ** -0.5
    b1 = torch.randn(H, device=dev, dtype=dt) * 0.1
    w2 = torch.randn(D, H, device=dev, dtype=dt) * H ** -0.5
    b2 = torch.randn(D, device=dev, dtype=dt) * 0.1

    def mlp(x, w1, b1, w2, b2):
        return F.linear(F.gelu(F.linear(x, w1, b1), approximate="tanh"), w2, b2)

    fn = mlp
    t0 = time.time()
    if mode == "max-autotune":
        fn = torch.compile(mlp, mode="max-autotune")
        fn(x, w1, b1, w2, b2)
        torch.cuda.synchronize()
    compile_s = time.time() - t0
    flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
    for _ in range(10):
        fn(x, w1, b1, w2, b2)
    times = []
    for _ in range(50):
        flush.zero_()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn(x, w1, b1, w2, b2)
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b) * 1e3)
    times.sort()
    # Kernel launches of one forward, from the profiler.
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn(x, w1, b1, w2, b2)
        torch.cuda.synchronize()
    kernels = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
    return {"median_us": times[len(times) // 2], "min_us": times[0], "kernels": kernels,
            "compile_s": compile_s}


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(torch_times(sys.argv[2])))
        return
    os.makedirs(OUT, exist_ok=True)
    res = {"shape": {"M": M, "D": D, "H": H}, "dtype": "bf16"}
    env = dict(os.environ, KINA_STDLIB=os.path.join(ROOT, "stdlib"))
    if "KINA_CUBLASLT" not in env:  # PyTorch's nvidia-cublas wheel
        import glob
        import site
        dirs = site.getsitepackages() + [site.getusersitepackages()]
        found = sorted(q for d in dirs for q in glob.glob(d + "/nvidia/*/lib/libcublasLt.so*"))
        if found:
            env["KINA_CUBLASLT"] = found[-1]
    k = subprocess.run([KINA, "run", os.path.join(ROOT, "tests/gpu/host/mlp.kina"), "--fn", "mlp",
                        "--dims", "M=%d,D=%d,H=%d" % (M, D, H), "--bench"],
                       capture_output=True, text=True, env=env, timeout=600)
    print(k.stdout + k.stderr)
    m = re.search(r"bench: device steps \((\d+) kernel launch\(es\)\) median ([0-9.]+) us, min ([0-9.]+)", k.stdout)
    res["kina"] = {"median_us": float(m.group(2)), "min_us": float(m.group(3)),
                   "kernels": int(m.group(1))} if m else {"error": (k.stdout + k.stderr)[-2000:]}
    res["eager"] = torch_times("eager")
    cache = os.path.join(OUT, "inductor-cache")
    cenv = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache, TORCHINDUCTOR_FX_GRAPH_CACHE="1",
                TORCHINDUCTOR_AUTOGRAD_CACHE="1")
    cap = int(os.environ.get("MAX_AUTOTUNE_TIMEOUT", "300"))
    try:
        c = subprocess.run([sys.executable, __file__, "--child", "max-autotune"] + (["--quick"] if QUICK else []),
                           capture_output=True, text=True, env=cenv, timeout=cap)
        last = [l for l in c.stdout.splitlines() if l.startswith("{")]
        res["max-autotune"] = json.loads(last[-1]) if last else {"error": c.stderr[-2000:]}
    except subprocess.TimeoutExpired:
        res["max-autotune"] = {"error": "compile exceeded %d s (MAX_AUTOTUNE_TIMEOUT); rerun to use the cache" % cap}
    print("%-14s %12s %10s %8s" % ("", "median us", "min us", "kernels"))
    for name in ("kina", "eager", "max-autotune"):
        r = res[name]
        if "median_us" in r:
            print("%-14s %12.1f %10.1f %8d" % (name, r["median_us"], r["min_us"], r["kernels"]))
        else:
            print("%-14s %s" % (name, r["error"].splitlines()[-1] if r["error"] else "error"))
    if "median_us" in res["kina"]:
        for ref in ("eager", "max-autotune"):
            if "median_us" in res[ref]:
                print("kina vs %s: %.2fx (>= 1.0 is faster or equal)" % (ref, res[ref]["median_us"] / res["kina"]["median_us"]))
    with open(os.path.join(OUT, "mlp-bench.json"), "w") as f:
        json.dump(res, f, indent=2)


if __name__ == "__main__":
    main()
