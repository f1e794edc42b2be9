//===- SourceLoader.h - Read source files for the CLI -----------*- C++ -*-===//
#pragma once

#include "diag/Source.h"

#include <memory>
#include <optional>
#include <string>

namespace kina::driver {

/// Reads a whole file; on failure returns nullopt and fills `error`.
std::optional<SourceFile> loadSource(const std::string &path, std::string &error);

} // namespace kina::driver
