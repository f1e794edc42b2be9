//===- BuildTileIr.h - The Tile IR backend of check, build and run -*- C++ -*-===//
#pragma once

#include "diag/Diagnostic.h"
#include "ir/TileIR.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kina::driver {

/// `kina build --backend=tileir`: lowers and checks as `kina check
/// --backend=tileir` (tileir/CheckFile.h), then tileiras; writes the cubin
/// and <out>.tileirbc. False with a diagnostic, or with `ioError` set.
bool buildKernelWithTileIr(const ir::Kernel &kernel, const std::string &targetName,
                           const std::string &output, std::vector<Diagnostic> &diags,
                           std::string &ioError);

/// What `kina run --backend=tileir` launches: the cubin and the block size
/// tileiras chose for it (its REQNTID).
struct TileIrRunImage {
  std::vector<std::uint8_t> cubin;
  std::array<unsigned, 3> block{1, 1, 1};
  std::vector<unsigned> paramSizes; ///< the cubin's parameters, in order (bytes)
};

/// Assembles the kernel with the installed tileiras or, with `cubinPath`,
/// reads a cubin from `kina build --backend=tileir` and checks that the
/// bytecode beside it is this kernel's. Diagnostics as check/build; a file
/// problem sets `error`.
std::optional<TileIrRunImage> tileIrImageForRun(const ir::Kernel &kernel,
                                                const std::string &targetName,
                                                const std::string &cubinPath,
                                                std::vector<Diagnostic> &diags, std::string &error);

} // namespace kina::driver
