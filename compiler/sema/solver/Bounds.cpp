//===- Bounds.cpp - Numeric ranges and known divisors of atoms ------------===//
//
// Interval analysis over the facts in scope: each atom gets a numeric range
// from its kind (dims >= 1, `e mod n` in [0, n - 1], divisions from their
// operand's range, products from their factors') intersected with what the
// facts mentioning it linearly imply, rounded to its known divisor. Ranges
// are memoized per Context version; a cycle between facts falls back to the
// atom's kind range, which is always a sound over-approximation.
//
// Arithmetic saturates soundly: a lower bound that would overflow is
// lowered (to -inf if needed), an upper bound raised.
//
//===----------------------------------------------------------------------===//
#include "sema/solver/CheckedMath.h"
#include "sema/solver/Context.h"

namespace kina::sema::solver {

using namespace detail;

namespace {
constexpr int64_t Inf = Interval::kPosInf;

int64_t clampLo(__int128 V) {
  if (V <= -Inf)
    return -Inf;
  if (V >= Inf)
    return Inf - 1;
  return int64_t(V);
}
int64_t clampHi(__int128 V) {
  if (V >= Inf)
    return Inf;
  if (V <= -Inf)
    return -Inf + 1;
  return int64_t(V);
}

/// Lower bound of c·x for x in R.
__int128 termLo(int64_t C, const Interval &R) {
  int64_t B = C > 0 ? R.Lo : R.Hi;
  if (B <= -Inf || B >= Inf)
    return (C > 0) == (B > 0) ? __int128(Inf) * 4 : -__int128(Inf) * 4;
  return __int128(C) * B;
}
/// Upper bound of c·x for x in R.
__int128 termHi(int64_t C, const Interval &R) {
  int64_t B = C > 0 ? R.Hi : R.Lo;
  if (B <= -Inf || B >= Inf)
    return (C > 0) == (B > 0) ? __int128(Inf) * 4 : -__int128(Inf) * 4;
  return __int128(C) * B;
}

bool isInf(int64_t V) { return V <= -Inf || V >= Inf; }

/// Bounds of the product of two intervals.
Interval multiply(const Interval &A, const Interval &B) {
  __int128 Lo = 0, Hi = 0;
  bool First = true;
  for (int64_t X : {A.Lo, A.Hi})
    for (int64_t Y : {B.Lo, B.Hi}) {
      __int128 P;
      if (X == 0 || Y == 0)
        P = 0;
      else if (isInf(X) || isInf(Y))
        P = ((X > 0) == (Y > 0)) ? __int128(Inf) * 4 : -__int128(Inf) * 4;
      else
        P = __int128(X) * Y;
      if (First || P < Lo)
        Lo = P;
      if (First || P > Hi)
        Hi = P;
      First = false;
    }
  return {clampLo(Lo), clampHi(Hi)};
}

int64_t divLo(int64_t V, int64_t N, bool Ceil) {
  if (isInf(V))
    return V;
  return Ceil ? ceilDiv(V, N) : floorDiv(V, N);
}
} // namespace

Interval Context::exprRange(const DimExpr &E, std::optional<AtomId> Skip) {
  if (!E.isValid())
    return {};
  __int128 Lo = E.constantTerm(), Hi = E.constantTerm();
  bool LoInf = false, HiInf = false;
  for (const Term &T : E.terms()) {
    if (Skip && T.Atom == *Skip)
      continue;
    Interval R = atomRange(T.Atom);
    __int128 L = termLo(T.Coeff, R), H = termHi(T.Coeff, R);
    if (L <= -__int128(Inf) * 2)
      LoInf = true;
    else
      Lo += L;
    if (H >= __int128(Inf) * 2)
      HiInf = true;
    else
      Hi += H;
    // Each finite term is below 2^126 in magnitude; keep the sums in range.
    if (Lo > __int128(Inf) * 2)
      Lo = __int128(Inf) * 2;
    if (Hi < -__int128(Inf) * 2)
      Hi = -__int128(Inf) * 2;
    if (Lo < -__int128(Inf) * 2)
      LoInf = true, Lo = 0;
    if (Hi > __int128(Inf) * 2)
      HiInf = true, Hi = 0;
  }
  return {LoInf ? -Inf : clampLo(Lo), HiInf ? Inf : clampHi(Hi)};
}

Interval Context::bounds(const DimExpr &E) { return exprRange(expand(E)); }

Interval Context::atomRange(AtomId A) {
  grow(Cache, A + 1);
  AtomCache &C = Cache[A];
  if (C.RangeVersion == Version)
    return C.Range;
  const AtomInfo &Info = Syms.info(A);
  if (C.InProgress) {
    // A cycle through the facts: the kind's own range is sound.
    if (Info.Kind == AtomKind::Symbol && Info.SymKind == SymbolKind::Dim)
      return {1, Inf};
    if (Info.Kind == AtomKind::Mod)
      return {0, Info.Divisor - 1};
    return {};
  }
  C.InProgress = true;
  Interval R = computeAtomRange(A);
  AtomCache &C2 = Cache[A]; // computeAtomRange may have grown Cache
  C2.InProgress = false;
  C2.Range = R;
  C2.RangeVersion = Version;
  return R;
}

Interval Context::computeAtomRange(AtomId A) {
  const AtomInfo &Info = Syms.info(A);
  Interval R;
  switch (Info.Kind) {
  case AtomKind::Symbol:
    if (Info.SymKind == SymbolKind::Dim)
      R.Lo = 1;
    break;
  case AtomKind::Product: {
    R = {1, 1};
    for (AtomId F : Info.Factors)
      R = multiply(R, atomRange(F));
    break;
  }
  case AtomKind::ExactDiv:
  case AtomKind::FloorDiv:
  case AtomKind::CeilDiv: {
    Interval E = exprRange(Info.Operand);
    // With n | E every rounding is exact: round the lower bound up and the
    // upper bound down.
    bool Exact = divisible(Info.Operand, Info.Divisor, nullptr) == Tri::Yes;
    bool Ceil = Info.Kind == AtomKind::CeilDiv;
    R.Lo = divLo(E.Lo, Info.Divisor, Ceil || Exact);
    R.Hi = divLo(E.Hi, Info.Divisor, Ceil && !Exact);
    break;
  }
  case AtomKind::Mod: {
    R = {0, Info.Divisor - 1};
    Interval E = exprRange(Info.Operand);
    if (E.Lo >= 0 && E.Hi < Info.Divisor)
      R = E;
    if (divisible(Info.Operand, Info.Divisor, nullptr) == Tri::Yes)
      R = {0, 0};
    break;
  }
  }
  // What the facts mentioning A linearly imply.
  if (A < ByAtom.size()) {
    const std::vector<uint32_t> &Indices = ByAtom[A]; // not modified by queries
    for (uint32_t I : Indices) {
      const Fact &F = Facts[I];
      if (F.K == Fact::Kind::Divisible)
        continue;
      int64_t C = F.E.coeffOf(A);
      Interval Rest = exprRange(F.E, A);
      // c·a + rest >= 0.
      if (Rest.hasHi()) {
        if (C > 0)
          R.Lo = std::max(R.Lo, clampLo(ceilDiv(-Rest.Hi, C)));
        else
          R.Hi = std::min(R.Hi, clampHi(floorDiv(Rest.Hi, -C)));
      }
      // c·a + rest <= 0 as well for equalities.
      if (F.K == Fact::Kind::Zero && Rest.hasLo()) {
        if (C > 0)
          R.Hi = std::min(R.Hi, clampHi(floorDiv(-Rest.Lo, C)));
        else
          R.Lo = std::max(R.Lo, clampLo(ceilDiv(Rest.Lo, -C)));
      }
    }
  }
  // Round to the known divisor: `M mod 128 = 0` and `M >= 1` give `M >= 128`.
  int64_t D = atomDivisor(A);
  if (D > 1) {
    if (R.hasLo())
      R.Lo = clampLo(__int128(ceilDiv(R.Lo, D)) * D);
    if (R.hasHi())
      R.Hi = clampHi(__int128(floorDiv(R.Hi, D)) * D);
  }
  return R;
}

int64_t Context::atomDivisor(AtomId A) {
  grow(Cache, A + 1);
  if (Cache[A].DivisorVersion == Version)
    return Cache[A].Divisor;
  int64_t D = computeAtomDivisor(A);
  Cache[A].Divisor = D;
  Cache[A].DivisorVersion = Version;
  return D;
}

int64_t Context::knownDivisor(const DimExpr &E) {
  DimExpr X = expand(E);
  if (!X.isValid())
    return 1;
  int64_t G = gcd64(X.constantTerm(), 0);
  for (const Term &T : X.terms()) {
    int64_t P;
    if (!checkedMul(T.Coeff, atomDivisor(T.Atom), P))
      P = T.Coeff;
    G = gcd64(G, P);
    if (G == 1)
      break;
  }
  return G;
}

int64_t Context::computeAtomDivisor(AtomId A) {
  const AtomInfo &Info = Syms.info(A);
  switch (Info.Kind) {
  case AtomKind::Symbol: {
    int64_t D = 1;
    if (A < ByAtom.size())
      for (uint32_t I : ByAtom[A]) {
        const Fact &F = Facts[I];
        if (F.K != Fact::Kind::Divisible || F.E.terms().size() != 1 || F.E.constantTerm() != 0)
          continue;
        // c·a ≡ 0 (mod n) gives a ≡ 0 (mod n / gcd(c, n)).
        int64_t Need = F.Modulus / gcd64(F.E.terms()[0].Coeff, F.Modulus);
        int64_t L = lcm64(D, Need);
        if (L > 0 && L < Inf)
          D = L;
      }
    return D;
  }
  case AtomKind::Product: {
    int64_t D = 1;
    for (AtomId F : Info.Factors) {
      int64_t P;
      int64_t Df = atomDivisor(F);
      D = checkedMul(D, Df, P) && P < Inf ? P : std::max(D, Df);
    }
    return D;
  }
  case AtomKind::ExactDiv:
  case AtomKind::FloorDiv:
  case AtomKind::CeilDiv: {
    // n | d | E makes E / n exact whatever the rounding, and d / n divides it.
    int64_t D = knownDivisor(Info.Operand);
    return (D > 0 && D % Info.Divisor == 0) ? D / Info.Divisor : 1;
  }
  case AtomKind::Mod: {
    // d | E and d | n give d | (E mod n).
    int64_t D = knownDivisor(Info.Operand);
    return gcd64(D, Info.Divisor);
  }
  }
  return 1;
}

} // namespace kina::sema::solver
