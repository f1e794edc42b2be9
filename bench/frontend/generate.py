#!/usr/bin/env python3
"""Writes a Kina file of about N lines made of renamed stdlib kernels."""
import pathlib, re, sys

lines = int(sys.argv[1]) if len(sys.argv) > 1 else 50000
out = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else "/tmp/kina-50k.kina")
root = pathlib.Path(__file__).resolve().parents[2] / "stdlib"
sources = [p.read_text() for p in sorted(root.glob("*.kina"))]
chunks, count, i = [], 0, 0
while count < lines:
    src = sources[i % len(sources)]
    src = re.sub(r"^kernel (\w+)", lambda m: f"kernel {m.group(1)}_{i}", src, flags=re.M)
    chunks.append(src)
    count += src.count("\n")
    i += 1
out.write_text("\n".join(chunks))
print(f"{out}: {count} lines, {i} files' worth of kernels")
