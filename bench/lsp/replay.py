#!/usr/bin/env python3
"""Typing-session benchmark for kina-lsp (issue 6, acceptance).

Starts the real server over stdio (Content-Length framing), opens the stdlib
plus N generated files, then replays a seeded session of single-character
inserts and deletes in a 2,000-line file with `debounceMs: 0`, waiting
after each `didChange` for the `publishDiagnostics` of that exact version.

Two sessions (--mode):
  typing   a cursor session: every ~30 keystrokes the cursor moves to the
           start of a random line in some kernel's body, then Kina statements
           are typed there character by character, with a backspace now and
           then (the code is syntactically broken between keystrokes, as it
           is when a person types);
  scatter  every edit at an independent random offset of the file (a random
           character inserted, or one deleted): syntax errors pile up all
           over the file, so every check needs a fresh parse.

Reports:
  * p50 / p99 / max latency from didChange sent to publishDiagnostics read;
  * RSS of the server after opening the files, and after the replay, with
    the growth in percent (goals: <= 150 MB, growth <= 10 %, p99 <= 20 ms).

The 50,000-line mode (issue 11): `--lines 50000 --files 0 --kernels valid`
types in a file of 1,390 error-free kernels (`--kernels errors`, the default,
gives every kernel three errors: ~7,000 diagnostics in every publish).

Usage:
  bench/lsp/replay.py --server build/lsp-server/kina-lsp [--edits 2000]
                      [--files 50] [--lines 2000] [--kernels errors|valid]
                      [--seed 1] [--json out.json]
Exit status 0 when the run completed (goals are reported, not enforced: the
figures depend on the machine; record them with the machine's description).
"""
import argparse
import json
import os
import pathlib
import queue
import random
import statistics
import subprocess
import sys
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]

KERNEL = """kernel gemm_{i}
    [M, N, K]
    requires (M mod 128 = 0)
    requires (N mod 128 = 0)
    requires (K mod 16 = 0)
    requires capability(sm_80, mma_m16n16k16_f16_f16_f32)
    (a : Tensor[F16, [M, K], on=cuda:global])
    (b : Tensor[F16, [K, N], on=cuda:global])
    : Tensor[F32, [M, N], on=cuda:global] {{
  block_grid [M/128, N/128] {{
    let block_m = block_id 0 in
    let block_n = block_id 1 in
    shared a_smem : Tile[F16, [128, 16], on=cuda:shared]
    shared b_smem : Tile[F16, [16, 128], on=cuda:shared]
    warp_grid [2, 2] {{
      let warp_m = warp_id 0 in
      let warp_n = warp_id 1 in
      register c_reg : Tile[F32, [64, 64], on=cuda:register]
      c_reg <- fill 0.0
      for k in (0 .. K/16) {{
        cp_async a_smem <- a[block_m * 128 ..+ 128, k * 16 ..+ 16]
        cp_async b_smem <- b[k * 16 ..+ 16, block_n * 128 ..+ 128]
        cp_async_commit
        cp_async_wait_all
        block_sync
        c_reg <- wmma_mma c_reg
                          a_smem[warp_m * 64 ..+ 64, 0 ..+ 16]
                          b_smem[0 ..+ 16, warp_n * 64 ..+ 64]
        block_sync
      }}
      a[block_m * 128 + warp_m * 64 ..+ 64,
        block_n * 128 + warp_n * 64 ..+ 64] <- c_reg
    }}
  }}
}}

"""


# The same kernel without its three errors (the capability it uses is
# declared, the result is named and written): a file of these checks clean,
# so a publish carries only what the edit broke.
VALID_KERNEL = (KERNEL
                .replace("requires capability(sm_80, mma_m16n16k16_f16_f16_f32)",
                         "requires capability(sm_80, mma_m16n16k16_f16_f16_f32, cp_async)")
                .replace(": Tensor[F32, [M, N], on=cuda:global] {{",
                         ": (c : Tensor[F32, [M, N], on=cuda:global]) {{")
                .replace("      a[block_m * 128 + warp_m * 64 ..+ 64,",
                         "      c[block_m * 128 + warp_m * 64 ..+ 64,"))


