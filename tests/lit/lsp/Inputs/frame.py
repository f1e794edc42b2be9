#!/usr/bin/env python3
"""Turns a transcript into LSP base-protocol bytes on stdout, for tests of
kina-lsp's real (Content-Length) framing.

Sections are separated by lines of `---`; lines starting with `#` are
comments (RUN/CHECK lines). A section is JSON, framed with a correct
Content-Length header, unless its first line is a directive:
  @raw TEXT     TEXT is written as is after Python string-escape decoding
                (so `\\r\\n` writes CR LF): malformed headers, truncation.
  @length N     the JSON of the section gets `Content-Length: N` (a lie).
  @python EXPR  the body is the string the Python expression EXPR makes
                (huge or deeply nested messages), framed correctly.
"""
import sys

def sections(text):
    cur = []
    for line in text.splitlines():
        if line.strip() == "---":
            yield cur
            cur = []
        elif not line.startswith("#"):
            cur.append(line)
    yield cur

out = sys.stdout.buffer
for lines in sections(open(sys.argv[1], encoding="utf-8").read()):
    if not any(l.strip() for l in lines):
        continue
    first = lines[0]
    if first.startswith("@raw "):
        raw = first[len("@raw "):].encode("utf-8").decode("unicode_escape").encode("latin-1")
        out.write(raw)
        continue
    length = None
    if first.startswith("@python "):
        lines = [eval(first[len("@python "):], {})]
    elif first.startswith("@length "):
        length = int(first.split()[1])
        lines = lines[1:]
    body = "\n".join(lines).strip().encode("utf-8")
    out.write(b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length))
    out.write(body)
out.flush()
