//===- SourceLoader.h - Read source files for the CLI -----------*- C++ -*-===//
//
// The one way the driver reads a .kina file. Only regular files of at most
// kMaxSourceBytes (64 MiB, the limit K0011 names) are read; anything else is
// refused before a byte is read: a device (`/dev/zero` never ends), a FIFO
// (it blocks until a writer comes), a socket, a directory, a larger file.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Source.h"

#include <cstddef>
#include <optional>
#include <string>

namespace kina::driver {

/// The largest source file the compiler reads (the parser's K0011 limit).
constexpr size_t kMaxSourceBytes = size_t(64) << 20;

/// Reads a whole file; on failure returns nullopt and fills `error` (which
/// starts with the path).
std::optional<SourceFile> loadSource(const std::string &path, std::string &error);

} // namespace kina::driver