def generated_file(lines, template=KERNEL):
    """Whole kernels, at least `lines` lines (the last kernel is not cut)."""
    out, count, i = [], 0, 0
    while count < lines:
        out.append(template.format(i=i))
        count += out[-1].count("\n")
        i += 1
    return "".join(out)


STATEMENTS = ["block_sync\n      ", "cp_async_wait_all\n      ",
              "let q = block_id 0 in\n      ",
              "c_reg <- wmma_mma c_reg a_smem[0 ..+ 64, 0 ..+ 16] b_smem[0 ..+ 16, 0 ..+ 64]\n      ",
              "register t : Tile[F32, [64, 64], on=cuda:register]\n      "]


# Statements for --typing-file on a Hopper GEMM (--statements hopper): typed
# inside the consumer loop they leave the kernel valid once complete, so the
# protocol proofs run on those keystrokes (they do not on a kernel with
# other errors).
HOPPER_STATEMENTS = ["let q = k + 1 in\n          ", "let r = wg * 64 + 8 in\n          "]


def typing_session(text, edits, rng, anchor="\n      c_reg <- fill", statements=STATEMENTS,
                   typos=True):
    """(offset, inserted char or None for a delete at offset) per keystroke.

    Every 30 keystrokes the cursor moves to the start of a line found by
    `anchor` (a newline, the line's indentation and its first word) at or
    after a random place, and a statement is typed there, with a few
    backspaces."""
    cursor, typed = 0, ""
    indent = len(anchor) - len(anchor.lstrip("\n").lstrip(" "))
    for i in range(edits):
        if i % 30 == 0:
            at = text.find(anchor, rng.randrange(0, len(text)))
            if at < 0:
                at = text.find(anchor)
            cursor, typed = at + indent, rng.choice(statements)
        if typed and (not typos or rng.random() < 0.85):
            ch, typed = typed[0], typed[1:]
            yield cursor, ch
            text = text[:cursor] + ch + text[cursor:]
            cursor += 1
        elif cursor > 0:
            cursor -= 1
            yield cursor, None
            text = text[:cursor] + text[cursor + 1:]


