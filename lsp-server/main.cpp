//===- main.cpp - kina-lsp: the Kina language server ----------------------===//
//
// Command line (CLI11) and wiring: Logger → Transport (stdin/stdout) →
// Server. Speaks LSP 3.17 over stdio; `--stdio` is accepted because
// vscode-languageclient passes it. `--lit-test` reads `---`-separated JSON
// messages without headers (clangd's -lit-test) for tests/lit/lsp.
//
//===----------------------------------------------------------------------===//
#include "Logger.h"
#include "Server.h"
#include "Transport.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <thread>

int main(int argc, char **argv) {
  CLI::App app{"kina-lsp: the Kina language server (LSP 3.17 over stdio)"};
  app.allow_extras(); // clients add flags of their own (e.g. --clientProcessId)
  bool stdio = false, version = false, litTest = false, pretty = false, verbose = false;
  std::string logFile, docsUrl;
  size_t maxMessageBytes = 64u << 20;
  unsigned threads = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  app.add_flag("--stdio", stdio, "Use stdin/stdout (the default and only transport)");
  app.add_flag("--version", version, "Print the version and exit");
  app.add_option("--log", logFile, "Append the log to FILE instead of stderr");
  app.add_flag("--verbose", verbose, "Log more (dropped results, timings)");
  app.add_flag("--lit-test", litTest,
               "Read '---'-separated JSON messages without headers, answer in order, pretty-print");
  app.add_flag("--pretty", pretty, "Pretty-print JSON output");
  bool sync = false;
  app.add_flag("--sync", sync, "Handle messages one at a time, in order (for tests)");
  app.add_option("--max-message-bytes", maxMessageBytes, "Largest accepted message body")
      ->check(CLI::PositiveNumber);
  app.add_option("-j,--threads", threads, "Worker threads for requests and rebuilds")
      ->check(CLI::Range(1u, 64u));
  app.add_option("--diagnostics-docs-url", docsUrl,
                 "Base URL of the diagnostics catalogue page (codeDescription.href)");
  CLI11_PARSE(app, argc, argv);

  if (version) {
    std::cout << "kina-lsp " << KINA_VERSION << "\n";
    return 0;
  }
  kina::lsp::Logger log(logFile, verbose ? kina::lsp::Logger::Level::Verbose
                                         : kina::lsp::Logger::Level::Info);
  for (const auto &extra : app.remaining())
    log.info("ignoring unknown argument " + extra);

  kina::lsp::TransportOptions topts;
  topts.litTest = litTest;
  topts.pretty = pretty || litTest;
  topts.maxMessageBytes = maxMessageBytes;
  kina::lsp::Transport transport(stdin, stdout, log, topts);

  kina::lsp::ServerOptions sopts;
  sopts.sync = litTest || sync;
  sopts.requestThreads = threads;
  sopts.maxConcurrentBuilds = threads;
#ifdef KINA_DOCS_DIR
  sopts.diagnosticsDocsUrl = "file://" KINA_DOCS_DIR "/diagnostics.md";
#endif
  if (!docsUrl.empty())
    sopts.diagnosticsDocsUrl = docsUrl;
  kina::lsp::Server server(transport, log, sopts);
  log.info(std::string("kina-lsp ") + KINA_VERSION + " started");
  int code = server.run();
  log.info("exiting with " + std::to_string(code));
  return code;
}
