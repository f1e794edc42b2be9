//===- Context.h - Facts in scope and refinement queries --------*- C++ -*-===//
//
// A Context holds the facts that hold at one point of a kernel, in nested
// scopes the checker pushes and pops as it walks blocks, and answers the
// refinement queries of DESIGN.md §3.2-3.3:
//   - bounds:       proveNonNegative, proveLessEqual, proveLess, proveEqual
//                   (slice start >= 0, start + length <= extent);
//   - divisibility: proveDivisible, proveExactDivision (`M / 128` needs
//                   `M mod 128 = 0`).
//
// Facts: `E >= 0`, `E = 0`, `E mod n = 0`, ranges `lo <= x < hi` (for
// loops, block ids in [0, grid_d), warp ids in [0, W)), and let definitions
// `x = e` (substituted into later facts and into every query). Every Dim
// symbol (SymbolTable) is implicitly >= 1.
//
// Decision procedure (sound, incomplete): the goal `g >= 0` is first tried by
// interval arithmetic over the atoms' numeric ranges (ranges come from the
// facts, divisibility rounds them: `M mod 128 = 0` and `M >= 1` give
// `M >= 128`). Otherwise a bounded depth-first search eliminates atoms, the
// most recently introduced first: a term `c·x` is cancelled by subtracting a
// nonnegative multiple of a fact `p >= 0` (or any multiple of `p = 0`) whose
// coefficient of x has the sign of c; this substitutes x by its upper bound
// when c < 0 and by its lower bound when c > 0 (Fourier-Motzkin-lite). A
// product term `c·x·r` uses `p·r >= 0` when the sign of r is known. Opaque
// atoms bring their own facts: `n·(E / n) = E` when `E mod n = 0` is
// provable (floor-division bounds otherwise), `0 <= E mod n <= n - 1`. Goals
// are tightened by the gcd of their coefficients (integer rounding).
// Nothing false is ever proved; "Unknown" means "cannot prove".
//
// On failure the Proof names the missing fact: candidate `requires` facts
// (divisibility of the dims involved by the constants involved, then the
// residual inequality over dims) are each tried in a scratch scope, and only
// those that make the proof succeed are suggested.
//
// Threading and ownership: a Context refers to (does not own) its
// SymbolTable, which must outlive it. Not thread-safe; queries update
// internal caches and may intern new atoms.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "sema/solver/Proof.h"
#include "sema/solver/SymbolTable.h"

#include <functional>
#include <optional>
#include <vector>

namespace kina::sema::solver {

class Context {
public:
  explicit Context(SymbolTable &Syms);
  SymbolTable &symbols() const { return Syms; }

  //===--- Scopes ---------------------------------------------------------===//
  /// Opens a scope; facts and definitions added until the matching pop()
  /// are dropped by it. Cost: O(1); pop is linear in what the scope added.
  void push();
  /// Closes the innermost scope; does nothing at depth 0.
  void pop();
  size_t depth() const { return Marks.size(); }
  /// RAII push/pop.
  class Scope {
  public:
    explicit Scope(Context &C) : C(C) { C.push(); }
    ~Scope() { C.pop(); }
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;

  private:
    Context &C;
  };

  //===--- Facts ----------------------------------------------------------===//
  /// Adds a fact (definitions are substituted, the fact is normalized).
  /// Facts with invalid (overflowed) expressions are ignored.
  void assume(const Fact &F);
  void assumeNonNegative(const DimExpr &E) { assume(Fact::nonNegative(E)); }
  void assumePositive(const DimExpr &E) { assume(Fact::nonNegative(E - 1)); }
  void assumeLessEqual(const DimExpr &A, const DimExpr &B) { assume(Fact::nonNegative(B - A)); }
  void assumeLess(const DimExpr &A, const DimExpr &B) { assume(Fact::nonNegative(B - A - 1)); }
  void assumeEqual(const DimExpr &A, const DimExpr &B) { assume(Fact::zero(A - B)); }
  /// `E mod N = 0`, e.g. from `requires (M mod 128 = 0)`. N <= 0 is ignored.
  void assumeDivisible(const DimExpr &E, int64_t N) { assume(Fact::divisible(E, N)); }
  /// `Lo <= X < Hi`: `for x in (lo .. hi)`, `block_id d` in [0, grid_d),
  /// `warp_id d` in [0, W). X is usually a symbol but may be any expression.
  void assumeRange(const DimExpr &X, const DimExpr &Lo, const DimExpr &Hi);
  /// `let X = E`: X is replaced by E in later facts and in queries.
  void define(AtomId X, const DimExpr &E);
  /// True when some fact in scope is false on its own (e.g. `16 <= 8`).
  bool hasContradiction() const { return Contradiction; }
  /// The normalized facts in scope, outermost first.
  const std::vector<Fact> &facts() const { return Facts; }
  /// E with every definition in scope substituted.
  DimExpr expand(const DimExpr &E);

  //===--- Where facts come from (proof explanations, hover) ---------------===//
  /// Facts added from now on carry origin O, an index the caller gives
  /// meaning to (the checker: a `requires` clause, a loop, a grid); -1 none.
  void setOrigin(int32_t O) { Origin = O; }
  int32_t origin() const { return Origin; }
  /// The facts in scope that bear on E: those sharing a symbol with E, or
  /// with a fact that does (one hop: a loop bound names the dims it depends on), as indices into
  /// facts(), outermost first. A relevance filter, not a minimal proof: it
  /// names what a proof of E could have used. Cost O(rounds * facts * terms).
  std::vector<size_t> factsAbout(const DimExpr &E);
  /// The origin of facts()[I] (setOrigin at the time it was added).
  int32_t factOrigin(size_t I) const { return I < FactOrigins.size() ? FactOrigins[I] : -1; }

