//===- Logger.cpp - The server's log --------------------------------------===//
#include "Logger.h"

namespace kina::lsp {

Logger::Logger(const std::string &path, Level level) : level_(level) {
  if (path.empty())
    return;
  if (std::FILE *f = std::fopen(path.c_str(), "a")) {
    out_ = f;
    ownsFile_ = true;
  } else {
    std::fprintf(stderr, "E kina-lsp: cannot open log file '%s'; logging to stderr\n",
                 path.c_str());
  }
}

Logger::~Logger() {
  if (ownsFile_)
    std::fclose(out_);
}

void Logger::log(Level level, const std::string &message) {
  if (level > level_)
    return;
  double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  static const char letters[] = {'E', 'I', 'V'};
  std::lock_guard<std::mutex> lock(mu_);
  std::fprintf(out_, "%c[%.3f] %s\n", letters[static_cast<int>(level)], secs, message.c_str());
  std::fflush(out_);
}

} // namespace kina::lsp
