//===- Build.h - The algebraic IR of a checked host function ----*- C++ -*-===//
//
// Layer: sema -> algebraic. Takes an error-free Analysis and builds the
// algebraic IR of one host function from its checked AST and the checker's
// expression types. A construct the checker accepts that this version does
// not compile is K1280 at its span.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "algebraic/AlgebraicIR.h"
#include "diag/Diagnostic.h"
#include "sema/Frontend.h"

#include <string>
#include <variant>
#include <vector>

namespace kina::algebraic {

/// The host functions of the analysis, in source order.
std::vector<std::string> hostFunctionNames(const sema::Analysis &analysis);

/// The algebraic IR of host function `name`, or the diagnostics saying why
/// not (K1282 when there is no such host function, K1280 for a construct
/// not compiled).
std::variant<Function, std::vector<Diagnostic>> buildFunction(const sema::Analysis &analysis,
                                                              const std::string &name);

} // namespace kina::algebraic
