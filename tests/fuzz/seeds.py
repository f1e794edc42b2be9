#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets from the test tree.

  parser, checker  every .kina file of the repository (tests/, stdlib/, ...);
                   the checker's first byte picks the target (0: sm_90a);
  lsp              every LSP transcript of tests/lit/lsp, twice: in the
                   `--lit-test` form (first byte 1) and framed with real
                   Content-Length headers by tests/lit/lsp/Inputs/frame.py
                   (first byte 0).

Usage: seeds.py ROOT OUT   (writes OUT/parser, OUT/checker, OUT/lsp)
"""
import hashlib
import pathlib
import subprocess
import sys

root, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
MAX = 1 << 20  # larger files would only slow every mutation down


def put(kind, data):
    d = out / kind
    d.mkdir(parents=True, exist_ok=True)
    (d / ("seed-" + hashlib.sha1(data).hexdigest()[:16])).write_bytes(data)


skip = {"build", ".git", ".deps", "node_modules"}
for path in sorted(root.rglob("*.kina")):
    if any(p.startswith("build") or p in skip for p in path.relative_to(root).parts):
        continue
    data = path.read_bytes()
    if len(data) <= MAX:
        put("parser", data)
        put("checker", b"\x00" + data)

frame = root / "tests/lit/lsp/Inputs/frame.py"
for path in sorted((root / "tests/lit/lsp").glob("*.test")):
    data = path.read_bytes()
    if len(data) > MAX:
        continue
    put("lsp", b"\x01" + data)
    framed = subprocess.run([sys.executable, str(frame), str(path)], capture_output=True)
    if framed.returncode == 0 and len(framed.stdout) <= MAX:
        put("lsp", b"\x00" + framed.stdout)
for kind in ("parser", "checker", "lsp"):
    print(kind, len(list((out / kind).iterdir())), "seeds")
