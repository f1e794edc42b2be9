#!/usr/bin/env python3
"""The kernels the GPU suite runs, with their sizes (tests/gpu/README.md).

    kernels.py [--root DIR] [--sizes FILE]      prints FILE KERNEL DIMS FLAG per line

Kernels: every `kernel NAME` in stdlib/**/*.kina and tests/gpu/constructs/*.kina.
Sizes: the rows `KERNEL DIMS [small]` of tests/gpu/sizes.txt, plus rows written
in a kernel file itself as `// gpu-size: KERNEL DIMS [small]` (so a construct
brings its sizes along). DIMS `-` means a kernel without dims. FLAG is `small`
or `-`. A kernel with no size is listed once with DIMS `?` (the callers report
it as a failure), so nothing is skipped silently.
"""
import argparse
import os
import re
import sys

KERNEL_RE = re.compile(r"^\s*kernel\s+([A-Za-z_][A-Za-z0-9_]*)")
SIZE_RE = re.compile(r"^\s*//\s*gpu-size:\s*(.*)$")


def kernel_files(root):
    files = []
    for base in ("stdlib", os.path.join("tests", "gpu", "constructs")):
        top = os.path.join(root, base)
        for dirpath, _, names in os.walk(top):
            files += [os.path.join(dirpath, n) for n in names if n.endswith(".kina")]
    return sorted(files)


def parse_size_row(text):
    parts = text.split()
    if len(parts) < 2 or parts[0].startswith(("#", "!")):
        return None
    return parts[0], parts[1], "small" if "small" in parts[2:] else "-"


def discover(root, sizes_file):
    kernels = []  # (file, kernel) in file order
    sizes = {}
    for path in kernel_files(root):
        with open(path, encoding="utf-8") as f:
            for line in f:
                m = KERNEL_RE.match(line)
                if m:
                    kernels.append((path, m.group(1)))
                m = SIZE_RE.match(line)
                if m and (row := parse_size_row(m.group(1))):
                    sizes.setdefault(row[0], []).append(row[1:])
    with open(sizes_file, encoding="utf-8") as f:
        for line in f:
            row = parse_size_row(line)
            if row:
                sizes.setdefault(row[0], []).append(row[1:])
    # Sizes are keyed by kernel name: two files defining one name would run
    # each at the other's sizes (and the references by name), so it is an error.
    seen = {}
    for path, k in kernels:
        if k in seen and seen[k] != path:
            sys.exit("kernels.py: kernel `%s` is defined in both %s and %s; names must be unique"
                     % (k, seen[k], path))
        seen[k] = path
    out = []
    for path, k in kernels:
        for dims, flag in sizes.get(k, [("?", "-")]):
            out.append((path, k, dims, flag))
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(here)))
    ap.add_argument("--sizes", default=os.path.join(here, "sizes.txt"))
    args = ap.parse_args()
    for row in discover(args.root, args.sizes):
        print(" ".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
