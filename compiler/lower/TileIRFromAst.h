//===- TileIRFromAst.h - Build tile IR from a checked kernel ----*- C++ -*-===//
//
// Layer: sema -> lower -> ir. Takes an Analysis whose diagnostics contain no
// error and emits the named kernel as verified-ready tile IR.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/TileIR.h"
#include "diag/Diagnostic.h"
#include "sema/Frontend.h"

#include "llvm/Support/Error.h"

#include <string_view>

namespace kina::lower {

/// Why a checked kernel could not be lowered: a construct the checker
/// accepted that the lowering cannot handle (a compiler bug), at its span.
class LoweringError : public llvm::ErrorInfo<LoweringError> {
public:
  static char ID;
  LoweringError(Span span, std::string message) : span(span), message(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }
  Span span;
  std::string message;
};

/// Lowers kernel `kernel` of an error-free analysis. Fails with a
/// LoweringError (or a plain error when the analysis has errors or no such
/// kernel).
llvm::Expected<ir::Kernel> lowerKernel(const sema::Analysis &analysis, std::string_view kernel);

/// The internal diagnostic K1210 for a failure of lowerKernel, at the
/// LoweringError's span (`fallback` for other errors).
Diagnostic loweringDiagnostic(llvm::Error error, Span fallback);

} // namespace kina::lower
