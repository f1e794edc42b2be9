#!/usr/bin/env python3
"""Writes a --lit-test transcript that opens a .kina file (argv[1]) and asks
hover / inlay hints / code actions at positions found by searching its text.
Used by seed-gemm.test for the issue-6 acceptance checks on the seed kernel."""
import json
import sys

text = open(sys.argv[1], encoding="utf-8").read()
lines = text.split("\n")


def pos(needle, delta=0):
    for i, line in enumerate(lines):
        j = line.find(needle)
        if j >= 0:
            return {"line": i, "character": j + delta}
    sys.exit("not found: " + needle)


doc = {"uri": "file:///seed.kina"}
msgs = [
    {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "capabilities": {"textDocument": {"publishDiagnostics": {"versionSupport": True}}},
        "initializationOptions": {"debounceMs": 0, "target": "sm_80"}}},
    {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": doc["uri"], "languageId": "kina", "version": 1, "text": text}}},
    {"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover",
     "params": {"textDocument": doc, "position": pos("register c_reg", 10)}},
    {"jsonrpc": "2.0", "id": 2, "method": "textDocument/inlayHint", "params": {
        "textDocument": doc, "range": {"start": {"line": 0, "character": 0},
                                       "end": {"line": len(lines), "character": 0}}}},
    {"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover",
     "params": {"textDocument": doc, "position": pos("kernel gemm_tc", 8)}},
    {"jsonrpc": "2.0", "id": 99, "method": "shutdown"},
    {"jsonrpc": "2.0", "method": "exit"},
]
print("\n---\n".join(json.dumps(m) for m in msgs))
