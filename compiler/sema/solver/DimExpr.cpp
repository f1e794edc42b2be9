//===- DimExpr.cpp - Normalized linear dimension expressions --------------===//
//
// The linear operations of DimExpr: merging sorted term lists with overflow
// checks. Nonlinear constructors live in SymbolTable.cpp.
//
//===----------------------------------------------------------------------===//
#include "sema/solver/DimExpr.h"

#include "sema/solver/CheckedMath.h"

#include <algorithm>

namespace kina::sema::solver {

using namespace detail;

void TermList::reserve(size_t N) {
  if (N <= Cap)
    return;
  Term *New = new Term[N];
  std::copy(begin(), end(), New);
  delete[] Heap;
  Heap = New;
  Cap = uint32_t(N);
}

void TermList::stealHeap(TermList &O) {
  delete[] Heap;
  Heap = O.Heap;
  Cap = O.Cap;
  Size = O.Size;
  O.Heap = nullptr;
  O.Cap = kInline;
  O.Size = 0;
}

bool operator==(const TermList &A, const TermList &B) {
  return A.Size == B.Size && std::equal(A.begin(), A.end(), B.begin());
}

DimExpr DimExpr::constant(int64_t C) {
  DimExpr E;
  E.Const = C;
  return E;
}

DimExpr DimExpr::atom(AtomId A, int64_t Coeff) {
  DimExpr E;
  if (Coeff != 0)
    E.Terms.push_back({A, Coeff});
  return E;
}

DimExpr DimExpr::invalid() {
  DimExpr E;
  E.Valid = false;
  return E;
}

DimExpr DimExpr::fromTerms(int64_t C, std::vector<Term> Terms) {
  std::sort(Terms.begin(), Terms.end(),
            [](const Term &A, const Term &B) { return A.Atom < B.Atom; });
  DimExpr E;
  E.Const = C;
  for (const Term &T : Terms) {
    if (!E.Terms.empty() && E.Terms.back().Atom == T.Atom) {
      if (!checkedAdd(E.Terms.back().Coeff, T.Coeff, E.Terms.back().Coeff))
        return invalid();
      if (E.Terms.back().Coeff == 0)
        E.Terms.pop_back();
    } else if (T.Coeff != 0) {
      E.Terms.push_back(T);
    }
  }
  return E;
}

std::optional<int64_t> DimExpr::constantValue() const {
  if (!isConstant())
    return std::nullopt;
  return Const;
}

int64_t DimExpr::coeffOf(AtomId A) const {
  auto It = std::lower_bound(Terms.begin(), Terms.end(), A,
                             [](const Term &T, AtomId X) { return T.Atom < X; });
  return (It != Terms.end() && It->Atom == A) ? It->Coeff : 0;
}

bool DimExpr::isAtom(AtomId A) const {
  return Valid && Const == 0 && Terms.size() == 1 && Terms[0].Atom == A && Terms[0].Coeff == 1;
}

std::optional<AtomId> DimExpr::asAtom() const {
  if (Valid && Const == 0 && Terms.size() == 1 && Terms[0].Coeff == 1)
    return Terms[0].Atom;
  return std::nullopt;
}

DimExpr DimExpr::withoutConstant() const {
  DimExpr E = *this;
  E.Const = 0;
  return E;
}

DimExpr DimExpr::scaled(int64_t K) const {
  if (!Valid)
    return invalid();
  if (K == 0)
    return DimExpr();
  DimExpr E;
  if (!checkedMul(Const, K, E.Const))
    return invalid();
  E.Terms.reserve(Terms.size());
  for (const Term &T : Terms) {
    int64_t C;
    if (!checkedMul(T.Coeff, K, C))
      return invalid();
    E.Terms.push_back({T.Atom, C});
  }
  return E;
}

DimExpr DimExpr::termsDividedBy(int64_t D, int64_t C) const {
  if (!Valid)
    return invalid();
  DimExpr E = *this;
  E.Const = C;
  for (Term &T : E.Terms)
    T.Coeff /= D;
  return E;
}

DimExpr DimExpr::combine(int64_t Ka, const DimExpr &A, int64_t Kb, const DimExpr &B) {
  if (!A.Valid || !B.Valid)
    return invalid();
  DimExpr E;
  int64_t Ca, Cb;
  if (!checkedMul(A.Const, Ka, Ca) || !checkedMul(B.Const, Kb, Cb) ||
      !checkedAdd(Ca, Cb, E.Const))
    return invalid();
  E.Terms.reserve(A.Terms.size() + B.Terms.size());
  size_t I = 0, J = 0;
  while (I < A.Terms.size() || J < B.Terms.size()) {
    int64_t C;
    AtomId Atom;
    if (J == B.Terms.size() || (I < A.Terms.size() && A.Terms[I].Atom < B.Terms[J].Atom)) {
      Atom = A.Terms[I].Atom;
      if (!checkedMul(A.Terms[I++].Coeff, Ka, C))
        return invalid();
    } else if (I == A.Terms.size() || B.Terms[J].Atom < A.Terms[I].Atom) {
      Atom = B.Terms[J].Atom;
      if (!checkedMul(B.Terms[J++].Coeff, Kb, C))
        return invalid();
    } else {
      Atom = A.Terms[I].Atom;
      int64_t X, Y;
      if (!checkedMul(A.Terms[I++].Coeff, Ka, X) || !checkedMul(B.Terms[J++].Coeff, Kb, Y) ||
          !checkedAdd(X, Y, C))
        return invalid();
    }
    if (C != 0)
      E.Terms.push_back({Atom, C});
  }
  return E;
}

DimExpr operator+(const DimExpr &A, const DimExpr &B) { return DimExpr::combine(1, A, 1, B); }
DimExpr operator-(const DimExpr &A, const DimExpr &B) { return DimExpr::combine(1, A, -1, B); }
DimExpr operator-(const DimExpr &A) { return A.scaled(-1); }

DimExpr operator+(const DimExpr &A, int64_t B) {
  DimExpr E = A;
  if (!E.Valid)
    return E;
  if (!checkedAdd(A.Const, B, E.Const))
    return DimExpr::invalid();
  return E;
}
DimExpr operator-(const DimExpr &A, int64_t B) {
  DimExpr E = A;
  if (!E.Valid)
    return E;
  if (!checkedSub(A.Const, B, E.Const))
    return DimExpr::invalid();
  return E;
}

size_t DimExpr::hash() const {
  size_t H = Valid ? 0x9e3779b97f4a7c15ull : 0x1234567ull;
  auto Mix = [&H](uint64_t V) { H ^= V + 0x9e3779b97f4a7c15ull + (H << 6) + (H >> 2); };
  Mix(uint64_t(Const));
  for (const Term &T : Terms) {
    Mix(T.Atom);
    Mix(uint64_t(T.Coeff));
  }
  return H;
}

} // namespace kina::sema::solver
