//===- SymbolTable.cpp - Interning and nonlinear constructors -------------===//
//
// Hash-consing of opaque atoms and the normalizing constructors for
// products, divisions and `mod` (see SymbolTable.h for the normal form), and
// substitution of symbols.
//
//===----------------------------------------------------------------------===//
#include "sema/solver/SymbolTable.h"

#include "sema/solver/CheckedMath.h"

#include <algorithm>

namespace kina::sema::solver {

using namespace detail;

AtomId SymbolTable::newSymbol(std::string_view Name, SymbolKind Kind) {
  AtomInfo Info;
  Info.Kind = AtomKind::Symbol;
  Info.SymKind = Kind;
  Info.Name = std::string(Name);
  AtomId Id = AtomId(Atoms.size());
  Info.Symbols = {Id};
  Atoms.push_back(std::move(Info));
  return Id;
}

bool SymbolTable::onlyDims(AtomId A) const {
  for (AtomId S : Atoms[A].Symbols)
    if (Atoms[S].SymKind != SymbolKind::Dim)
      return false;
  return true;
}

bool SymbolTable::onlyDims(const DimExpr &E) const {
  if (!E.isValid())
    return false;
  for (const Term &T : E.terms())
    if (!onlyDims(T.Atom))
      return false;
  return true;
}

namespace {
uint64_t mixKey(uint64_t H, uint64_t V) {
  return H ^ (V + 0x9e3779b97f4a7c15ull + (H << 6) + (H >> 2));
}

/// Spreads every bit of H over the result (MurmurHash3's finalizer): the
/// table's buckets take the key modulo a prime, and sums of small ids and
/// coefficients leave the low bits too regular.
uint64_t finishKey(uint64_t H) {
  H ^= H >> 33;
  H *= 0xff51afd7ed558ccdull;
  H ^= H >> 33;
  H *= 0xc4ceb9fe1a85ec53ull;
  return H ^ (H >> 33);
}
} // namespace

uint64_t SymbolTable::keyOf(AtomKind Kind, std::span<const AtomId> Factors) {
  uint64_t H = mixKey(Factors.size(), uint64_t(Kind));
  for (AtomId F : Factors)
    H = mixKey(H, F);
  return finishKey(H);
}

uint64_t SymbolTable::keyOf(AtomKind Kind, const DimExpr &Operand, int64_t N) {
  uint64_t H = mixKey(mixKey(uint64_t(Kind), uint64_t(N)), uint64_t(Operand.constantTerm()));
  for (const Term &T : Operand.terms())
    H = mixKey(mixKey(H, T.Atom), uint64_t(T.Coeff));
  return finishKey(H);
}

std::optional<AtomId> SymbolTable::findInterned(uint64_t Key,
                                                const std::function<bool(const AtomInfo &)> &Same)
    const {
  auto [B, E] = Interned.equal_range(Key);
  for (auto It = B; It != E; ++It)
    if (Same(Atoms[It->second]))
      return It->second;
  return std::nullopt;
}

AtomId SymbolTable::intern(AtomInfo Info, uint64_t Key) {
  // Dependencies: the union of the constituents' symbols.
  std::vector<AtomId> Deps;
  auto AddDeps = [&](AtomId A) {
    const std::vector<AtomId> &S = Atoms[A].Symbols;
    Deps.insert(Deps.end(), S.begin(), S.end());
  };
  if (Info.Kind == AtomKind::Product) {
    for (AtomId F : Info.Factors)
      AddDeps(F);
  } else {
    for (const Term &T : Info.Operand.terms())
      AddDeps(T.Atom);
  }
  std::sort(Deps.begin(), Deps.end());
  Deps.erase(std::unique(Deps.begin(), Deps.end()), Deps.end());
  Info.Symbols = std::move(Deps);
  AtomId Id = AtomId(Atoms.size());
  Atoms.push_back(std::move(Info));
  Interned.emplace(Key, Id);
  return Id;
}

AtomId SymbolTable::internDivMod(AtomKind Kind, const DimExpr &Operand, int64_t N) {
  uint64_t Key = keyOf(Kind, Operand, N);
  if (auto Found = findInterned(Key, [&](const AtomInfo &I) {
        return I.Kind == Kind && I.Divisor == N && I.Operand == Operand;
      }))
    return *Found;
  AtomInfo Info;
  Info.Kind = Kind;
  Info.Operand = Operand;
  Info.Divisor = N;
  return intern(std::move(Info), Key);
}

AtomId SymbolTable::monomial(AtomId A, AtomId B) {
  AtomInfo Info;
  Info.Kind = AtomKind::Product;
  auto Add = [&](AtomId X) {
    if (Atoms[X].Kind == AtomKind::Product)
      Info.Factors.insert(Info.Factors.end(), Atoms[X].Factors.begin(), Atoms[X].Factors.end());
    else
      Info.Factors.push_back(X);
  };
  Add(A);
  Add(B);
  std::sort(Info.Factors.begin(), Info.Factors.end());
  uint64_t Key = keyOf(AtomKind::Product, Info.Factors);
  if (auto Found = findInterned(Key, [&](const AtomInfo &I) {
        return I.Kind == AtomKind::Product && I.Factors == Info.Factors;
      }))
    return *Found;
  return intern(std::move(Info), Key);
}

DimExpr SymbolTable::mul(const DimExpr &A, const DimExpr &B) {
  if (!A.isValid() || !B.isValid())
    return DimExpr::invalid();
  if (auto C = A.constantValue())
    return B.scaled(*C);
  if (auto C = B.constantValue())
    return A.scaled(*C);
  if ((A.terms().size() + 1) * (B.terms().size() + 1) > kMaxTerms + 1)
    return DimExpr::invalid();
  std::vector<Term> Out;
  int64_t C0;
  if (!checkedMul(A.constantTerm(), B.constantTerm(), C0))
    return DimExpr::invalid();
  auto AddScaled = [&Out](const DimExpr &E, int64_t K) {
    for (const Term &T : E.terms()) {
      int64_t C;
      if (!checkedMul(T.Coeff, K, C))
        return false;
      Out.push_back({T.Atom, C});
    }
    return true;
  };
  if (!AddScaled(A, B.constantTerm()) || !AddScaled(B, A.constantTerm()))
    return DimExpr::invalid();
  for (const Term &X : A.terms())
    for (const Term &Y : B.terms()) {
      int64_t C;
      if (!checkedMul(X.Coeff, Y.Coeff, C))
        return DimExpr::invalid();
      Out.push_back({monomial(X.Atom, Y.Atom), C});
    }
  return DimExpr::fromTerms(C0, std::move(Out));
}

namespace {
/// E = N·Q + R with every coefficient of R (and its constant) in [0, N).
void splitByDivisor(const DimExpr &E, int64_t N, DimExpr &Q, DimExpr &R) {
  std::vector<Term> QT, RT;
  for (const Term &T : E.terms()) {
    int64_t Qc = floorDiv(T.Coeff, N), Rc = floorMod(T.Coeff, N);
    if (Qc != 0)
      QT.push_back({T.Atom, Qc});
    if (Rc != 0)
      RT.push_back({T.Atom, Rc});
  }
  Q = DimExpr::fromTerms(floorDiv(E.constantTerm(), N), std::move(QT));
  R = DimExpr::fromTerms(floorMod(E.constantTerm(), N), std::move(RT));
}

/// gcd of all coefficients, the constant and N.
int64_t contentWith(const DimExpr &E, int64_t N) {
  int64_t G = gcd64(N, E.constantTerm());
  for (const Term &T : E.terms())
    G = gcd64(G, T.Coeff);
  return G;
}

/// E / G for G dividing every coefficient and the constant.
DimExpr divideContent(const DimExpr &E, int64_t G) {
  return G == 1 ? E : E.termsDividedBy(G, E.constantTerm() / G);
}
} // namespace

DimExpr SymbolTable::divLike(AtomKind Kind, const DimExpr &E, int64_t N) {
  if (!E.isValid() || N <= 0)
    return DimExpr::invalid();
  if (N == 1)
    return E;
  DimExpr Q, R;
  splitByDivisor(E, N, Q, R);
  if (R == DimExpr())
    return Q;
  if (R.isConstant()) {
    // 0 < r < N.
    if (Kind == AtomKind::FloorDiv)
      return Q;
    if (Kind == AtomKind::CeilDiv)
      return Q + 1;
  }
  int64_t G = contentWith(R, N);
  DimExpr Rn = divideContent(R, G);
  int64_t Nn = N / G;
  // (e / n) / m == e / (n·m) for exact, floor and ceil division alike.
  if (auto Inner = Rn.asAtom(); Inner && Atoms[*Inner].Kind == Kind) {
    int64_t NM;
    if (checkedMul(Atoms[*Inner].Divisor, Nn, NM)) {
      DimExpr Operand = Atoms[*Inner].Operand;
      return Q + divLike(Kind, Operand, NM);
    }
  }
  return Q + DimExpr::atom(internDivMod(Kind, Rn, Nn));
}

DimExpr SymbolTable::exactDiv(const DimExpr &E, int64_t N) {
  return divLike(AtomKind::ExactDiv, E, N);
}
DimExpr SymbolTable::floorDiv(const DimExpr &E, int64_t N) {
  return divLike(AtomKind::FloorDiv, E, N);
}
DimExpr SymbolTable::ceilDiv(const DimExpr &E, int64_t N) {
  return divLike(AtomKind::CeilDiv, E, N);
}

DimExpr SymbolTable::mod(const DimExpr &E, int64_t N) {
  if (!E.isValid() || N <= 0)
    return DimExpr::invalid();
  if (N == 1)
    return DimExpr();
  DimExpr Q, R;
  splitByDivisor(E, N, Q, R);
  if (R.isConstant())
    return R;
  // (g·r) mod (g·n) == g · (r mod n).
  int64_t G = contentWith(R, N);
  DimExpr Rn = divideContent(R, G);
  int64_t Nn = N / G;
  // (e mod m) mod n == e mod n when n divides m.
  if (auto Inner = Rn.asAtom();
      Inner && Atoms[*Inner].Kind == AtomKind::Mod && Atoms[*Inner].Divisor % Nn == 0) {
    DimExpr Operand = Atoms[*Inner].Operand;
    return mod(Operand, Nn).scaled(G);
  }
  return DimExpr::atom(internDivMod(AtomKind::Mod, Rn, Nn), G);
}

DimExpr SymbolTable::rebuild(AtomId A, const std::function<const DimExpr *(AtomId)> &Lookup,
                             std::unordered_map<AtomId, DimExpr> &Memo) {
  const AtomInfo &Info = Atoms[A];
  if (Info.Kind == AtomKind::Symbol) {
    const DimExpr *R = Lookup(A);
    return R ? *R : DimExpr::atom(A);
  }
  bool Touched = false;
  for (AtomId S : Info.Symbols)
    if (Lookup(S)) {
      Touched = true;
      break;
    }
  if (!Touched)
    return DimExpr::atom(A);
  if (auto It = Memo.find(A); It != Memo.end())
    return It->second;
  DimExpr Out;
  // Copy what we need: the constructors below may grow Atoms.
  AtomKind Kind = Info.Kind;
  if (Kind == AtomKind::Product) {
    std::vector<AtomId> Factors = Info.Factors;
    Out = DimExpr::constant(1);
    for (AtomId F : Factors)
      Out = mul(Out, rebuild(F, Lookup, Memo));
  } else {
    DimExpr Operand = Info.Operand;
    int64_t N = Info.Divisor;
    DimExpr Sub = DimExpr::constant(Operand.constantTerm());
    for (const Term &T : Operand.terms())
      Sub = Sub + rebuild(T.Atom, Lookup, Memo).scaled(T.Coeff);
    Out = Kind == AtomKind::Mod ? mod(Sub, N) : divLike(Kind, Sub, N);
  }
  Memo.emplace(A, Out);
  return Out;
}

DimExpr SymbolTable::substitute(const DimExpr &E,
                                const std::function<const DimExpr *(AtomId)> &Lookup) {
  if (!E.isValid())
    return E;
  std::unordered_map<AtomId, DimExpr> Memo;
  DimExpr Out = DimExpr::constant(E.constantTerm());
  std::vector<Term> Kept;
  for (const Term &T : E.terms()) {
    DimExpr R = rebuild(T.Atom, Lookup, Memo);
    if (R.isAtom(T.Atom))
      Kept.push_back(T);
    else
      Out = Out + R.scaled(T.Coeff);
  }
  return Out + DimExpr::fromTerms(0, std::move(Kept));
}

DimExpr SymbolTable::substitute(const DimExpr &E, AtomId X, const DimExpr &R) {
  return substitute(E, [X, &R](AtomId S) -> const DimExpr * { return S == X ? &R : nullptr; });
}

} // namespace kina::sema::solver
