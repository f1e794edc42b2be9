//===- TargetError.h - Errors of the target layer with their code -*- C++ -*-===//
//
// Failures of tool discovery, ptxas, cubin reading and target validation
// travel as llvm::Error values of type TargetError, which carry the
// diagnostic catalogue code (K11xx) next to the message so the driver and
// the language server can turn them into kina::Diagnostic without parsing
// text. Nothing in this layer throws.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Diagnostic.h"

#include "llvm/Support/Error.h"

#include <string>

namespace kina::target {

class TargetError : public llvm::ErrorInfo<TargetError> {
public:
  static char ID;
  TargetError(DiagId id, std::string message) : id_(id), message_(std::move(message)) {}
  DiagId diagId() const { return id_; }
  const std::string &text() const { return message_; }
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;

private:
  DiagId id_;
  std::string message_;
};

llvm::Error makeTargetError(DiagId id, std::string message);

/// An error taken out of llvm::Error: the catalogue code and the message.
struct TargetFailure {
  DiagId id;
  std::string message;
};

/// Consumes `err` (which must be a failure). Errors that are not
/// TargetError become ToolFailed with their message.
TargetFailure takeTargetFailure(llvm::Error err);

} // namespace kina::target
