//===- Printer.h - Textual form of the tile IR ------------------*- C++ -*-===//
//
// The human-readable form printed by `kina build --emit=tile-ir`. It is
// stable enough for FileCheck tests; it is not parsed back.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/TileIR.h"

#include <string>

namespace kina::ir {

std::string print(const Kernel &kernel);
/// Prints an index expression using the kernel's names for dims and vars.
std::string printIndex(const Kernel &kernel, const IndexExpr &e);

} // namespace kina::ir