  //===--- Queries --------------------------------------------------------===//
  /// E >= 0.
  Proof proveNonNegative(const DimExpr &E, const ProofOptions &O = {});
  /// A <= B, e.g. `start + length <= extent`.
  Proof proveLessEqual(const DimExpr &A, const DimExpr &B, const ProofOptions &O = {});
  /// A < B.
  Proof proveLess(const DimExpr &A, const DimExpr &B, const ProofOptions &O = {});
  /// A = B (structurally after substitution, or A <= B and B <= A).
  Proof proveEqual(const DimExpr &A, const DimExpr &B, const ProofOptions &O = {});
  /// E mod N = 0.
  Proof proveDivisible(const DimExpr &E, int64_t N, const ProofOptions &O = {});
  /// `E / N` is exact: the same as proveDivisible, with a message that names
  /// the division; the suggestion is the `requires` clause to add.
  Proof proveExactDivision(const DimExpr &E, int64_t N, const ProofOptions &O = {});

  /// Numeric bounds of E implied by the facts in scope.
  Interval bounds(const DimExpr &E);
  /// A positive d known to divide E (1 when nothing is known), or 0 when E is
  /// the constant 0.
  int64_t knownDivisor(const DimExpr &E);

private:
  struct Mark {
    size_t Facts, IndexLog, DefLog, StampLog;
    bool Contradiction;
  };
  struct DefEntry {
    AtomId Atom;
    std::optional<DimExpr> Previous;
  };
  struct AtomCache {
    uint64_t RangeVersion = ~uint64_t(0);
    uint64_t DivisorVersion = ~uint64_t(0);
    Interval Range;
    int64_t Divisor = 1;
    bool InProgress = false;
  };
  /// State of one bounds search (ProveBounds.cpp).
  struct Search {
    unsigned Budget = 0;
    unsigned DepthLimit = 0;
    bool HitLimit = false;
    std::vector<size_t> Seen; ///< hashes of the goals expanded in this round
    /// Stuck goals over dims only, best first, with their scores.
    std::vector<std::pair<unsigned, DimExpr>> Residuals;
  };

  void addFact(Fact F);
  void stamp(const DimExpr &E);
  void changed() { ++Version; }
  template <typename T> static void grow(std::vector<T> &V, size_t N) {
    if (V.size() < N)
      V.resize(N);
  }

  // Bounds.cpp: numeric ranges and known divisors.
  Interval atomRange(AtomId A);
  Interval computeAtomRange(AtomId A);
  int64_t atomDivisor(AtomId A);
  int64_t computeAtomDivisor(AtomId A);
  /// Lower/upper bound of E, skipping the term of atom Skip.
  Interval exprRange(const DimExpr &E, std::optional<AtomId> Skip = std::nullopt);

  // ProveBounds.cpp
  bool nonNegative(const DimExpr &E, unsigned Budget, std::vector<DimExpr> *Residuals);
  bool searchNonNegative(DimExpr G, Search &S, unsigned Depth);
  void noteResidual(const DimExpr &G, unsigned Depth, Search &S);
  /// Facts usable to cancel a term of atom X: pointers into Facts, and in
  /// Implicit the facts X's kind implies.
  void factsOf(AtomId X, std::vector<const Fact *> &Explicit, std::vector<Fact> &Implicit);
  /// Substitutes the exact divisions (and zero `mod`s) of G by their operands.
  DimExpr eliminateExact(DimExpr G);
  unsigned rank(AtomId A) const;
  /// Proves E >= 0; Goal() prints the goal, only when the proof fails.
  template <typename GoalPrinter>
  Proof boundsProof(const DimExpr &E, const GoalPrinter &Goal, const ProofOptions &O);

  // ProveDivisibility.cpp
  enum class Tri : uint8_t { Yes, No, Maybe };
  Tri divisible(const DimExpr &E, int64_t N, DimExpr *Rest);
  bool divisibleByTerms(const DimExpr &E, int64_t N, DimExpr &Rest);

  // Suggest.cpp
  void suggestForBounds(const std::vector<DimExpr> &Goals, const std::vector<DimExpr> &Residuals,
                        unsigned Budget, Proof &P);
  /// False when F contradicts the facts in scope (it would prove anything).
  bool consistentWith(const Fact &F, unsigned Budget);
  void suggestForDivisibility(const DimExpr &G, const DimExpr &Rest, int64_t N, Proof &P);
  bool provesWith(const std::vector<Fact> &Extra, const std::function<bool()> &Query);
  void addSuggestion(Proof &P, std::vector<Fact> Facts);

  SymbolTable &Syms;
  std::vector<Fact> Facts;
  std::vector<int32_t> FactOrigins; ///< parallel to Facts
  int32_t Origin = -1;
  /// Indices into Facts of the facts mentioning each atom as a linear term.
  std::vector<std::vector<uint32_t>> ByAtom;
  std::vector<AtomId> IndexLog;
  std::vector<std::optional<DimExpr>> Defs;
  std::vector<DefEntry> DefLog;
  size_t NumDefs = 0;
  /// Introduction order of symbols (0 = never mentioned by a fact).
  std::vector<uint32_t> Stamps;
  std::vector<AtomId> StampLog;
  uint32_t NextStamp = 1;
  std::vector<Mark> Marks;
  bool Contradiction = false;
  uint64_t Version = 0;
  std::vector<AtomCache> Cache;
};

} // namespace kina::sema::solver
