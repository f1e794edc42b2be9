//===- SourceLoader.cpp - Read source files for the CLI -------------------===//
#include "driver/SourceLoader.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace kina::driver {

std::optional<SourceFile> loadSource(const std::string &path, std::string &error) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    error = path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  if (S_ISDIR(st.st_mode)) {
    error = path + ": is a directory";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot open for reading";
    return std::nullopt;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return SourceFile(path, buffer.str());
}

} // namespace kina::driver
