//===- ProveBounds.cpp - Linear inequality proofs -------------------------===//
//
// The bounds queries (`E >= 0`, `A <= B`, `A < B`, `A = B`): interval
// arithmetic first, then a bounded depth-first search that cancels terms of
// the goal with nonnegative multiples of facts (Fourier-Motzkin-lite). See
// Context.h for the procedure and its soundness argument: every step turns
// the goal g into k·g - λ·p with k > 0 and λ·p >= 0, so proving the new
// goal nonnegative proves g nonnegative.
//
//===----------------------------------------------------------------------===//
#include "sema/solver/CheckedMath.h"
#include "sema/solver/Context.h"

#include <algorithm>

namespace kina::sema::solver {

using namespace detail;

namespace {
constexpr unsigned kMaxDepth = 12;

/// Σ g·ti + c >= 0  <=>  Σ ti + floor(c / g) >= 0 over the integers.
DimExpr tighten(const DimExpr &G) {
  if (!G.isValid() || G.terms().empty())
    return G;
  int64_t D = 0;
  for (const Term &T : G.terms())
    D = gcd64(D, T.Coeff);
  if (D <= 1)
    return G;
  std::vector<Term> Terms;
  for (const Term &T : G.terms())
    Terms.push_back({T.Atom, T.Coeff / D});
  return DimExpr::fromTerms(floorDiv(G.constantTerm(), D), std::move(Terms));
}

int sign(int64_t V) { return V > 0 ? 1 : (V < 0 ? -1 : 0); }
} // namespace

unsigned Context::rank(AtomId A) const {
  const AtomInfo &Info = Syms.info(A);
  unsigned Max = 0;
  for (AtomId S : Info.Symbols)
    Max = std::max(Max, S < Stamps.size() ? Stamps[S] : 0u);
  // An opaque atom goes before the symbols it is built from.
  return Info.Kind == AtomKind::Symbol ? 2 * Max : 2 * Max + 1;
}

void Context::factsOf(AtomId X, std::vector<Fact> &Out) {
  if (X < ByAtom.size())
    for (uint32_t I : ByAtom[X])
      if (Facts[I].K != Fact::Kind::Divisible)
        Out.push_back(Facts[I]);
  AtomInfo Info = Syms.info(X); // copy: the table may grow below
  DimExpr Xe = DimExpr::atom(X);
  int64_t N = Info.Divisor;
  const DimExpr &E = Info.Operand;
  switch (Info.Kind) {
  case AtomKind::Symbol:
    if (Info.SymKind == SymbolKind::Dim)
      Out.push_back(Fact::nonNegative(Xe - 1));
    break;
  case AtomKind::Product:
    break;
  case AtomKind::ExactDiv:
  case AtomKind::FloorDiv:
  case AtomKind::CeilDiv:
    // n | E makes every rounding exact: n·x = E.
    if (divisible(E, N, nullptr) == Tri::Yes) {
      Out.push_back(Fact::zero(Xe.scaled(N) - E));
      break;
    }
    if (Info.Kind == AtomKind::CeilDiv) {
      Out.push_back(Fact::nonNegative(Xe.scaled(N) - E));
      Out.push_back(Fact::nonNegative(E + (N - 1) - Xe.scaled(N)));
      break;
    }
    // Floor division, and exact division whose exactness is not proved.
    Out.push_back(Fact::nonNegative(E - Xe.scaled(N)));
    Out.push_back(Fact::nonNegative(Xe.scaled(N) + (N - 1) - E));
    break;
  case AtomKind::Mod:
    if (divisible(E, N, nullptr) == Tri::Yes) {
      Out.push_back(Fact::zero(Xe));
      break;
    }
    Out.push_back(Fact::nonNegative(Xe));
    Out.push_back(Fact::nonNegative(DimExpr::constant(N - 1) - Xe));
    if (exprRange(E).Lo >= 0)
      Out.push_back(Fact::nonNegative(E - Xe));
    break;
  }
}

bool Context::searchNonNegative(DimExpr G, Search &S, unsigned Depth) {
  G = tighten(G);
  if (!G.isValid())
    return false;
  if (exprRange(G).Lo >= 0)
    return true;
  if (G.isConstant() || S.Budget == 0 || Depth >= kMaxDepth)
    return false;
  --S.Budget;
  if (!S.Seen.insert(G).second)
    return false;
  if (Syms.onlyDims(G) && (!S.Residual || G.terms().size() < S.Residual->terms().size()))
    S.Residual = G;

  // Every way to cancel one term of G with one fact.
  struct Step {
    unsigned Rank;
    int64_t C;  ///< coefficient of the term in G
    int64_t Ca; ///< coefficient of the term in P
    DimExpr P;  ///< P >= 0 (or P = 0 when Equality)
    bool Equality;
  };
  std::vector<Step> Steps;
  std::vector<Fact> Fs;
  auto Consider = [&](unsigned Rank, const Term &T, const Fact &F, const DimExpr &P) {
    int64_t Ca = P.coeffOf(T.Atom);
    bool Eq = F.K == Fact::Kind::Zero;
    if (Ca != 0 && P.isValid() && (Eq || sign(Ca) == sign(T.Coeff)))
      Steps.push_back({Rank, T.Coeff, Ca, P, Eq});
  };
  std::vector<Term> Terms = G.terms();
  for (const Term &T : Terms) {
    if (Syms.info(T.Atom).Kind != AtomKind::Product) {
      Fs.clear();
      factsOf(T.Atom, Fs);
      unsigned R = rank(T.Atom);
      for (const Fact &F : Fs)
        Consider(R, T, F, F.E);
      continue;
    }
    // c·x·r: use p·r (or p·(-r)) for facts p about x, when r has a known sign.
    std::vector<AtomId> Factors = Syms.info(T.Atom).Factors;
    for (size_t I = 0; I < Factors.size(); ++I) {
      AtomId X = Factors[I];
      if ((I > 0 && Factors[I - 1] == X) || (I + 1 < Factors.size() && Factors[I + 1] == X))
        continue; // x² and beyond: p·r would not be linear in x
      DimExpr Cof = DimExpr::constant(1);
      for (size_t J = 0; J < Factors.size(); ++J)
        if (J != I)
          Cof = Syms.mul(Cof, DimExpr::atom(Factors[J]));
      Interval CR = exprRange(Cof);
      int Sign = CR.Lo >= 0 ? 1 : (CR.Hi <= 0 ? -1 : 0);
      if (Sign == 0)
        continue;
      Fs.clear();
      factsOf(X, Fs);
      unsigned R = rank(X);
      for (const Fact &F : Fs)
        Consider(R, T, F, Syms.mul(F.E, Cof.scaled(Sign)));
    }
  }
  std::stable_sort(Steps.begin(), Steps.end(),
                   [](const Step &A, const Step &B) { return A.Rank > B.Rank; });

  for (const Step &St : Steps) {
    if (S.Budget == 0)
      return false;
    // K·C - L·Ca = 0 with K > 0; L >= 0 unless P is an equality.
    int64_t D = gcd64(St.C, St.Ca);
    int64_t Cn = St.C / D, An = St.Ca / D;
    int64_t K = An < 0 ? -An : An;
    int64_t L = An < 0 ? -Cn : Cn;
    if (!St.Equality && L < 0)
      continue;
    DimExpr Next = DimExpr::combine(K, G, -L, St.P);
    if (searchNonNegative(std::move(Next), S, Depth + 1))
      return true;
  }
  return false;
}

bool Context::nonNegative(const DimExpr &E, unsigned Budget, std::optional<DimExpr> *Residual) {
  Search S{Budget, {}, std::nullopt};
  bool Ok = searchNonNegative(E, S, 0);
  if (Residual)
    *Residual = std::move(S.Residual);
  return Ok;
}

Proof Context::boundsProof(const DimExpr &E, std::string Goal, const ProofOptions &O) {
  Proof P;
  P.Goal = std::move(Goal);
  DimExpr G = expand(E);
  if (!G.isValid()) {
    P.Message = "cannot prove " + P.Goal + ": the dimension arithmetic overflows";
    return P;
  }
  std::optional<DimExpr> Residual;
  if (nonNegative(G, O.Budget, &Residual)) {
    P.Result = Verdict::Proved;
    return P;
  }
  if (exprRange(tighten(G)).Hi < 0) {
    P.Result = Verdict::Disproved;
    P.Message = P.Goal + " does not hold";
    return P;
  }
  P.Message = "cannot prove " + P.Goal;
  if (O.Suggest)
    suggestForBounds({G}, Residual, O.Budget, P);
  return P;
}

Proof Context::proveNonNegative(const DimExpr &E, const ProofOptions &O) {
  return boundsProof(E, Syms.str(E) + " >= 0", O);
}

Proof Context::proveLessEqual(const DimExpr &A, const DimExpr &B, const ProofOptions &O) {
  return boundsProof(B - A, Syms.str(A) + " <= " + Syms.str(B), O);
}

Proof Context::proveLess(const DimExpr &A, const DimExpr &B, const ProofOptions &O) {
  return boundsProof(B - A - 1, Syms.str(A) + " < " + Syms.str(B), O);
}

Proof Context::proveEqual(const DimExpr &A, const DimExpr &B, const ProofOptions &O) {
  Proof P;
  P.Goal = Syms.str(A) + " = " + Syms.str(B);
  DimExpr X = expand(A), Y = expand(B);
  if (!X.isValid() || !Y.isValid()) {
    P.Message = "cannot prove " + P.Goal + ": the dimension arithmetic overflows";
    return P;
  }
  if (X == Y) {
    P.Result = Verdict::Proved;
    return P;
  }
  DimExpr Up = X - Y, Down = Y - X;
  std::optional<DimExpr> R1, R2;
  bool Ok1 = nonNegative(Up, O.Budget, &R1);
  bool Ok2 = Ok1 && nonNegative(Down, O.Budget, &R2);
  if (Ok1 && Ok2) {
    P.Result = Verdict::Proved;
    return P;
  }
  if (exprRange(tighten(Up)).Hi < 0 || exprRange(tighten(Down)).Hi < 0) {
    P.Result = Verdict::Disproved;
    P.Message = P.Goal + " does not hold";
    return P;
  }
  P.Message = "cannot prove " + P.Goal;
  if (O.Suggest)
    suggestForBounds({Up, Down}, Ok1 ? R2 : R1, O.Budget, P);
  return P;
}

} // namespace kina::sema::solver
