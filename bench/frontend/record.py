#!/usr/bin/env python3
"""Runs kina-bench-frontend several times on a generated 50,000-line file and
writes bench/results/frontend-<date>.md with every run's figures and the load
average before it (the build machine is shared, so single runs mislead). A
`## Notes` section already in that file is kept.

Usage: record.py [BUILD_DIR] [RUNS] [REPS]  (defaults: build, 5, 7)
"""
import datetime, os, pathlib, re, subprocess, sys

root = pathlib.Path(__file__).resolve().parents[2]
if any(a in ("-h", "--help") for a in sys.argv[1:]):
    print(__doc__.strip())
    sys.exit(0)
build = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else root / "build")
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
reps = sys.argv[3] if len(sys.argv) > 3 else "7"
bench = build / "bench" / "frontend" / "kina-bench-frontend"
if not bench.is_file():
    sys.exit(f"record.py: {bench} is not built (usage: record.py [BUILD_DIR] [RUNS] [REPS])")
kina = build / "compiler" / "driver" / "kina"
source = pathlib.Path("/tmp/kina-50k.kina")
subprocess.run([sys.executable, str(root / "bench/frontend/generate.py"), "50000", str(source)],
               check=True, stdout=subprocess.DEVNULL)

rows, raw = [], []
figure = re.compile(r"^(parse\+lower|parse\+check|check-only).*?median ([\d.]+) ms wall, ([\d.]+) ms CPU")
for _ in range(runs):
    load = open("/proc/loadavg").read().split()[0]
    out = subprocess.run([str(bench), str(source), reps], check=True, capture_output=True,
                         text=True).stdout
    raw.append(f"load {load}\n{out}")
    got = {m.group(1): (float(m.group(2)), float(m.group(3)))
           for m in map(figure.match, out.splitlines()) if m}
    rows.append((load, got))

# `kina check` itself, as a user runs it: process start, read, parse, check, print.
timed = []
if kina.exists():
    for _ in range(runs):
        load = open("/proc/loadavg").read().split()[0]
        t = subprocess.run(["/usr/bin/time", "-f", "%e %U %S", str(kina), "check", str(source)],
                           capture_output=True, text=True)
        wall, user, sys_ = t.stderr.strip().splitlines()[-1].split()
        timed.append((load, float(wall) * 1e3, (float(user) + float(sys_)) * 1e3))

def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]

lines = open(source).read().count("\n")
cpus = os.cpu_count()
date = datetime.date.today().isoformat()
md = [f"# Front-end check-only time, {date}", "",
      f"File: `bench/frontend/generate.py 50000` ({lines} lines). Machine: {cpus} CPUs, "
      "shared with other engineers' builds and benchmarks; the load average before each run is "
      "given. Each run prints medians over "
      f"{reps} repetitions; CPU is the whole process's for parse+lower and check-only (both use "
      "two threads on a file this large) and this thread's for parse+check.", "",
      "| run | load | parse+lower wall / CPU (ms) | parse+check, IDE tables, 1 thread | "
      "check-only (`kina check` path) |", "|---|---|---|---|---|"]
for i, (load, got) in enumerate(rows, 1):
    cell = lambda k: "%.0f / %.0f" % got[k] if k in got else "-"
    md.append(f"| {i} | {load} | {cell('parse+lower')} | {cell('parse+check')} | "
              f"{cell('check-only')} |")
for key in ("parse+lower", "parse+check", "check-only"):
    vals = [g[key] for _, g in rows if key in g]
    if vals:
        md.append(f"\n{key}: median of runs {median([v[0] for v in vals]):.0f} ms wall, "
                  f"{median([v[1] for v in vals]):.0f} ms CPU; best {min(v[0] for v in vals):.0f} "
                  "ms wall.")
if timed:
    md += ["", "`kina check` as a process (start-up, read, parse, check, print), "
           "`/usr/bin/time`:", "", "| run | load | wall (ms) | user+sys (ms) |", "|---|---|---|---|"]
    md += [f"| {i} | {l} | {w:.0f} | {c:.0f} |" for i, (l, w, c) in enumerate(timed, 1)]
md += ["", "Raw output:", "", "```"] + [r.rstrip() for r in raw] + ["```", ""]
out = root / "bench" / "results" / f"frontend-{date.replace('-', '')}.md"
# Hand-written notes (what changed, before/after) survive a re-run.
notes = ""
if out.exists() and "\n## Notes" in out.read_text():
    notes = out.read_text()[out.read_text().index("\n## Notes"):]
out.write_text("\n".join(md) + notes)
print(out)
