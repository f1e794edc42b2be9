#!/usr/bin/env python3
"""Hopper protocol mutation suite (issue 12 acceptance).

Applies every mutant of mutants.py (and mutants_*.py, for held-out sets) to
its base kernel and runs `kina check --target sm_90a` on it. A mutant is
KILLED when kina exits 1 with the expected diagnostic code on the expected
line; rejected elsewhere or with another code only it is MISPLACED (a
failure: the issue asks for each mutant rejected at its line); accepted, it
SURVIVED. A mutant marked `fix=True` must also check clean after the fix-its
of its expected diagnostic are applied. Every ACCEPT variant (and each base
kernel) must check clean. A crash (any other exit status) is a failure.

    hopper mutation: KILLED/TOTAL
    N passed, N failed, 0 skipped

Usage: run.py --kina PATH [--jobs N] [--target sm_90a] [-v]
Exit status 0 when every mutant is killed and every variant accepted.
"""
import argparse
import concurrent.futures
import glob
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ERROR = re.compile(r":(\d+):(\d+): error\[(K\d{4})\]")


def load_sets():
    mutants, accept = [], []
    for path in sorted(glob.glob(os.path.join(HERE, "mutants*.py"))):
        spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        mutants += getattr(mod, "MUTANTS", [])
        accept += getattr(mod, "ACCEPT", [])
    return mutants, accept


def apply(entry):
    with open(os.path.join(HERE, entry["base"]), encoding="utf-8") as f:
        text = f.read()
    for find, replace in entry["edits"]:
        count = text.count(find)
        if count != 1:
            raise ValueError(f"{entry['name']}: `{find.strip()[:60]}` occurs {count} times")
        text = text.replace(find, replace)
    return text


def expected_line(entry, text):
    anchor = entry.get("at")
    if anchor is None:
        replacement = next((r for _, r in entry["edits"] if r.strip()), None)
        if replacement is None:
            raise ValueError(f"{entry['name']}: a deletion needs `at`")
        anchor = replacement.strip().splitlines()[0].strip()
    count = text.count(anchor)
    if count != 1:
        raise ValueError(f"{entry['name']}: anchor `{anchor[:60]}` occurs {count} times")
    return text.count("\n", 0, text.index(anchor) + len(anchor.rstrip("\n"))) + 1


def check(kina, text, name, workdir, target):
    path = os.path.join(workdir, name + ".kina")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    try:
        r = subprocess.run([kina, "check", path, "--target", target], capture_output=True,
                           text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None, "timed out"
    return r.returncode, r.stdout + r.stderr


def fix_check(kina, text, entry, line, workdir, target):
    """Applies the fix-its of the expected diagnostic; the result must check
    clean. Returns None when it does, else what went wrong."""
    import json
    path = os.path.join(workdir, "fix-" + entry["name"] + ".kina")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    r = subprocess.run([kina, "check", path, "--target", target, "--diagnostics-format", "json"],
                       capture_output=True, text=True, timeout=120)
    fixes = []
    for file in json.loads(r.stdout or "[]"):
        for d in file["diagnostics"]:
            if d["code"] == entry["code"] and d["range"]["start"]["line"] + 1 == line:
                fixes += d["fixits"][:1]
    if not fixes:
        return "the diagnostic has no fix-it"
    data = text.encode("utf-8")
    for fx in sorted(fixes, key=lambda x: -x["range"]["startOffset"]):
        a, b = fx["range"]["startOffset"], fx["range"]["endOffset"]
        data = data[:a] + fx["replacement"].encode("utf-8") + data[b:]
    with open(path, "wb") as f:
        f.write(data)
    r = subprocess.run([kina, "check", path, "--target", target], capture_output=True, text=True,
                       timeout=120)
    if r.returncode != 0:
        return "after its fix-it: " + (ERROR.search(r.stdout + r.stderr) and
                                       (r.stdout + r.stderr).strip().splitlines()[0] or str(r.returncode))
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kina", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--target", default="sm_90a")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    mutants, accept = load_sets()
    workdir = tempfile.mkdtemp(prefix="kina-hopper-mutants-")
    jobs = []
    for kind, entries in (("accept", accept), ("mutant", mutants)):
        for e in entries:
            try:
                text = apply(e)
                line = expected_line(e, text) if kind == "mutant" else None
            except ValueError as err:
                print(f"BROKEN   {e['name']}: {err}")
                jobs.append((kind, e, None, None))
                continue
            jobs.append((kind, e, text, line))

    def run(job):
        kind, e, text, _ = job
        if text is None:
            return None, ""
        return check(args.kina, text, kind + "-" + e["name"], workdir, args.target)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(run, jobs))

    killed = failed = total = 0
    for (kind, e, text, line), (rc, out) in zip(jobs, results):
        if text is None:
            failed += 1
            continue
        errors = [(int(m.group(1)), m.group(3)) for m in ERROR.finditer(out)]
        if rc not in (0, 1):
            failed += 1
            print(f"CRASHED  {e['name']}: kina check exited {rc}")
            for l in out.strip().splitlines()[-3:]:
                print("  " + l)
            if kind == "mutant":
                total += 1
            continue
        if kind == "accept":
            if rc != 0:
                failed += 1
                print(f"REJECTED {e['name']} (a correct variant):")
                for l in out.strip().splitlines()[:6]:
                    print("  " + l)
            elif args.verbose:
                print(f"ACCEPTED {e['name']}")
            continue
        total += 1
        if rc == 1 and (line, e["code"]) in errors:
            fixed = fix_check(args.kina, text, e, line, workdir, args.target) if e.get("fix") else None
            if fixed:
                failed += 1
                print(f"BAD FIX  {e['name']}: {fixed}")
                continue
            killed += 1
            if args.verbose:
                print(f"KILLED   {e['name']}: {e['code']} at line {line}"
                      + (" (its fix-it checks clean)" if e.get("fix") else ""))
        elif rc == 1:
            failed += 1
            print(f"MISPLACED {e['name']}: expected {e['code']} at line {line}, got "
                  + ", ".join(f"{c} at {l}" for l, c in errors[:6]))
        else:
            failed += 1
            print(f"SURVIVED {e['name']}: kina check accepted the mutant")
    import shutil
    shutil.rmtree(workdir, ignore_errors=True)
    print(f"hopper mutation: {killed}/{total}; correct variants: {len(accept)}")
    print(f"{killed + len(accept) - sum(1 for (k, _, t, _), (rc, _) in zip(jobs, results) if k == 'accept' and (t is None or rc != 0))} passed, {failed} failed, 0 skipped")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
