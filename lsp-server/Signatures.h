//===- Signatures.h - Signature help for primitive ops and items -*- C++ -*-===//
//
// Kina applies functions by juxtaposition (`wmma_mma c a b`), so signature
// help has to find the call around the cursor without parentheses: first in
// the parsed module (the innermost application whose name precedes the
// cursor and whose arguments reach it), else lexically on the cursor's line
// (for code still being typed, which does not parse yet). The primitive ops'
// signatures are the ones kina::sema checks (sema/CheckExpr.cpp); tile
// functions, kernels and host functions get theirs from their declaration.
//
// Pure functions of their inputs; thread-safe.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Analysis.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kina::syntax {
struct Module;
}

namespace kina::lsp {

struct OpSignature {
  std::string name;
  std::vector<std::string> params; ///< e.g. "c : register tile [m, n]"
  std::string result;              ///< e.g. "register tile [m, n]"
  std::string documentation;
};

/// Every primitive op that takes arguments, in a stable order.
const std::vector<OpSignature> &primitiveOpSignatures();
const OpSignature *findPrimitiveOp(std::string_view name);

/// The label `name p1 p2 ... : result` with each parameter a substring.
SignatureInfo toSignatureInfo(const OpSignature &op, unsigned activeParameter);

/// The signature of the call around `offset` in `text` (module may be null).
std::optional<SignatureInfo> signatureAt(const std::string &text, const syntax::Module *module,
                                         uint32_t offset);

} // namespace kina::lsp
