#!/usr/bin/env python3
"""Fills the placeholders of a --lit-test transcript read from stdin and
writes it to stdout, so that tests can open a real .kina file and ask at
positions found by searching its text instead of hand-counted columns.

Usage: make_transcript.py FILE.kina [NAME=FILE.kina ...] < test > transcript

Placeholders (inside the JSON messages of the transcript):
  "@TEXT@"                the file's text as a JSON string (NAME: "@TEXT:NAME@")
  "@POS:needle@"          {"line", "character"} of the first `needle`
  "@POS:needle:+N@"       ... N characters after its start
  "@END@"                 the position just past the end of the file
Lines starting with '#' pass through (the server skips them)."""
import json
import re
import sys

files = {"": open(sys.argv[1], encoding="utf-8").read()}
for arg in sys.argv[2:]:
    name, _, path = arg.partition("=")
    files[name] = open(path, encoding="utf-8").read()


def position(text, needle, delta):
    for i, line in enumerate(text.split("\n")):
        j = line.find(needle)
        if j >= 0:
            return {"line": i, "character": j + delta}
    sys.exit("make_transcript.py: not found: " + needle)


def substitute(match):
    body = match.group(1)
    if body == "TEXT" or body.startswith("TEXT:"):
        return json.dumps(files[body[5:]])
    if body == "END":
        lines = files[""].split("\n")
        return json.dumps({"line": len(lines) - 1, "character": len(lines[-1])})
    if body.startswith("POS:"):
        needle, delta = body[4:], 0
        m = re.match(r"^(.*):\+(\d+)$", needle)
        if m:
            needle, delta = m.group(1), int(m.group(2))
        return json.dumps(position(files[""], needle, delta))
    sys.exit("make_transcript.py: unknown placeholder " + body)


for line in sys.stdin:
    if line.startswith("#"):
        sys.stdout.write(line)
        continue
    sys.stdout.write(re.sub(r'"@([^"]*)@"', substitute, line))
