//===- SymbolTable.h - Atoms of dimension expressions -----------*- C++ -*-===//
//
// The SymbolTable owns every atom a DimExpr may mention and hands out their
// ids:
//   - symbols: dimension variables (`M`), loop variables (`k`), let-bound
//     indices (`block_m`), block and warp ids. Each newSymbol() call makes a
//     fresh symbol; two symbols may share a name (shadowing).
//   - opaque nonlinear terms, hash-consed so that equal terms get equal ids:
//     products of atoms (monomials), exact division `e / n`, `e mod n`,
//     floor and ceil division by a positive constant.
//
// The nonlinear constructors (mul, exactDiv, mod, floorDiv, ceilDiv)
// normalize their result: a product by a constant stays linear, products
// distribute over sums, `(n·q + r) / n` becomes `q + r / n` with the
// coefficients of r reduced into [0, n), division is linear when every
// coefficient divides, common factors of `e` and `n` are cancelled. Together
// with DimExpr's canonical form this makes `==` decide equality of
// normalized expressions, e.g. `(k - 1) mod 3 == (k + 2) mod 3`.
//
// Semantics: `mod` is the mathematical remainder in [0, n); floor/ceil
// division round towards -inf/+inf; `/` is exact division, which the checker
// proves (Context::proveExactDivision) before it accepts one.
//
// Printing uses Kina surface syntax: `block_m * 128 + warp_m * 64`, `K / 16`,
// `(k + 2) mod 3`. Floor and ceil division have no surface syntax yet; they
// print as the applications `floor_div e n` / `ceil_div e n`.
//
// Threading: not thread-safe; use one table per checking thread (or per
// kernel). Queries of a Context may add atoms to its table.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "sema/solver/DimExpr.h"

#include <deque>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kina::sema::solver {

/// What a symbol stands for. Dim symbols are dimension variables of a kernel
/// signature and are known to be >= 1; the others carry no implicit fact.
enum class SymbolKind : uint8_t { Dim, LoopVar, Let, BlockId, WarpId, Other };

enum class AtomKind : uint8_t { Symbol, Product, ExactDiv, FloorDiv, CeilDiv, Mod };

/// Everything the table knows about one atom.
struct AtomInfo {
  AtomKind Kind = AtomKind::Symbol;
  SymbolKind SymKind = SymbolKind::Other; ///< symbols only
  std::string Name;                       ///< symbols only
  std::vector<AtomId> Factors;            ///< products: sorted, >= 2, never products
  DimExpr Operand;                        ///< divisions and mod
  int64_t Divisor = 0;                    ///< divisions and mod (> 1)
  std::vector<AtomId> Symbols;            ///< symbols this atom depends on (sorted)
};

class SymbolTable {
public:
  /// A fresh symbol (never merged with another of the same name).
  AtomId newSymbol(std::string_view Name, SymbolKind Kind);
  /// `1 · newSymbol(Name, Kind)`, for brevity in callers and tests.
  DimExpr newSymbolExpr(std::string_view Name, SymbolKind Kind) {
    return DimExpr::atom(newSymbol(Name, Kind));
  }

  /// Stays valid for the table's lifetime (atoms are never removed).
  const AtomInfo &info(AtomId A) const { return Atoms[A]; }
  /// Gives a symbol a better display name (e.g. a grid id named by a `let`).
  void renameSymbol(AtomId A, std::string_view Name) { Atoms[A].Name = std::string(Name); }
  size_t size() const { return Atoms.size(); }
  bool isSymbol(AtomId A) const { return Atoms[A].Kind == AtomKind::Symbol; }
  bool isDim(AtomId A) const {
    return Atoms[A].Kind == AtomKind::Symbol && Atoms[A].SymKind == SymbolKind::Dim;
  }
  /// True when the atom mentions only Dim symbols (it can appear in a
  /// `requires` clause).
  bool onlyDims(AtomId A) const;
  bool onlyDims(const DimExpr &E) const;

  /// `A * B`. Distributes over sums; products of atoms become monomial atoms.
  /// Invalid when either operand is, on overflow, or when the product has
  /// more than kMaxTerms terms.
  DimExpr mul(const DimExpr &A, const DimExpr &B);
  /// Exact division `E / N` (N > 0). Linear when every coefficient divides;
  /// otherwise `q + r / N` with an opaque `r / N` atom. Invalid when N <= 0.
  DimExpr exactDiv(const DimExpr &E, int64_t N);
  /// floor(E / N) and ceil(E / N) for N > 0.
  DimExpr floorDiv(const DimExpr &E, int64_t N);
  DimExpr ceilDiv(const DimExpr &E, int64_t N);
  /// `E mod N` in [0, N) for N > 0 (invalid when N <= 0).
  DimExpr mod(const DimExpr &E, int64_t N);

  /// Replaces symbols: `Lookup(sym)` returns the replacement, or nullptr to
  /// keep the symbol. Opaque atoms that mention a replaced symbol are rebuilt
  /// (and renormalized) from their substituted operands.
  DimExpr substitute(const DimExpr &E, const std::function<const DimExpr *(AtomId)> &Lookup);
  /// Replaces one symbol `X` by `R`.
  DimExpr substitute(const DimExpr &E, AtomId X, const DimExpr &R);

  /// Kina surface syntax, e.g. `block_m * 128 + warp_m * 64 + 64`,
  /// `K - k * 16`, `(k + 2) mod 3`. Invalid expressions print as
  /// `<overflow>`.
  std::string str(const DimExpr &E) const;
  /// One atom, parenthesized when it is not a plain symbol or product.
  std::string atomStr(AtomId A) const;

  /// The most terms a product may produce before it is declared invalid.
  static constexpr size_t kMaxTerms = 256;

private:
  /// Adds a new opaque atom whose interning key is Key.
  AtomId intern(AtomInfo Info, uint64_t Key);
  /// Interning keys: hashes of what identifies an opaque atom.
  static uint64_t keyOf(AtomKind Kind, std::span<const AtomId> Factors);
  static uint64_t keyOf(AtomKind Kind, const DimExpr &Operand, int64_t N);
  /// The interned atom with this key for which Same holds.
  std::optional<AtomId> findInterned(uint64_t Key,
                                     const std::function<bool(const AtomInfo &)> &Same) const;
  /// `(atom built from Kind, Operand, N)` for an operand already reduced.
  AtomId internDivMod(AtomKind Kind, const DimExpr &Operand, int64_t N);
  AtomId monomial(AtomId A, AtomId B);
  DimExpr divLike(AtomKind Kind, const DimExpr &E, int64_t N);
  DimExpr rebuild(AtomId A, const std::function<const DimExpr *(AtomId)> &Lookup,
                  std::unordered_map<AtomId, DimExpr> &Memo);
  void appendExpr(std::string &Out, const DimExpr &E, bool Parenthesize) const;

  /// A deque: references returned by info() stay valid as atoms are added.
  std::deque<AtomInfo> Atoms;
  /// Opaque atoms by interning key (keys may collide; findInterned compares).
  std::unordered_multimap<uint64_t, AtomId> Interned;
};

} // namespace kina::sema::solver
