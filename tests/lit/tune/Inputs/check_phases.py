"""Prints the time breakdown of a `kina tune --json` report (worker.test)."""
import json
import sys

r = json.load(open(sys.argv[1]))
ph, wp = r["phases"], r["workerPhases"]
print("phases:", " ".join(sorted(ph)))
print("workerPhases:", " ".join(sorted(wp)))
print("workerStarts", r["workerStarts"], "workerRestarts", r["workerRestarts"],
      "measured", r["measured"], "compiled", r["compiled"])
# workerStart is part of reference + candidates + retime (a worker starts
# when a request finds none running); the others do not overlap.
parts = sum(v for k, v in ph.items() if k not in ("total", "workerStart"))
within = ph.get("reference", 0) + ph.get("candidates", 0) + ph.get("retime", 0)
assert ph["workerStart"] <= within + 1e-6, (ph["workerStart"], within)
assert all(v >= 0 for v in list(ph.values()) + list(wp.values()))
print("sum of phases <= total:", "yes" if parts <= ph["total"] + 1e-6 else f"no ({parts} > {ph['total']})")
by_point = {c["point"]: c["status"] for c in r["candidates"]}
print("statuses:", ", ".join(by_point[p] for p in
                              ["WARPS=8,COLS=32", "WARPS=8,COLS=64", "WARPS=8,COLS=128"]))
