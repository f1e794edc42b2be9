//===- Transport.h - JSON-RPC 2.0 framing over a byte stream ----*- C++ -*-===//
//
// Reads and writes LSP base-protocol messages: `Content-Length: N\r\n\r\n`
// followed by N bytes of JSON. Bad input never ends the session: a malformed
// header, a missing or oversized length, or unparsable JSON is returned as a
// FramingError (the server answers it with a JSON-RPC error whose id is null)
// and reading resumes at the next header. Only end of input ends reading.
//
// In lit-test mode (clangd's `-lit-test`), input messages are plain JSON
// separated by lines of `---`, with `#` comment lines, so that transcripts
// under tests/lit/lsp/ stay readable; output keeps its headers and is pretty.
//
// Threading: read() is called by the main thread only; send() by any thread.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Logger.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <mutex>
#include <string>

namespace kina::lsp {

struct TransportOptions {
  size_t maxMessageBytes = 64u << 20; ///< larger bodies are skipped with an error
  bool litTest = false;
  bool pretty = false;
};

struct Incoming {
  enum class Kind { Message, FramingError, Eof } kind = Kind::Eof;
  nlohmann::json message;
  int errorCode = 0; ///< a JSON-RPC error code for FramingError
  std::string error;
};

class Transport {
public:
  Transport(std::FILE *in, std::FILE *out, Logger &log, TransportOptions options = {});

  /// Blocks for the next message, framing error or end of input.
  Incoming read();
  /// Writes one message (thread-safe). Invalid UTF-8 in strings is replaced.
  void send(const nlohmann::json &message);
  /// Writes one message already serialized as compact JSON (thread-safe).
  void sendBody(const std::string &body);
  /// Messages are written indented (lit-test transcripts).
  bool pretty() const { return options_.pretty; }
  /// Bytes written so far (for tests and statistics).
  size_t bytesSent() const;

private:
  Incoming readFramed();
  Incoming readLit();
  /// Reads one header line without its line ending; false at end of input.
  /// Lines longer than 8 KiB are truncated (the rest is discarded).
  bool readLine(std::string &line);
  Incoming parseBody(const std::string &body);

  std::FILE *in_;
  std::FILE *out_;
  Logger &log_;
  TransportOptions options_;
  mutable std::mutex outMutex_;
  size_t bytesSent_ = 0;
};

} // namespace kina::lsp
