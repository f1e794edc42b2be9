//===- ProveDivisibility.cpp - Divisibility and exact division proofs -----===//
//
// `E mod n = 0`: reduce every coefficient mod n, drop the terms c·a whose
// known divisor d (Bounds.cpp: from `a mod d = 0` facts, through products,
// divisions and `mod`) makes c·d a multiple of n, then try to cancel what is
// left with one congruence fact (`f mod m = 0`, usable as λ·f for λ a
// multiple of n / gcd(n, m)) or one equality. When every term is divisible
// but the constant is not, the claim is false (Disproved).
//
//===----------------------------------------------------------------------===//
#include "sema/solver/CheckedMath.h"
#include "sema/solver/Context.h"

namespace kina::sema::solver {

using namespace detail;

bool Context::divisibleByTerms(const DimExpr &E, int64_t N, DimExpr &Rest) {
  std::vector<Term> Left;
  for (const Term &T : E.terms()) {
    int64_t C = floorMod(T.Coeff, N);
    if (C == 0)
      continue;
    int64_t D = atomDivisor(T.Atom) % N;
    if ((__int128(C) * D) % N == 0)
      continue;
    Left.push_back({T.Atom, C});
  }
  Rest = DimExpr::fromTerms(floorMod(E.constantTerm(), N), std::move(Left));
  return Rest.terms().empty() && Rest.constantTerm() == 0;
}

Context::Tri Context::divisible(const DimExpr &E, int64_t N, DimExpr *RestOut) {
  if (!E.isValid() || N <= 0)
    return Tri::Maybe;
  if (N == 1)
    return Tri::Yes;
  DimExpr Rest;
  if (divisibleByTerms(E, N, Rest))
    return Tri::Yes;
  if (RestOut)
    *RestOut = Rest;
  if (Rest.isConstant())
    return Tri::No;
  constexpr int64_t kMaxMultiples = 64;
  for (size_t I = 0; I < Facts.size(); ++I) {
    const Fact &F = Facts[I];
    int64_t Step;
    if (F.K == Fact::Kind::Divisible)
      Step = N / gcd64(N, F.Modulus);
    else if (F.K == Fact::Kind::Zero)
      Step = 1;
    else
      continue;
    // Only λ mod n matters; λ = n would change nothing.
    bool Shares = false;
    for (const Term &T : Rest.terms())
      Shares |= F.E.coeffOf(T.Atom) != 0;
    if (!Shares)
      continue;
    for (int64_t L = Step, Count = 0; L < N && Count < kMaxMultiples; L += Step, ++Count) {
      DimExpr Cand = DimExpr::combine(1, Rest, -L, F.E);
      DimExpr Unused;
      if (Cand.isValid() && divisibleByTerms(Cand, N, Unused))
        return Tri::Yes;
    }
  }
  return Tri::Maybe;
}

Proof Context::proveDivisible(const DimExpr &E, int64_t N, const ProofOptions &O) {
  Proof P;
  if (N == 1 || (N > 1 && E.isValid() && NumDefs == 0 && divisible(E, N, nullptr) == Tri::Yes)) {
    P.Result = Verdict::Proved; // the common case, without printing
    return P;
  }
  P.Goal = printFact(Syms, Fact::divisible(E, N));
  if (N <= 0) {
    P.Message = "cannot prove " + P.Goal + ": the divisor must be positive";
    return P;
  }
  DimExpr G = expand(E);
  if (!G.isValid()) {
    P.Message = "cannot prove " + P.Goal + ": the dimension arithmetic overflows";
    return P;
  }
  DimExpr Rest;
  switch (divisible(G, N, &Rest)) {
  case Tri::Yes:
    P.Result = Verdict::Proved;
    return P;
  case Tri::No:
    P.Result = Verdict::Disproved;
    P.Message = P.Goal + " does not hold";
    return P;
  case Tri::Maybe:
    break;
  }
  P.Message = "cannot prove " + P.Goal;
  if (O.Suggest)
    suggestForDivisibility(G, Rest, N, P);
  return P;
}

Proof Context::proveExactDivision(const DimExpr &E, int64_t N, const ProofOptions &O) {
  Proof P = proveDivisible(E, N, O);
  if (!P.proved() && N > 0) {
    bool Plain = E.asAtom() && Syms.isSymbol(*E.asAtom());
    std::string Division = (Plain || E.isConstant() ? Syms.str(E) : "(" + Syms.str(E) + ")") +
                           " / " + std::to_string(N);
    P.Message += " (the division " + Division + " must be exact)";
  }
  return P;
}

} // namespace kina::sema::solver
