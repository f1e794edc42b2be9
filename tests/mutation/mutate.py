#!/usr/bin/env python3
"""Mutation test of the checker (issue 3 acceptance): for every kernel file in
stdlib/, delete one fence or fact at a time -- each `cp_async_wait_all` /
`cp_async_wait_group n` statement, each `block_sync`, and each `requires`
clause (`requires (...)` and `requires capability(...)`) -- or shrink one
extent (issue 11: each `warp_grid` extent above 1 halved, so the warps no
longer cover the block's tiles; each constant loop `for x in (a .. b)` run one
iteration short, e.g. a pipeline prologue one stage short) -- and run
`kina check` on the mutant. A mutant is killed when the checker rejects it
(exit status 1). Every surviving mutant is printed with file:line and what was
deleted; the summary lines are

    mutation: KILLED/TOTAL
    N passed, N failed, 0 skipped        (passed = killed, failed = survived)

A mutant that provably computes the same result as the original (an
*equivalent* mutant, e.g. a redundant sync) may be listed in allowlist.txt
with a written justification; it is then reported as equivalent and left out of
both counts. An allowlist entry that matches no surviving mutant is reported
(it is stale) and fails the run, so the list cannot silently rot.

A checker crash (a signal, or any exit status other than 0 and 1) is never a
kill: it is reported and counted as failed.

Usage: mutate.py --kina PATH [--stdlib DIR] [--allowlist FILE] [--jobs N]
                 [--keep DIR] [--target sm_XX]
Exit status: 0 when every mutant is killed or allowlisted, 1 otherwise,
2 on usage errors.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class Mutant:
    path: str         # the original file, as given (e.g. stdlib/gemm_tc.kina)
    line: int         # 1-based line of the deleted text
    col: int          # 1-based column
    kind: str         # wait | block_sync | requires | warps | trips
    deleted: str      # the deleted (or replaced) text, on one line
    text: str         # the mutated file

    @property
    def verb(self):
        return "shrunk" if self.kind in ("warps", "trips") else "deleted"

    @property
    def key(self):
        """Stable identity for the allowlist: file name, kind and deleted text
        plus the occurrence index, so edits elsewhere in the file do not move it."""
        return f"{os.path.basename(self.path)}:{self.kind}:{self.deleted}"


def code_mask(text):
    """A copy of `text` with comments blanked, so keywords in comments are not
    mutation sites. Kina has only `//` line comments and no string literals."""
    out = list(text)
    i = 0
    while i < len(text):
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = len(text) if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        else:
            i += 1
    return "".join(out)


def matching_paren(code, open_at):
    depth = 0
    for i in range(open_at, len(code)):
        if code[i] == "(":
            depth += 1
        elif code[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return None


def sites(text):
    """(start, end, kind, replacement) of every deletable statement or clause
    (replacement None) and every shrinkable extent, in order."""
    code = code_mask(text)
    found = []
    for m in re.finditer(r"\bwarp_grid\s*\[([^\]]*)\]", code):
        inner_start = m.start(1)
        for e in re.finditer(r"[0-9]+", m.group(1)):
            value = int(e.group(0))
            if value > 1 and value % 2 == 0:
                found.append((inner_start + e.start(), inner_start + e.end(), "warps",
                              str(value // 2)))
    for m in re.finditer(r"\bfor\s+\w+\s+in\s*\(\s*([0-9]+)\s*\.\.\s*([0-9]+)\s*\)", code):
        lo, hi = int(m.group(1)), int(m.group(2))
        if hi - lo >= 2:
            found.append((m.start(2), m.end(2), "trips", str(hi - 1)))
    for m in WORD.finditer(code):
        word = m.group(0)
        if word == "cp_async_wait_all":
            found.append((m.start(), m.end(), "wait", None))
        elif word == "cp_async_wait_group":
            n = re.compile(r"\s*[0-9][0-9_]*").match(code, m.end())
            found.append((m.start(), n.end() if n else m.end(), "wait", None))
        elif word == "block_sync":
            found.append((m.start(), m.end(), "block_sync", None))
        elif word == "requires":
            rest = re.compile(r"\s*(capability\s*)?\(").match(code, m.end())
            if not rest:
                continue
            close = matching_paren(code, rest.end() - 1)
            if close is None:
                continue
            found.append((m.start(), close + 1, "requires", None))
    return sorted(found)


def blank(text, start, end):
    """Deletes text[start:end], keeping newlines so line numbers stay put."""
    return text[:start] + "".join(c if c == "\n" else " " for c in text[start:end]) + text[end:]


def mutants(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    result = []
    for start, end, kind, replacement in sites(text):
        line = text.count("\n", 0, start) + 1
        col = start - (text.rfind("\n", 0, start) + 1) + 1
        deleted = " ".join(text[start:end].split())
        if replacement is None:
            mutated = blank(text, start, end)
        else:
            # The line's text identifies the site; the replacement is part of it.
            line_start = text.rfind("\n", 0, start) + 1
            line_end = text.find("\n", end)
            line_end = len(text) if line_end < 0 else line_end
            deleted = " ".join(text[line_start:line_end].split()) + " -> " + replacement
            mutated = text[:start] + replacement + text[end:]
        result.append(Mutant(path, line, col, kind, deleted, mutated))
    return result


def read_allowlist(path):
    """Lines `FILE:KIND:DELETED TEXT | justification`; `#` starts a comment line."""
    entries = {}
    if not path or not os.path.exists(path):
        return entries
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            key, sep, why = line.partition("|")
            if not sep or not why.strip():
                raise SystemExit(f"{path}:{number}: an allowlist entry needs `| justification`")
            entries[key.strip()] = why.strip()
    return entries


def check(kina, mutant, workdir, target, index):
    """Runs `kina check` on the mutant; returns (exit status, output)."""
    sub = os.path.join(workdir, str(index))
    os.makedirs(sub, exist_ok=True)
    # Same base name as the original, so messages read naturally.
    path = os.path.join(sub, os.path.basename(mutant.path))
    with open(path, "w", encoding="utf-8") as f:
        f.write(mutant.text)
    cmd = [kina, "check", path] + (["--target", target] if target else [])
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None, "timed out after 120 s"
    return r.returncode, (r.stdout + r.stderr)


def first_error(output):
    for line in output.splitlines():
        if ": error[" in line:
            return line.split(": ", 1)[1] if ": " in line else line
    return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kina", required=True, help="the kina binary")
    ap.add_argument("--stdlib", default="stdlib", help="folder of .kina files (default stdlib)")
    ap.add_argument("--allowlist", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                        "allowlist.txt"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--target", default=None, help="pass --target to kina check")
    ap.add_argument("--keep", default=None, help="write the mutants into this folder and keep them")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every mutant, killed or not")
    args = ap.parse_args()

    if not (os.path.isfile(args.kina) and os.access(args.kina, os.X_OK)):
        print(f"mutation: kina binary not found or not executable: {args.kina}", file=sys.stderr)
        return 2
    files = sorted(os.path.join(args.stdlib, n) for n in os.listdir(args.stdlib) if n.endswith(".kina"))
    if not files:
        print(f"mutation: no .kina files in {args.stdlib}", file=sys.stderr)
        return 2

    # The originals must check clean, or a "kill" proves nothing.
    broken = []
    for path in files:
        cmd = [args.kina, "check", path] + (["--target", args.target] if args.target else [])
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            broken.append(path)
            print(f"ORIGINAL NOT CLEAN: {path} (kina check exited {r.returncode})")
            print("  " + (first_error(r.stdout + r.stderr) or (r.stdout + r.stderr).strip()[:300]))

    allow = read_allowlist(args.allowlist)
    all_mutants = [m for path in files if path not in broken for m in mutants(path)]
    used_allow = set()
    killed = survived = crashed = equivalent = 0

    workdir = args.keep or tempfile.mkdtemp(prefix="kina-mutants-")
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda im: check(args.kina, im[1], workdir, args.target, im[0]),
                                enumerate(all_mutants)))
    for m, (rc, output) in zip(all_mutants, results):
        where = f"{m.path}:{m.line}:{m.col}"
        if rc == 1:
            killed += 1
            if args.verbose:
                print(f"KILLED   {where}: {m.verb} `{m.deleted}` -> {first_error(output)}")
        elif rc == 0:
            if m.key in allow:
                equivalent += 1
                used_allow.add(m.key)
                print(f"EQUIVALENT {where}: {m.verb} `{m.deleted}` (allowlisted: {allow[m.key]})")
            else:
                survived += 1
                print(f"SURVIVED {where}: {m.verb} `{m.deleted}` ({m.kind}); kina check accepted the mutant")
        else:
            crashed += 1
            what = "timed out" if rc is None else (f"killed by signal {-rc}" if rc < 0 else f"exited {rc}")
            print(f"CRASHED  {where}: {m.verb} `{m.deleted}`: kina check {what}")
            tail = output.strip().splitlines()[-3:]
            for line in tail:
                print("  " + line)
    stale = sorted(set(allow) - used_allow)
    for key in stale:
        print(f"STALE ALLOWLIST ENTRY: {key} (no surviving mutant matches it; remove it)")
    if not args.keep:
        import shutil
        shutil.rmtree(workdir, ignore_errors=True)

    total = killed + survived + crashed
    per_kind = {}
    for m, (rc, _) in zip(all_mutants, results):
        if rc == 0 and m.key in allow:
            continue  # equivalent: in neither count
        k = per_kind.setdefault(m.kind, [0, 0])
        k[1] += 1
        k[0] += rc == 1
    print("mutants by kind: " + ", ".join(f"{k} {v[0]}/{v[1]} killed" for k, v in sorted(per_kind.items())))
    if equivalent:
        print(f"equivalent (allowlisted, not counted): {equivalent}")
    print(f"mutation: {killed}/{total}")
    failed = survived + crashed + len(broken) + len(stale)
    print(f"{killed} passed, {failed} failed, 0 skipped")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