class Client:
    def __init__(self, server, log, wrap=()):
        self.proc = subprocess.Popen(list(wrap) + [server, "--stdio", "--log=" + log],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.inbox = queue.Queue()
        self.stash = []  # messages read but not yet wanted
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put((time.perf_counter(), None))
                    return
                line = line.strip()
                if not line:
                    if length is not None:
                        break
                    continue
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            body = out.read(length)
            self.inbox.put((time.perf_counter(), json.loads(body)))

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()
        return time.perf_counter()

    def request(self, method, params, timeout=30.0):
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == rid and "method" not in m, timeout)[1]

    def notify(self, method, params):
        return self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait(self, pred, timeout=30.0):
        for i, (t, m) in enumerate(self.stash):
            if pred(m):
                del self.stash[i]
                return t, m
        deadline = time.perf_counter() + timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError("no matching message from the server")
            t, m = self.inbox.get(timeout=left)
            if m is None:
                raise RuntimeError("server exited (code %s)" % self.proc.poll())
            if pred(m):
                return t, m
            if m.get("method") == "textDocument/publishDiagnostics" or "id" in m:
                self.stash.append((t, m))
                del self.stash[:-1000]  # keep memory bounded

    def wait_diagnostics(self, uri, version, timeout=30.0):
        return self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                         and m["params"]["uri"] == uri
                         and m["params"].get("version") == version, timeout)

    def cpu_ms(self):
        """User + system CPU time the server has used so far."""
        with open("/proc/%d/stat" % self.proc.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")

    def rss_mb(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
        return float("nan")


def utf16_position(text, offset):
    """(line, UTF-16 character) of character index `offset` (ASCII text)."""
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    return line, offset - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", default=str(ROOT / "build/lsp-server/kina-lsp"))
    ap.add_argument("--edits", type=int, default=2000)
    ap.add_argument("--files", type=int, default=50)
    ap.add_argument("--lines", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mode", choices=["typing", "scatter"], default="typing")
    ap.add_argument("--kernels", choices=["errors", "valid"], default="errors",
                    help="the typing file's kernels: each with three errors (the "
                         "recorded 2,000-line runs), or error-free (the 50,000-line runs)")
    ap.add_argument("--typing-file", metavar="PATH",
                    help="type into this file (opened as itself) instead of a generated one, "
                         "e.g. stdlib/gemm_bf16_hopper.kina; --lines and --kernels are then unused")
    ap.add_argument("--anchor", default="\n      c_reg <- fill",
                    help="where the typing session types: a newline, the line's indentation and "
                         "its first word (default the generated kernels' %(default)r); for the "
                         "Hopper GEMM e.g. '\\n          wgmma_commit'")
    ap.add_argument("--statements", choices=["generic", "hopper"], default="generic",
                    help="what the typing session types: generic (sm_80 statements, with "
                         "typos) or hopper (`let`s valid inside the Hopper GEMM's consumer "
                         "loop, typed without typos, so each completed one re-runs the proofs)")
    ap.add_argument("--log", default="/tmp/kina-lsp-bench.log")
    ap.add_argument("--json", help="also write the figures as JSON here")
    ap.add_argument("--callgrind", metavar="OUT",
                    help="run the server under valgrind --tool=callgrind, counting only "
                         "the replay after its first keystroke (which builds the file's "
                         "parse cache, once); "
                         "the profile goes to OUT (read it with callgrind_annotate)")
    ap.add_argument("--perf", metavar="OUT",
                    help="attach `perf record -g` to the server for the replay only "
                         "(after the open); the profile goes to OUT (read it with perf report)")
    ap.add_argument("--timeout", type=float, default=30.0,
                    help="seconds to wait for each publish (raise it under --callgrind)")
    args = ap.parse_args()

    wrap = ()
    if args.callgrind:
        wrap = ("valgrind", "--tool=callgrind", "--instr-atstart=no",
                "--callgrind-out-file=" + args.callgrind)
    c = Client(args.server, args.log, wrap)
    wait_diagnostics = c.wait_diagnostics
    c.wait_diagnostics = lambda uri, version: wait_diagnostics(uri, version, args.timeout)
    c.request("initialize", {
        "processId": os.getpid(), "rootUri": None,
        "capabilities": {"textDocument": {"publishDiagnostics": {"versionSupport": True}}},
        "initializationOptions": {"debounceMs": 0}}, args.timeout)
    c.notify("initialized", {})
    rss_start = c.rss_mb()

    # Open the stdlib and N generated files, and wait for their diagnostics.
    opened = []
    for path in sorted((ROOT / "stdlib").rglob("*.kina")):
        opened.append(("file://" + str(path), path.read_text(encoding="utf-8")))
    for i in range(args.files):
        opened.append(("file:///bench/gen_%d.kina" % i, generated_file(200 + 20 * i)))
    for uri, text in opened:
        c.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "kina", "version": 1, "text": text}})
    for uri, _ in opened:
        c.wait_diagnostics(uri, 1)

    if args.typing_file:
        path = pathlib.Path(args.typing_file).resolve()
        uri = "file:///bench/typing-" + path.name
        text = path.read_text(encoding="utf-8")
        args.anchor = args.anchor.encode().decode("unicode_escape")
        if args.anchor not in text:
            sys.exit(f"replay.py: --anchor {args.anchor!r} is not in {path}")
    else:
        uri = "file:///bench/typing.kina"
        text = generated_file(args.lines, VALID_KERNEL if args.kernels == "valid" else KERNEL)
    c.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "kina", "version": 1, "text": text}})
    c.wait_diagnostics(uri, 1)
    rss_open = c.rss_mb()
    perf = None
    if args.perf:
        perf = subprocess.Popen(["perf", "record", "-q", "-g", "-F", "4000", "-o", args.perf,
                                 "-p", str(c.proc.pid)], stdout=subprocess.DEVNULL)
        time.sleep(1.0)  # perf attaches
    cpu_before = c.cpu_ms()

    rng = random.Random(args.seed)
    latencies = []
    version = 1
    alphabet = "abcdefgk_ 0123456789+-*/()[]{}<.,:\n"

    def scatter():
        t = text
        for _ in range(args.edits):
            if rng.random() < 0.5 and len(t) > 1:
                at = rng.randrange(0, len(t) - 1)
                yield at, None
                t = t[:at] + t[at + 1:]
            else:
                at = rng.randrange(0, len(t) + 1)
                ch = rng.choice(alphabet)
                yield at, ch
                t = t[:at] + ch + t[at:]

    statements = HOPPER_STATEMENTS if args.statements == "hopper" else STATEMENTS
    session = (typing_session(text, args.edits, rng, args.anchor, statements,
                              typos=args.statements != "hopper")
               if args.mode == "typing" else scatter())
    clean_versions = 0
    for at, ch in session:
        version += 1
        if ch is None:
            (l1, c1), (l2, c2) = utf16_position(text, at), utf16_position(text, at + 1)
            change = {"range": {"start": {"line": l1, "character": c1},
                                "end": {"line": l2, "character": c2}}, "text": ""}
            text = text[:at] + text[at + 1:]
        else:
            l1, c1 = utf16_position(text, at)
            change = {"range": {"start": {"line": l1, "character": c1},
                                "end": {"line": l1, "character": c1}}, "text": ch}
            text = text[:at] + ch + text[at:]
        sent = c.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]})
        got, published = c.wait_diagnostics(uri, version)
        if not published["params"]["diagnostics"]:
            clean_versions += 1
        latencies.append((got - sent) * 1000.0)
        if args.callgrind and version == 2:
            # From the second keystroke on: the first one of a file builds its
            # parse cache (an opened-only file keeps none), once.
            subprocess.run(["callgrind_control", "--instr=on", str(c.proc.pid)], check=True,
                           stdout=subprocess.DEVNULL)
    rss_after = c.rss_mb()
    if perf:
        perf.send_signal(2)
        perf.wait(timeout=60)
    cpu_per_edit = (c.cpu_ms() - cpu_before) / max(1, args.edits)

    c.request("shutdown", None, args.timeout)
    c.notify("exit", None)
    code = c.proc.wait(timeout=args.timeout)

    latencies.sort()
    p = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
    figures = {
        "mode": args.mode,
        "files_opened": len(opened) + 1,
        "typing_file_lines": text.count("\n"),
        "typing_file": args.typing_file or "generated",
        "edits_leaving_no_diagnostic": clean_versions,
        "typing_file_kernels": args.kernels,
        "edits": args.edits,
        "latency_ms": {"p50": round(p(0.50), 3), "p99": round(p(0.99), 3),
                       "max": round(latencies[-1], 3),
                       "mean": round(statistics.mean(latencies), 3)},
        # Server CPU per edit: robust to other load on the machine.
        "server_cpu_ms_per_edit": round(cpu_per_edit, 3),
        "load_average_1min": os.getloadavg()[0],
        "rss_mb": {"start": round(rss_start, 1), "after_open": round(rss_open, 1),
                   "after_replay": round(rss_after, 1),
                   "growth_percent": round(100.0 * (rss_after - rss_open) / rss_open, 1)},
        "goals": {"p99_ms<=20": p(0.99) <= 20.0, "rss_after_open_mb<=150": rss_open <= 150.0,
                  "growth<=10%": rss_after <= 1.10 * rss_open},
        "server_exit_code": code,
        "cpus": os.cpu_count(),
    }
    print(json.dumps(figures, indent=2))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0 if code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
