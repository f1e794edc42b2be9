#!/usr/bin/env python3
"""Counts one test suite's results for scripts/test.sh.

Each mode reads a suite's report and prints one line `PASSED FAILED SKIPPED`:
  ctest FILE.xml        ctest --output-junit: status "run" passes, "fail"
                        fails, a skip (GTEST_SKIP, SKIP_RETURN_CODE) or a
                        disabled test is skipped, and any other "notrun"
                        (an executable that was not built) fails.
  lit FILE.xml          lit --xunit-xml-output: <failure> fails (FAIL, XPASS,
                        UNRESOLVED, TIMEOUT), <skipped> (UNSUPPORTED) is
                        skipped, the rest (PASS, XFAIL) passes.
  tree-sitter FILE.txt  `tree-sitter test` output: one line per test marked
                        with a check mark (pass), a cross (fail) or an empty
                        set sign (skipped with `:skip`).
  line FILE.txt         the last `N passed, N failed[, N skipped]` line that a
                        tests/*/run-suite.sh printed (one word and a colon may
                        stand before it); prints nothing when there is none.
A report that cannot be read is an error (exit 1), never zero tests.
"""
import re
import sys
import xml.etree.ElementTree as ET


def count_ctest(path):
    passed = failed = skipped = 0
    for case in ET.parse(path).getroot().iter("testcase"):
        status = case.get("status", "")
        skip = case.find("skipped")
        if case.find("failure") is not None or status == "fail":
            failed += 1
        elif status == "disabled":
            skipped += 1
        elif status == "notrun":
            message = skip.get("message", "") if skip is not None else ""
            if message.startswith("SKIP_"):
                skipped += 1
            else:  # "Unable to find executable", a failed fixture, ...
                failed += 1
        elif status == "run":
            passed += 1
        else:
            failed += 1
    return passed, failed, skipped


def count_lit(path):
    passed = failed = skipped = 0
    for case in ET.parse(path).getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


ANSI = re.compile(r"\x1b\[[0-9;]*m")
TS_MARK = re.compile(r"^\s*(?:\d+\.\s+)?([\u2713\u2714\u2717\u2718\u2300])\s")


def count_tree_sitter(path):
    passed = failed = skipped = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = TS_MARK.match(ANSI.sub("", line))
            if not m:
                continue
            mark = m.group(1)
            if mark in "\u2713\u2714":
                passed += 1
            elif mark in "\u2717\u2718":
                failed += 1
            else:
                skipped += 1
    return passed, failed, skipped


SUMMARY = re.compile(r"^(?:\w[\w-]*:\s*)?(\d+) passed, (\d+) failed(?:, (\d+) skipped)?\s*$")


def count_line(path):
    found = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = SUMMARY.match(ANSI.sub("", line).strip())
            if m:
                found = (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))
    return found


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    mode, path = argv[1], argv[2]
    counters = {"ctest": count_ctest, "lit": count_lit, "tree-sitter": count_tree_sitter,
                "line": count_line}
    if mode not in counters:
        print(f"results.py: unknown mode {mode}", file=sys.stderr)
        return 2
    try:
        result = counters[mode](path)
    except (OSError, ET.ParseError) as e:
        print(f"results.py: cannot read {path}: {e}", file=sys.stderr)
        return 1
    if result is not None:
        print(*result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
