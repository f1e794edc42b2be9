//===- Evaluate.cpp - Concrete values of dimension expressions ------------===//
//
// Recursive, overflow-checked evaluation of DimExprs and their atoms.
//
//===----------------------------------------------------------------------===//
#include "sema/solver/Evaluate.h"

#include "sema/solver/CheckedMath.h"

namespace kina::sema::solver {

using namespace detail;

void Assignment::set(AtomId Symbol, int64_t Value) {
  if (Symbol >= Values.size())
    Values.resize(Symbol + 1);
  Values[Symbol] = Value;
}

std::optional<int64_t> Assignment::get(AtomId Symbol) const {
  return Symbol < Values.size() ? Values[Symbol] : std::nullopt;
}

namespace {
struct Evaluator {
  const SymbolTable &Syms;
  const Assignment &A;
  EvalResult Failure;

  bool fail(EvalError E, std::string Message) {
    if (Failure.Error == EvalError::None) {
      Failure.Error = E;
      Failure.Message = std::move(Message);
    }
    return false;
  }

  bool expr(const DimExpr &E, int64_t &Out) {
    if (!E.isValid())
      return fail(EvalError::InvalidExpr, "dimension expression overflows");
    int64_t Sum = E.constantTerm();
    for (const Term &T : E.terms()) {
      int64_t V, P;
      if (!atom(T.Atom, V))
        return false;
      if (!checkedMul(V, T.Coeff, P) || !checkedAdd(Sum, P, Sum))
        return fail(EvalError::Overflow, "`" + Syms.str(E) + "` overflows");
    }
    Out = Sum;
    return true;
  }

  bool atom(AtomId Id, int64_t &Out) {
    const AtomInfo &Info = Syms.info(Id);
    switch (Info.Kind) {
    case AtomKind::Symbol:
      if (auto V = A.get(Id)) {
        Out = *V;
        return true;
      }
      return fail(EvalError::UnboundSymbol, "no value for `" + Info.Name + "`");
    case AtomKind::Product: {
      int64_t P = 1;
      for (AtomId F : Info.Factors) {
        int64_t V;
        if (!atom(F, V))
          return false;
        if (!checkedMul(P, V, P))
          return fail(EvalError::Overflow, "`" + Syms.atomStr(Id) + "` overflows");
      }
      Out = P;
      return true;
    }
    case AtomKind::ExactDiv:
    case AtomKind::FloorDiv:
    case AtomKind::CeilDiv:
    case AtomKind::Mod: {
      int64_t V;
      if (!expr(Info.Operand, V))
        return false;
      int64_t N = Info.Divisor;
      if (Info.Kind == AtomKind::Mod)
        Out = floorMod(V, N);
      else if (Info.Kind == AtomKind::FloorDiv)
        Out = floorDiv(V, N);
      else if (Info.Kind == AtomKind::CeilDiv)
        Out = ceilDiv(V, N);
      else if (V % N != 0)
        return fail(EvalError::InexactDivision, "`" + Syms.atomStr(Id) + "` is not exact: `" +
                                                    Syms.str(Info.Operand) +
                                                    "` = " + std::to_string(V));
      else
        Out = V / N;
      return true;
    }
    }
    return fail(EvalError::InvalidExpr, "unknown atom");
  }
};
} // namespace

EvalResult evaluate(const SymbolTable &Syms, const DimExpr &E, const Assignment &A) {
  Evaluator Ev{Syms, A, {}};
  int64_t V;
  if (!Ev.expr(E, V))
    return Ev.Failure;
  EvalResult R;
  R.Value = V;
  return R;
}

} // namespace kina::sema::solver
