#!/usr/bin/env python3
"""Checks kina-lsp's answer to kina/run on a GPU machine, as the CHECK lines
of tests/lit/lsp/run-gpu.test do where lit and FileCheck are not installed:
the progress ends with "done" and request 1 answers exitCode 0, "passed".
Usage: check_lsp_run.py SERVER_STDOUT; exit 0 when it holds."""
import json
import re
import sys

text = open(sys.argv[1], encoding="utf-8").read()
messages = []
for block in re.split(r"Content-Length: \d+\r?\n\r?\n", text):
    block = block.strip()
    if block:
        try:
            messages.append(json.loads(block))
        except json.JSONDecodeError:
            pass
ends = [m for m in messages if m.get("method") == "$/progress"
        and m["params"]["value"].get("kind") == "end"]
answer = next((m for m in messages if m.get("id") == 1), None)
ok = bool(ends) and ends[-1]["params"]["value"].get("message") == "done"
ok = ok and answer is not None and "result" in answer
result = answer.get("result", {}) if answer else {}
ok = ok and result.get("exitCode") == 0 and result.get("status") == "passed"
print(json.dumps({"progress_end": ends[-1]["params"]["value"] if ends else None,
                  "answer": result}, indent=2)[:4000])
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
