//===- DimPrinter.cpp - Kina surface syntax for dimension expressions -----===//
//
// Prints DimExprs the way a user writes them: positive terms first in atom
// order (`block_m * 128 + warp_m * 64`), then negative terms (`K - k * 16`),
// then the constant. Divisions and `mod` print as `K / 16`, `M mod 128`;
// their operands are parenthesized unless they are a plain symbol.
//
//===----------------------------------------------------------------------===//
#include "sema/solver/CheckedMath.h"
#include "sema/solver/SymbolTable.h"

namespace kina::sema::solver {

using namespace detail;

namespace {
bool needsParensAsFactor(AtomKind K) {
  return K != AtomKind::Symbol && K != AtomKind::Product;
}
} // namespace

std::string SymbolTable::atomStr(AtomId A) const {
  const AtomInfo &Info = Atoms[A];
  std::string Out;
  switch (Info.Kind) {
  case AtomKind::Symbol:
    return Info.Name;
  case AtomKind::Product:
    for (size_t I = 0; I < Info.Factors.size(); ++I) {
      if (I)
        Out += " * ";
      AtomId F = Info.Factors[I];
      if (needsParensAsFactor(Atoms[F].Kind))
        Out += "(" + atomStr(F) + ")";
      else
        Out += atomStr(F);
    }
    return Out;
  case AtomKind::ExactDiv:
  case AtomKind::Mod: {
    bool Plain = Info.Operand.asAtom() && isSymbol(*Info.Operand.asAtom());
    appendExpr(Out, Info.Operand, !Plain);
    Out += Info.Kind == AtomKind::Mod ? " mod " : " / ";
    Out += std::to_string(Info.Divisor);
    return Out;
  }
  case AtomKind::FloorDiv:
  case AtomKind::CeilDiv: {
    Out += Info.Kind == AtomKind::FloorDiv ? "floor_div " : "ceil_div ";
    bool Plain = Info.Operand.asAtom() && isSymbol(*Info.Operand.asAtom());
    appendExpr(Out, Info.Operand, !Plain);
    Out += " " + std::to_string(Info.Divisor);
    return Out;
  }
  }
  return Out;
}

void SymbolTable::appendExpr(std::string &Out, const DimExpr &E, bool Parenthesize) const {
  if (!E.isValid()) {
    Out += "<overflow>";
    return;
  }
  if (Parenthesize)
    Out += "(";
  bool First = true;
  auto AppendTerm = [&](const Term &T) {
    bool Negative = T.Coeff < 0;
    if (First)
      Out += Negative ? "-" : "";
    else
      Out += Negative ? " - " : " + ";
    First = false;
    uint64_t Mag = magnitude(T.Coeff);
    bool Wrap = Mag != 1 && needsParensAsFactor(Atoms[T.Atom].Kind);
    Out += Wrap ? "(" + atomStr(T.Atom) + ")" : atomStr(T.Atom);
    if (Mag != 1)
      Out += " * " + std::to_string(Mag);
  };
  for (const Term &T : E.terms())
    if (T.Coeff > 0)
      AppendTerm(T);
  for (const Term &T : E.terms())
    if (T.Coeff < 0)
      AppendTerm(T);
  int64_t C = E.constantTerm();
  if (First)
    Out += std::to_string(C);
  else if (C != 0)
    Out += (C < 0 ? " - " : " + ") + std::to_string(magnitude(C));
  if (Parenthesize)
    Out += ")";
}

std::string SymbolTable::str(const DimExpr &E) const {
  std::string Out;
  appendExpr(Out, E, false);
  return Out;
}

} // namespace kina::sema::solver
