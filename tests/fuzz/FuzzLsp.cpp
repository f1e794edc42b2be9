//===- FuzzLsp.cpp - libFuzzer target: kina-lsp's message handling --------===//
//
// The input is what an editor sends on stdin. Its first byte picks the
// framing: even = LSP base protocol (`Content-Length` headers, the rest of
// the input verbatim), odd = the `--lit-test` form (JSON messages separated
// by `---` lines), so the seeds can be the transcripts of tests/lit/lsp. A
// real Server (Transport, Server, Documents, Scheduler, Analysis with the
// checker) handles the whole stream, in sync mode, and must return: any
// crash, abort, sanitizer report or hang is a finding. Output goes to
// /dev/null. Two options keep the run deterministic and local: the
// diagnostics debounce is capped at 0 ms, and `kina/run` starts no child
// process.
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"

#include "Server.h"

#include <cstdio>

using namespace kina::lsp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  bool lit = data[0] & 1;
  // fmemopen of an empty buffer is refused: keep at least one byte.
  std::string input(reinterpret_cast<const char *>(data) + 1, size - 1);
  input.push_back('\n');
  std::FILE *in = fmemopen(input.data(), input.size(), "r");
  std::FILE *out = std::fopen("/dev/null", "w");
  if (!in || !out)
    __builtin_trap();
  {
    Logger log("/dev/null", Logger::Level::Error);
    TransportOptions topts;
    topts.litTest = lit;
    topts.maxMessageBytes = 1 << 20;
    Transport transport(in, out, log, topts);
    ServerOptions sopts;
    sopts.sync = true;
    sopts.requestThreads = 1;
    sopts.maxConcurrentBuilds = 1;
    sopts.maxDebounce = Millis(0);
    sopts.allowChildProcesses = false;
    Server server(transport, log, sopts);
    server.run();
  }
  std::fclose(in);
  std::fclose(out);
  return 0;
}
