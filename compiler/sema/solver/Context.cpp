//===- Context.cpp - Facts in scope ----------------------------------------===//
//
// Adding, normalizing, indexing and scoping facts and definitions, and
// printing facts in Kina syntax. The queries live in ProveBounds.cpp,
// ProveDivisibility.cpp and Suggest.cpp; numeric ranges in Bounds.cpp.
//
//===----------------------------------------------------------------------===//
#include "sema/solver/Context.h"

#include <algorithm>

#include "sema/solver/CheckedMath.h"

namespace kina::sema::solver {

using namespace detail;

Context::Context(SymbolTable &Syms) : Syms(Syms) {}

void Context::push() {
  Marks.push_back({Facts.size(), IndexLog.size(), DefLog.size(), StampLog.size(), Contradiction});
}

void Context::pop() {
  if (Marks.empty())
    return;
  Mark M = Marks.back();
  Marks.pop_back();
  Facts.resize(M.Facts);
  FactOrigins.resize(M.Facts);
  while (IndexLog.size() > M.IndexLog) {
    ByAtom[IndexLog.back()].pop_back();
    IndexLog.pop_back();
  }
  while (DefLog.size() > M.DefLog) {
    DefEntry &D = DefLog.back();
    if (!D.Previous)
      --NumDefs;
    Defs[D.Atom] = std::move(D.Previous);
    DefLog.pop_back();
  }
  while (StampLog.size() > M.StampLog) {
    Stamps[StampLog.back()] = 0;
    StampLog.pop_back();
  }
  Contradiction = M.Contradiction;
  changed();
}

DimExpr Context::expand(const DimExpr &E) {
  if (NumDefs == 0 || !E.isValid())
    return E;
  return Syms.substitute(E, [this](AtomId S) -> const DimExpr * {
    return (S < Defs.size() && Defs[S]) ? &*Defs[S] : nullptr;
  });
}

void Context::stamp(const DimExpr &E) {
  for (const Term &T : E.terms())
    for (AtomId S : Syms.info(T.Atom).Symbols) {
      grow(Stamps, S + 1);
      if (Stamps[S] == 0) {
        Stamps[S] = NextStamp++;
        StampLog.push_back(S);
      }
    }
}

namespace {
/// gcd of the coefficients (0 for constants).
int64_t termContent(const DimExpr &E) {
  int64_t G = 0;
  for (const Term &T : E.terms())
    G = gcd64(G, T.Coeff);
  return G;
}

DimExpr divideTerms(const DimExpr &E, int64_t G, int64_t NewConst) {
  return E.termsDividedBy(G, NewConst);
}
} // namespace

void Context::assume(const Fact &F) {
  Fact N = F;
  N.E = expand(F.E);
  if (!N.E.isValid())
    return;
  switch (N.K) {
  case Fact::Kind::NonNegative: {
    if (auto C = N.E.constantValue()) {
      if (*C < 0)
        Contradiction = true;
      changed();
      return;
    }
    // Σ g·ti + c >= 0  <=>  Σ ti + floor(c / g) >= 0 over the integers.
    int64_t G = termContent(N.E);
    if (G > 1)
      N.E = divideTerms(N.E, G, floorDiv(N.E.constantTerm(), G));
    break;
  }
  case Fact::Kind::Zero: {
    if (auto C = N.E.constantValue()) {
      if (*C != 0)
        Contradiction = true;
      changed();
      return;
    }
    int64_t G = termContent(N.E);
    if (N.E.constantTerm() % G != 0) {
      Contradiction = true;
      changed();
      return;
    }
    if (G > 1)
      N.E = divideTerms(N.E, G, N.E.constantTerm() / G);
    break;
  }
  case Fact::Kind::Divisible: {
    if (N.Modulus <= 0)
      return;
    // Reduce every coefficient into [0, n), then cancel the common factor.
    std::vector<Term> Terms;
    for (const Term &T : N.E.terms())
      if (int64_t R = floorMod(T.Coeff, N.Modulus))
        Terms.push_back({T.Atom, R});
    DimExpr R = DimExpr::fromTerms(floorMod(N.E.constantTerm(), N.Modulus), std::move(Terms));
    int64_t G = gcd64(termContent(R), gcd64(R.constantTerm(), N.Modulus));
    if (G > 1) {
      R = divideTerms(R, G, R.constantTerm() / G);
      N.Modulus /= G;
    }
    if (N.Modulus == 1)
      return;
    if (R.isConstant()) {
      if (R.constantTerm() % N.Modulus != 0)
        Contradiction = true;
      changed();
      return;
    }
    N.E = R;
    break;
  }
  }
  stamp(N.E);
  addFact(std::move(N));
}

void Context::addFact(Fact F) {
  uint32_t Index = uint32_t(Facts.size());
  for (const Term &T : F.E.terms()) {
    grow(ByAtom, T.Atom + 1);
    ByAtom[T.Atom].push_back(Index);
    IndexLog.push_back(T.Atom);
  }
  Facts.push_back(std::move(F));
  FactOrigins.push_back(Origin);
  changed();
}

std::vector<size_t> Context::factsAbout(const DimExpr &E) {
  // Symbols mentioned by an expression, directly or inside opaque atoms.
  auto symbolsOf = [this](const DimExpr &X, std::vector<AtomId> &Out) {
    auto Add = [&](AtomId A) {
      if (std::find(Out.begin(), Out.end(), A) == Out.end())
        Out.push_back(A);
    };
    for (const Term &T : X.terms()) {
      const AtomInfo &Info = Syms.info(T.Atom);
      if (Info.Kind == AtomKind::Symbol)
        Add(T.Atom);
      for (AtomId S : Info.Symbols)
        Add(S);
    }
  };
  std::vector<AtomId> Wanted;
  DimExpr G = expand(E);
  if (!G.isValid())
    return {};
  symbolsOf(G, Wanted);
  std::vector<char> Taken(Facts.size(), 0);
  std::vector<AtomId> Mine;
  for (unsigned Round = 0; Round < 2; ++Round) {
    bool Grew = false;
    size_t Known = Wanted.size();
    for (size_t I = 0; I < Facts.size(); ++I) {
      if (Taken[I])
        continue;
      Mine.clear();
      symbolsOf(Facts[I].E, Mine);
      bool Shares = false;
      for (AtomId A : Mine)
        Shares |= std::find(Wanted.begin(), Wanted.begin() + Known, A) != Wanted.begin() + Known;
      if (!Shares)
        continue;
      Taken[I] = 1;
      Grew = true;
      for (AtomId A : Mine)
        if (std::find(Wanted.begin(), Wanted.end(), A) == Wanted.end())
          Wanted.push_back(A);
    }
    if (!Grew)
      break;
  }
  std::vector<size_t> Out;
  for (size_t I = 0; I < Facts.size(); ++I)
    if (Taken[I])
      Out.push_back(I);
  return Out;
}

void Context::assumeRange(const DimExpr &X, const DimExpr &Lo, const DimExpr &Hi) {
  // The bound expressions were introduced before the bounded variable.
  DimExpr L = expand(Lo), H = expand(Hi);
  stamp(L);
  stamp(H);
  assume(Fact::nonNegative(X - L));
  assume(Fact::nonNegative(H - X - 1));
}

void Context::define(AtomId X, const DimExpr &E) {
  DimExpr Value = expand(E);
  if (!Value.isValid() || !Syms.isSymbol(X))
    return;
  stamp(Value);
  grow(Defs, X + 1);
  DefLog.push_back({X, Defs[X]});
  if (!Defs[X])
    ++NumDefs;
  // Facts added before the definition still mention X: keep `X = E` for them.
  Fact Link = Fact::zero(DimExpr::atom(X) - Value);
  Defs[X] = std::move(Value);
  stamp(Link.E);
  if (Link.E.isValid() && !Link.E.isConstant())
    addFact(std::move(Link));
  changed();
}

std::string printFact(const SymbolTable &Syms, const Fact &F) {
  if (F.K == Fact::Kind::Divisible) {
    const DimExpr &E = F.E;
    bool Plain = E.asAtom() && Syms.isSymbol(*E.asAtom());
    std::string Operand = Syms.str(E);
    if (!Plain && !E.isConstant())
      Operand = "(" + Operand + ")";
    return Operand + " mod " + std::to_string(F.Modulus) + " = 0";
  }
  // Split into `positive side OP negative side`.
  std::vector<Term> Pos, Neg;
  for (const Term &T : F.E.terms())
    (T.Coeff > 0 ? Pos : Neg).push_back(T.Coeff > 0 ? T : Term{T.Atom, -T.Coeff});
  int64_t C = F.E.constantTerm();
  DimExpr L = DimExpr::fromTerms(0, Pos), R = DimExpr::fromTerms(0, Neg);
  // Keep the constant on the side where it reads naturally: `K >= 16`,
  // `N >= K + 1`, `K <= 100`.
  const char *Op = F.K == Fact::Kind::Zero ? " = " : " >= ";
  if (Pos.empty()) {
    // c - Σ neg >= 0  reads  `Σ neg <= c`.
    const char *Flip = F.K == Fact::Kind::Zero ? " = " : " <= ";
    return Syms.str(R) + Flip + std::to_string(C);
  }
  if (Neg.empty() && C <= 0)
    return Syms.str(L) + Op + std::to_string(-C);
  if (C > 0)
    L = L + C;
  else
    R = R + (-C);
  return Syms.str(L) + Op + Syms.str(R);
}

} // namespace kina::sema::solver
