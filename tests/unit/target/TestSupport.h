//===- TestSupport.h - Shared helpers of the target unit tests --*- C++ -*-===//
//
// Reading test inputs from the source tree and temporarily setting
// environment variables.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace kina::target::test {

inline std::string sourceRoot() { return KINA_TEST_SOURCE_ROOT; }

inline std::optional<std::string> readSourceFile(const std::string &relative) {
  std::ifstream in(sourceRoot() + "/" + relative, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Sets (or unsets, with nullopt) an environment variable for one scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, std::optional<std::string> value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    if (value)
      ::setenv(name, value->c_str(), 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

private:
  const char *name_;
  std::optional<std::string> old_;
};

} // namespace kina::target::test
