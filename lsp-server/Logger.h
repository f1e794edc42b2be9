//===- Logger.h - The server's log (stderr or --log=FILE) -------*- C++ -*-===//
//
// One line per event, prefixed with a level letter and the time since start
// (clangd's style: "I[12.345] ..."). Thread-safe. stdout is the protocol
// channel and is never written here.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>

namespace kina::lsp {

class Logger {
public:
  enum class Level { Error = 0, Info = 1, Verbose = 2 };

  /// Logs to `path`, or stderr when empty; falls back to stderr (and says so)
  /// when the file cannot be opened.
  explicit Logger(const std::string &path = "", Level level = Level::Info);
  ~Logger();
  Logger(const Logger &) = delete;
  Logger &operator=(const Logger &) = delete;

  void log(Level level, const std::string &message);
  void error(const std::string &m) { log(Level::Error, m); }
  void info(const std::string &m) { log(Level::Info, m); }
  void verbose(const std::string &m) { log(Level::Verbose, m); }
  void setLevel(Level level) { level_ = level; }

private:
  std::mutex mu_;
  std::FILE *out_ = stderr;
  bool ownsFile_ = false;
  Level level_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

} // namespace kina::lsp
