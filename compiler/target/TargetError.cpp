//===- TargetError.cpp - TargetError implementation -----------------------===//
//
// The llvm::ErrorInfo plumbing for TargetError.
//
//===----------------------------------------------------------------------===//
#include "target/TargetError.h"

#include "llvm/Support/raw_ostream.h"

namespace kina::target {

char TargetError::ID = 0;

void TargetError::log(llvm::raw_ostream &os) const {
  os << message_;
}

std::error_code TargetError::convertToErrorCode() const { return llvm::inconvertibleErrorCode(); }

llvm::Error makeTargetError(DiagId id, std::string message) {
  return llvm::make_error<TargetError>(id, std::move(message));
}

TargetFailure takeTargetFailure(llvm::Error err) {
  TargetFailure out{DiagId::ToolFailed, ""};
  llvm::handleAllErrors(
      std::move(err),
      [&](const TargetError &e) {
        out.id = e.diagId();
        out.message = e.text();
      },
      [&](const llvm::ErrorInfoBase &e) { out.message = e.message(); });
  return out;
}

} // namespace kina::target
