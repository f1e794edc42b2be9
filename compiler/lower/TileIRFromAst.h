//===- TileIRFromAst.h - Build tile IR from a checked kernel ----*- C++ -*-===//
//
// Layer: sema -> lower -> ir. Takes an Analysis whose diagnostics contain no
// error and emits the named kernel as verified-ready tile IR.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/TileIR.h"
#include "sema/Frontend.h"

#include "llvm/Support/Error.h"

#include <string_view>

namespace kina::lower {

llvm::Expected<ir::Kernel> lowerKernel(const sema::Analysis &analysis, std::string_view kernel);

} // namespace kina::lower
