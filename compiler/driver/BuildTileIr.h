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

/// `kina check --backend=tileir`: lowers a checked kernel to Tile IR
/// bytecode (no assembler needed) and checks the registry's requirements;
/// appends K1124/K1125/K1122 and returns false when the backend cannot take it.
bool checkKernelForTileIr(const ir::Kernel &kernel, const std::string &targetName,
                          std::vector<Diagnostic> &diags);

/// `kina build --backend=tileir`: the same, then tileiras; writes the cubin
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
