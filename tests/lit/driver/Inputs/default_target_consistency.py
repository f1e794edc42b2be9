#!/usr/bin/env python3
"""One default target (issue 11, Part 6): the default that `kina`'s help
prints (it comes from target::defaultTarget() in the registry) must be the
one every document and editor client states.

    default_target_consistency.py KINA ROOT

Reads `kina help check|build|report|run`, then every statement of a default
target in README.md, docs/*.md, editors/**/README.md, editors/vscode/package.json
and the editor sources (`get<string>('target', 'sm_..')`, `target = 'sm_..'`).
Prints each one with its location and exits 1 on any disagreement, or when
it finds no statement in docs/capabilities.md (so it cannot pass vacuously).
"""
import glob
import os
import re
import subprocess
import sys

HELP_RE = re.compile(r"default (sm_[0-9]+[a-z]?)\)")
DOC_RES = [
    re.compile(r"[Dd]efault(?: target)?[^.|\n]{0,40}?`(sm_[0-9]+[a-z]?)`"),
    re.compile(r"`(sm_[0-9]+[a-z]?)`[^.|\n]{0,10}\(default\)"),
]
SOURCE_RES = [
    re.compile(r"""get<string>\('target',\s*'(sm_[0-9]+[a-z]?)'\)"""),
    re.compile(r"""^\s*target\s*=\s*'(sm_[0-9]+[a-z]?)'""", re.M),
]


def main():
    kina, root = sys.argv[1], sys.argv[2]
    found = []  # (where, target)
    for sub in ("check", "build", "report", "run"):
        out = subprocess.run([kina, "help", sub], capture_output=True, text=True).stdout
        for m in HELP_RE.finditer(out):
            found.append((f"kina help {sub}", m.group(1)))
    if not found:
        print("FAIL: `kina help` states no default target")
        return 1
    want = found[0][1]

    docs = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    docs += sorted(glob.glob(os.path.join(root, "editors", "**", "README.md"), recursive=True))
    docs = [d for d in docs if "node_modules" not in d]
    for path in docs:
        text = open(path, encoding="utf-8").read()
        for rx in DOC_RES:
            for m in rx.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                found.append((f"{os.path.relpath(path, root)}:{line}", m.group(1)))
    pkg = os.path.join(root, "editors", "vscode", "package.json")
    if os.path.exists(pkg):
        text = open(pkg, encoding="utf-8").read()
        m = re.search(r'"kina\.target"\s*:\s*\{[^}]*?"default"\s*:\s*"(sm_[0-9]+[a-z]?)"', text, re.S)
        if m:
            found.append(("editors/vscode/package.json kina.target", m.group(1)))
    for pattern in ("editors/vscode/src/*.ts", "editors/neovim/lua/**/*.lua"):
        for path in sorted(glob.glob(os.path.join(root, pattern), recursive=True)):
            text = open(path, encoding="utf-8").read()
            for rx in SOURCE_RES:
                for m in rx.finditer(text):
                    line = text.count("\n", 0, m.start()) + 1
                    found.append((f"{os.path.relpath(path, root)}:{line}", m.group(1)))

    bad = [(w, t) for w, t in found if t != want]
    for where, t in found:
        print(f"{'ok  ' if t == want else 'DIFF'} {where}: default {t}")
    if not any(w.startswith("docs/capabilities.md") for w, _ in found):
        print("FAIL: docs/capabilities.md states no default target")
        return 1
    if bad:
        print(f"FAIL: {len(bad)} statement(s) disagree with `kina help` ({want})")
        return 1
    print(f"default target {want}: {len(found)} statements agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
