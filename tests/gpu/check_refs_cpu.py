#!/usr/bin/env python3
"""The GPU suite's oracle, checked without a GPU: every kernel that
tests/gpu/run.sh runs (stdlib and tests/gpu/constructs) is run through the
tile-IR interpreter (`kina run --interpret --save`) at its small sizes, and the
result is compared with the kernel's independent NumPy reference
(compare_ref.py). A wrong reference, a wrong interpreter, a kernel without a
reference or with fewer than 3 sizes is a failure here, before any GPU run.

    check_refs_cpu.py --kina PATH [--refs DIR] [--sizes FILE] [--only KERNEL ...]

Ends with `N passed, N failed, N skipped`; exit status 1 on any failure.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kernels as discovery  # noqa: E402


def volume(dims):
    v = 1
    for part in dims.split(","):
        if "=" in part:
            v *= int(part.split("=", 1)[1])
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kina", required=True)
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(HERE)))
    ap.add_argument("--refs", default=os.path.join(HERE, "refs"))
    ap.add_argument("--sizes", default=os.path.join(HERE, "sizes.txt"))
    ap.add_argument("--only", nargs="*", help="only these kernels")
    ap.add_argument("--timeout", type=int, default=300)
    args = ap.parse_args()

    rows = discovery.discover(args.root, args.sizes)
    by_kernel = {}
    for path, k, dims, flag in rows:
        by_kernel.setdefault((path, k), []).append((dims, flag))
    passed = failed = 0
    failures = []

    def result(ok, name, detail=""):
        nonlocal passed, failed
        print(f"{'PASS' if ok else 'FAIL'} {name}{' (' + detail + ')' if detail else ''}", flush=True)
        if ok:
            passed += 1
        else:
            failed += 1
            failures.append(name)

    with tempfile.TemporaryDirectory(prefix="kina-refs-") as tmp:
        for (path, k), sizes in by_kernel.items():
            if args.only and k not in args.only:
                continue
            rel = os.path.relpath(path, args.root)
            if sizes[0][0] == "?":
                result(False, f"{k}: sizes", f"no size for {k} ({rel}) in sizes.txt or a `// gpu-size:` line")
                continue
            if sizes[0][0] != "-" and len(sizes) < 3:
                result(False, f"{k}: sizes", f"{len(sizes)} size(s), the GPU suite needs >= 3")
            # The sizes marked `small`, else the smallest one: the interpreter is slow.
            chosen = [d for d, f in sizes if f == "small"] or [min((d for d, _ in sizes), key=volume)]
            for dims in chosen:
                name = f"{k} --dims {dims} --interpret vs reference"
                save = os.path.join(tmp, k + "-" + dims.replace(",", "_").replace("=", ""))
                cmd = [args.kina, "run", path, "--kernel", k, "--interpret", "--save", save]
                if dims != "-":
                    cmd += ["--dims", dims]
                try:
                    run = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
                except subprocess.TimeoutExpired:
                    result(False, name, f"kina run timed out after {args.timeout}s")
                    continue
                if run.returncode != 0:
                    print("    $ " + " ".join(cmd))
                    print("    " + (run.stdout + run.stderr).strip().replace("\n", "\n    "))
                    result(False, name, f"kina run exited {run.returncode}")
                    continue
                cmp = subprocess.run([sys.executable, os.path.join(HERE, "compare_ref.py"),
                                      os.path.join(save, k), "--refs", args.refs],
                                     capture_output=True, text=True, timeout=args.timeout)
                out = (cmp.stdout + cmp.stderr).strip()
                print("    " + out.replace("\n", "\n    "))
                result(cmp.returncode == 0, name, "" if cmp.returncode == 0 else f"compare_ref exited {cmp.returncode}")
    if not by_kernel:
        result(False, "discovery", "no kernels found")
    print()
    for f in failures:
        print(f"  FAILED: {f}")
    print(f"{passed} passed, {failed} failed, 0 skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
