//===- SolverTestUtil.h - Shared fixture for the solver tests ---*- C++ -*-===//
//
// A fixture owning a SymbolTable and a Context, with shorthands for making
// symbols and expressions, used by every kina_solver test file.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "sema/solver/Context.h"
#include "sema/solver/Evaluate.h"

#include <gtest/gtest.h>

namespace kina::sema::solver::test {

class SolverTest : public ::testing::Test {
protected:
  SymbolTable S;
  Context C{S};

  DimExpr dim(const char *Name) { return S.newSymbolExpr(Name, SymbolKind::Dim); }
  DimExpr var(const char *Name, SymbolKind K = SymbolKind::LoopVar) {
    return S.newSymbolExpr(Name, K);
  }
  static DimExpr cst(int64_t V) { return DimExpr::constant(V); }
  static AtomId id(const DimExpr &E) { return *E.asAtom(); }
  std::string str(const DimExpr &E) { return S.str(E); }
  /// `for x in (lo .. hi)`.
  void range(const DimExpr &X, const DimExpr &Lo, const DimExpr &Hi) { C.assumeRange(X, Lo, Hi); }
  /// The texts of a proof's suggestions.
  static std::vector<std::string> texts(const Proof &P) {
    std::vector<std::string> Out;
    for (const Suggestion &Sg : P.Suggestions)
      Out.push_back(Sg.Text);
    return Out;
  }
};

} // namespace kina::sema::solver::test
