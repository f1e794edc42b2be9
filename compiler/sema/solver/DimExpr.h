//===- DimExpr.h - Normalized linear dimension expressions ------*- C++ -*-===//
//
// A DimExpr is the refinement solver's value for a dimension or index
// expression: the linear form `c0 + Σ ci·atom_i` over atoms interned in a
// SymbolTable. Atoms are symbols (dimension variables, loop variables, let
// bindings, block/warp ids) or opaque nonlinear terms (products, `e / n`,
// `e mod n`, floor/ceil division); the table builds those (SymbolTable.h).
//
// The form is canonical: terms are sorted by atom id, no coefficient is zero,
// so structural equality (`==`) is equality after normalization. Linear
// operations (+, -, negation, scaling by a constant) need no table and live
// here. Every operation checks for int64 overflow: on overflow the result is
// *invalid* (isValid() is false), invalidity propagates, and the solver
// answers "cannot prove" for invalid expressions instead of wrapping around.
//
// DimExpr is a plain value: copyable, comparable, hashable, thread-compatible.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace kina::sema::solver {

/// Index of an atom in a SymbolTable.
using AtomId = uint32_t;

/// One `coeff · atom` term of a DimExpr (coeff is never 0).
struct Term {
  AtomId Atom;
  int64_t Coeff;
  friend bool operator==(const Term &A, const Term &B) {
    return A.Atom == B.Atom && A.Coeff == B.Coeff;
  }
};

/// The term list of a DimExpr: a small vector that keeps up to kInline terms
/// without allocating (most dimension expressions have one to three).
class TermList {
public:
  static constexpr uint32_t kInline = 3;
  TermList() = default;
  TermList(const TermList &O) { assign(O); }
  TermList(TermList &&O) noexcept { steal(O); }
  TermList &operator=(const TermList &O) {
    if (this != &O) {
      Size = 0;
      assign(O);
    }
    return *this;
  }
  TermList &operator=(TermList &&O) noexcept {
    if (this != &O) {
      release();
      steal(O);
    }
    return *this;
  }
  ~TermList() { delete[] Heap; }

  uint32_t size() const { return Size; }
  bool empty() const { return Size == 0; }
  Term *begin() { return data(); }
  Term *end() { return data() + Size; }
  const Term *begin() const { return data(); }
  const Term *end() const { return data() + Size; }
  Term &operator[](size_t I) { return data()[I]; }
  const Term &operator[](size_t I) const { return data()[I]; }
  Term &back() { return data()[Size - 1]; }
  void pop_back() { --Size; }
  void push_back(const Term &T) {
    if (Size == Cap)
      reserve(Cap * 2);
    data()[Size++] = T;
  }
  void reserve(size_t N);
  friend bool operator==(const TermList &A, const TermList &B);

private:
  Term *data() { return Heap ? Heap : Inline; }
  const Term *data() const { return Heap ? Heap : Inline; }
  // Copies, moves and frees run for every type the checker records: the
  // inline cases stay in the header, the heap cases are out of line.
  void assign(const TermList &O) {
    if (O.Size > Cap)
      reserve(O.Size);
    Term *D = data();
    for (uint32_t I = 0; I < O.Size; ++I)
      D[I] = O.data()[I];
    Size = O.Size;
  }
  void steal(TermList &O) {
    if (O.Heap) {
      stealHeap(O);
      return;
    }
    Heap = nullptr;
    Cap = kInline;
    for (uint32_t I = 0; I < O.Size; ++I)
      Inline[I] = O.Inline[I];
    Size = O.Size;
    O.Size = 0;
  }
  void stealHeap(TermList &O);
  void release() {
    if (Heap) {
      delete[] Heap;
      Heap = nullptr;
      Cap = kInline;
    }
    Size = 0;
  }

  Term Inline[kInline];
  Term *Heap = nullptr;
  uint32_t Size = 0;
  uint32_t Cap = kInline;
};

class DimExpr {
public:
  /// The constant 0.
  DimExpr() = default;
  static DimExpr constant(int64_t C);
  /// `Coeff · A` (the constant 0 when Coeff is 0).
  static DimExpr atom(AtomId A, int64_t Coeff = 1);
  /// The result of an overflowing or ill-formed operation.
  static DimExpr invalid();
  /// Builds `C + Σ terms`; terms may be unsorted, repeated or zero. Invalid on
  /// overflow.
  static DimExpr fromTerms(int64_t C, std::vector<Term> Terms);

  bool isValid() const { return Valid; }
  /// Valid and without atoms.
  bool isConstant() const { return Valid && Terms.empty(); }
  /// The value when the expression is a valid constant.
  std::optional<int64_t> constantValue() const;
  /// The constant term c0 (0 for invalid expressions).
  int64_t constantTerm() const { return Const; }
  /// The non-constant terms, sorted by atom id.
  std::span<const Term> terms() const { return {Terms.begin(), Terms.size()}; }
  /// Coefficient of `A` (0 when absent).
  int64_t coeffOf(AtomId A) const;
  /// True when the expression is exactly `1 · A`.
  bool isAtom(AtomId A) const;
  /// The single atom when the expression is `1 · atom`.
  std::optional<AtomId> asAtom() const;
  /// The same expression without its constant term.
  DimExpr withoutConstant() const;

  /// `this * K`.
  DimExpr scaled(int64_t K) const;
  /// Every coefficient divided by D (which must divide them all), with the
  /// constant term replaced by C.
  DimExpr termsDividedBy(int64_t D, int64_t C) const;
  size_t hash() const;

  friend DimExpr operator+(const DimExpr &A, const DimExpr &B);
  friend DimExpr operator-(const DimExpr &A, const DimExpr &B);
  friend DimExpr operator-(const DimExpr &A);
  friend DimExpr operator+(const DimExpr &A, int64_t B);
  friend DimExpr operator-(const DimExpr &A, int64_t B);
  friend DimExpr operator*(const DimExpr &A, int64_t K) { return A.scaled(K); }
  friend DimExpr operator*(int64_t K, const DimExpr &A) { return A.scaled(K); }
  /// Structural equality of the normalized forms. Two invalid expressions
  /// compare equal to each other and to nothing else.
  friend bool operator==(const DimExpr &A, const DimExpr &B) {
    return A.Valid == B.Valid && A.Const == B.Const && A.Terms == B.Terms;
  }
  friend bool operator!=(const DimExpr &A, const DimExpr &B) { return !(A == B); }

  /// `Ka · A + Kb · B`, the workhorse of the linear operations.
  static DimExpr combine(int64_t Ka, const DimExpr &A, int64_t Kb, const DimExpr &B);

private:
  int64_t Const = 0;
  TermList Terms;
  bool Valid = true;
};

struct DimExprHash {
  size_t operator()(const DimExpr &E) const { return E.hash(); }
};

} // namespace kina::sema::solver
