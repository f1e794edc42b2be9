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
constexpr size_t kMaxResiduals = 3;

/// Σ g·ti + c >= 0  <=>  Σ ti + floor(c / g) >= 0 over the integers.
DimExpr tighten(const DimExpr &G) {
  if (!G.isValid() || G.terms().empty())
    return G;
  int64_t D = 0;
  for (const Term &T : G.terms())
    D = gcd64(D, T.Coeff);
  if (D <= 1)
    return G;
  return G.termsDividedBy(D, floorDiv(G.constantTerm(), D));
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

void Context::factsOf(AtomId X, std::vector<const Fact *> &Explicit,
                      std::vector<Fact> &Implicit) {
  if (X < ByAtom.size())
    for (uint32_t I : ByAtom[X])
      if (Facts[I].K != Fact::Kind::Divisible)
        Explicit.push_back(&Facts[I]);
  const AtomInfo &Info = Syms.info(X);
  DimExpr Xe = DimExpr::atom(X);
  int64_t N = Info.Divisor;
  const DimExpr &E = Info.Operand;
  auto Add = [&](Fact F) { Implicit.push_back(std::move(F)); };
  switch (Info.Kind) {
  case AtomKind::Symbol:
    if (Info.SymKind == SymbolKind::Dim)
      Add(Fact::nonNegative(Xe - 1));
    break;
  case AtomKind::Product:
    break;
  case AtomKind::ExactDiv:
  case AtomKind::FloorDiv:
  case AtomKind::CeilDiv:
    // n | E makes every rounding exact: n·x = E.
    if (divisible(E, N, nullptr) == Tri::Yes) {
      Add(Fact::zero(Xe.scaled(N) - E));
      break;
    }
    if (Info.Kind == AtomKind::CeilDiv) {
      Add(Fact::nonNegative(Xe.scaled(N) - E));
      Add(Fact::nonNegative(E + (N - 1) - Xe.scaled(N)));
      break;
    }
    // Floor division, and exact division whose exactness is not proved.
    Add(Fact::nonNegative(E - Xe.scaled(N)));
    Add(Fact::nonNegative(Xe.scaled(N) + (N - 1) - E));
    break;
  case AtomKind::Mod:
    if (divisible(E, N, nullptr) == Tri::Yes) {
      Add(Fact::zero(Xe));
      break;
    }
    Add(Fact::nonNegative(Xe));
    Add(Fact::nonNegative(DimExpr::constant(N - 1) - Xe));
    if (exprRange(E).Lo >= 0)
      Add(Fact::nonNegative(E - Xe));
    break;
  }
}

DimExpr Context::eliminateExact(DimExpr G) {
  // n·(E / n) = E and (E mod n) = 0 when n | E: equalities, so substituting
  // them loses nothing. Operands are smaller than their atom: this ends.
  for (unsigned Round = 0; Round < 16 && G.isValid(); ++Round) {
    bool Changed = false;
    for (const Term &T : G.terms()) {
      const AtomInfo &Info = Syms.info(T.Atom);
      if (Info.Kind == AtomKind::Symbol || Info.Kind == AtomKind::Product)
        continue;
      if (divisible(Info.Operand, Info.Divisor, nullptr) != Tri::Yes)
        continue;
      int64_t C = T.Coeff;
      if (Info.Kind == AtomKind::Mod) {
        G = G - DimExpr::atom(T.Atom, C);
      } else {
        // K·G - L·(n·x - E) with K·c = L·n.
        int64_t D = gcd64(C, Info.Divisor);
        int64_t K = Info.Divisor / D, L = C / D;
        G = DimExpr::combine(K, G, -L, DimExpr::atom(T.Atom, Info.Divisor) - Info.Operand);
      }
      Changed = true;
      break;
    }
    if (!Changed)
      break;
    G = tighten(G);
  }
  return G;
}

void Context::noteResidual(const DimExpr &G, unsigned Depth, Search &S) {
  if (G.isConstant() || !Syms.onlyDims(G))
    return;
  // Prefer residuals over plain dims (`K >= N`, not `K >= (N / 128) * 128`),
  // then the least weakened (shallowest) ones.
  unsigned Opaque = 0;
  for (const Term &T : G.terms())
    Opaque += !Syms.isSymbol(T.Atom);
  unsigned Score = Opaque * 64 + Depth;
  for (const auto &R : S.Residuals)
    if (R.second == G)
      return;
  S.Residuals.push_back({Score, G});
  std::stable_sort(S.Residuals.begin(), S.Residuals.end(),
                   [](const auto &A, const auto &B) { return A.first < B.first; });
  if (S.Residuals.size() > kMaxResiduals)
    S.Residuals.pop_back();
}

bool Context::searchNonNegative(DimExpr G, Search &S, unsigned Depth) {
  G = eliminateExact(tighten(G));
  if (!G.isValid())
    return false;
  if (exprRange(G).Lo >= 0)
    return true;
  if (G.isConstant() || S.Budget == 0)
    return false;
  if (Depth >= S.DepthLimit) {
    S.HitLimit = true;
    return false;
  }
  --S.Budget;
  // Seen goals, by hash: a collision only skips a goal (incompleteness).
  size_t H = G.hash();
  if (std::find(S.Seen.begin(), S.Seen.end(), H) != S.Seen.end())
    return false;
  S.Seen.push_back(H);
  noteResidual(G, Depth, S);

  // Every way to cancel one term of G with one fact.
  struct Step {
    unsigned Rank;
    int64_t C;        ///< coefficient of the term in G
    int64_t Ca;       ///< coefficient of the term in P
    const DimExpr *P; ///< P >= 0 (or P = 0 when Equality); null: Local[LocalIndex]
    uint32_t LocalIndex;
    bool Equality;
  };
  std::vector<Step> Steps;
  std::vector<const Fact *> Fs;
  std::vector<Fact> Implicit;
  std::vector<DimExpr> Local; // implicit facts and p·r products of this node
  auto Consider = [&](unsigned Rank, const Term &T, bool Eq, const DimExpr *P, DimExpr &&Own) {
    const DimExpr &E = P ? *P : Own;
    int64_t Ca = E.coeffOf(T.Atom);
    if (Ca == 0 || !E.isValid() || !(Eq || sign(Ca) == sign(T.Coeff)))
      return;
    uint32_t Index = 0;
    if (!P) {
      Index = uint32_t(Local.size());
      Local.push_back(std::move(Own));
    }
    Steps.push_back({Rank, T.Coeff, Ca, P, Index, Eq});
  };
  for (const Term &T : G.terms()) {
    const AtomInfo &Info = Syms.info(T.Atom);
    if (Info.Kind != AtomKind::Product) {
      Fs.clear();
      Implicit.clear();
      factsOf(T.Atom, Fs, Implicit);
      unsigned R = rank(T.Atom);
      for (const Fact *F : Fs)
        Consider(R, T, F->K == Fact::Kind::Zero, &F->E, DimExpr());
      for (Fact &F : Implicit)
        Consider(R, T, F.K == Fact::Kind::Zero, nullptr, std::move(F.E));
      continue;
    }
    // c·x·r: use p·r (or p·(-r)) for facts p about x, when r has a known sign.
    const std::vector<AtomId> &Factors = Info.Factors;
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
      Implicit.clear();
      factsOf(X, Fs, Implicit);
      unsigned R = rank(X);
      DimExpr SignedCof = Cof.scaled(Sign);
      for (const Fact *F : Fs)
        Consider(R, T, F->K == Fact::Kind::Zero, nullptr, Syms.mul(F->E, SignedCof));
      for (const Fact &F : Implicit)
        Consider(R, T, F.K == Fact::Kind::Zero, nullptr, Syms.mul(F.E, SignedCof));
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
    DimExpr Next = DimExpr::combine(K, G, -L, St.P ? *St.P : Local[St.LocalIndex]);
    if (searchNonNegative(std::move(Next), S, Depth + 1))
      return true;
  }
  return false;
}

bool Context::nonNegative(const DimExpr &E, unsigned Budget, std::vector<DimExpr> *Residuals) {
  // Iterative deepening: short proofs are found before long detours are
  // explored, and the node budget bounds the total work.
  if (Residuals)
    Residuals->clear();
  if (!E.isValid())
    return false;
  if (exprRange(E).Lo >= 0)
    return true; // most slice starts and constant extents end here
  Search S;
  S.Budget = Budget;
  bool Ok = false;
  for (unsigned Limit = 1; Limit <= kMaxDepth && !Ok; ++Limit) {
    S.DepthLimit = Limit;
    S.Seen.clear();
    unsigned Before = S.Budget;
    Ok = searchNonNegative(E, S, 0);
    if (S.Budget == 0 || S.Budget == Before)
      break; // out of budget, or nothing left to expand
    // A search that never reached the depth limit cannot gain from a deeper one.
    if (!S.HitLimit)
      break;
    S.HitLimit = false;
  }
  if (Residuals) {
    for (auto &R : S.Residuals)
      Residuals->push_back(std::move(R.second));
  }
  return Ok;
}

template <typename GoalPrinter>
Proof Context::boundsProof(const DimExpr &E, const GoalPrinter &Goal, const ProofOptions &O) {
  Proof P;
  DimExpr G = expand(E);
  if (!G.isValid()) {
    P.Goal = Goal();
    P.Message = "cannot prove " + P.Goal + ": the dimension arithmetic overflows";
    return P;
  }
  std::vector<DimExpr> Residuals;
  if (nonNegative(G, O.Budget, &Residuals)) {
    P.Result = Verdict::Proved;
    return P;
  }
  P.Goal = Goal();
  if (exprRange(tighten(G)).Hi < 0) {
    P.Result = Verdict::Disproved;
    P.Message = P.Goal + " does not hold";
    return P;
  }
  P.Message = "cannot prove " + P.Goal;
  if (O.Suggest)
    suggestForBounds({G}, Residuals, O.Budget, P);
  return P;
}

Proof Context::proveNonNegative(const DimExpr &E, const ProofOptions &O) {
  return boundsProof(E, [&] { return Syms.str(E) + " >= 0"; }, O);
}

Proof Context::proveLessEqual(const DimExpr &A, const DimExpr &B, const ProofOptions &O) {
  return boundsProof(B - A, [&] { return Syms.str(A) + " <= " + Syms.str(B); }, O);
}

Proof Context::proveLess(const DimExpr &A, const DimExpr &B, const ProofOptions &O) {
  return boundsProof(B - A - 1, [&] { return Syms.str(A) + " < " + Syms.str(B); }, O);
}

Proof Context::proveEqual(const DimExpr &A, const DimExpr &B, const ProofOptions &O) {
  Proof P;
  DimExpr X = expand(A), Y = expand(B);
  if (X == Y && X.isValid()) {
    P.Result = Verdict::Proved;
    return P;
  }
  P.Goal = Syms.str(A) + " = " + Syms.str(B);
  if (!X.isValid() || !Y.isValid()) {
    P.Message = "cannot prove " + P.Goal + ": the dimension arithmetic overflows";
    return P;
  }
  if (X == Y) {
    P.Result = Verdict::Proved;
    return P;
  }
  DimExpr Up = X - Y, Down = Y - X;
  std::vector<DimExpr> R1, R2;
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
