//===- Evaluate.h - Concrete values of dimension expressions ----*- C++ -*-===//
//
// Evaluates a DimExpr under a concrete assignment of its symbols, e.g. the
// launch guard binding `M = 4096, K = 1024` or the reference interpreter
// binding a loop variable. Every step is overflow-checked; `/` must divide
// exactly (it is exact division), `mod` is the remainder in [0, n), floor
// and ceil division round towards -inf / +inf.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "sema/solver/SymbolTable.h"

#include <optional>
#include <string>
#include <vector>

namespace kina::sema::solver {

/// Concrete values for some symbols.
class Assignment {
public:
  void set(AtomId Symbol, int64_t Value);
  std::optional<int64_t> get(AtomId Symbol) const;
  void clear() { Values.clear(); }

private:
  std::vector<std::optional<int64_t>> Values;
};

enum class EvalError : uint8_t {
  None,
  UnboundSymbol,   ///< a symbol has no value in the assignment
  Overflow,        ///< an intermediate value does not fit in int64
  InexactDivision, ///< `e / n` where n does not divide the value of e
  InvalidExpr,     ///< the expression itself is invalid (overflowed when built)
};

struct EvalResult {
  std::optional<int64_t> Value; ///< set exactly when Error is None
  EvalError Error = EvalError::None;
  std::string Message; ///< e.g. "K / 16 is not exact: K = 40"
  explicit operator bool() const { return Value.has_value(); }
};

/// The value of E under A.
EvalResult evaluate(const SymbolTable &Syms, const DimExpr &E, const Assignment &A);

/// The value of E when it is a (valid) constant.
inline std::optional<int64_t> constantValue(const DimExpr &E) { return E.constantValue(); }

} // namespace kina::sema::solver
