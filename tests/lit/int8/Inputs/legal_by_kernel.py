#!/usr/bin/env python3
"""Reads `kina tune --dry-run --json` on stdin and prints, per kernel, its
legal and rejected points by reason: `KERNEL legal L of N; REASON R, ...`."""
import collections
import json
import sys

report = json.load(sys.stdin)
kernels = {}
for p in report["points"]:
    k = kernels.setdefault(p["kernel"], {"n": 0, "legal": 0, "reasons": collections.Counter()})
    k["n"] += 1
    if p["legal"]:
        k["legal"] += 1
    else:
        k["reasons"][p["reason"]] += 1
for name, k in kernels.items():
    reasons = ", ".join(f"{r} {c}" for r, c in sorted(k["reasons"].items()))
    print(f"{name} legal {k['legal']} of {k['n']}; {reasons}")
