//===- Proof.h - Facts and proof results of the refinement solver -*- C++ -*-===//
//
// Plain data exchanged between the checker and the refinement solver:
//   - Fact: one assumption or missing assumption (`E >= 0`, `E = 0`,
//     `E mod n = 0`), printable in Kina syntax for `requires` clauses;
//   - Interval: numeric bounds implied by the facts;
//   - Proof: the tri-state answer to a query with, on failure, a message
//     and the facts that would make the proof go through (each suggestion
//     was re-checked by the solver before it is offered).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "sema/solver/SymbolTable.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kina::sema::solver {

struct Fact {
  enum class Kind : uint8_t {
    NonNegative, ///< E >= 0
    Zero,        ///< E = 0
    Divisible,   ///< E mod Modulus = 0
  };
  Kind K = Kind::NonNegative;
  DimExpr E;
  int64_t Modulus = 0; ///< Divisible only

  static Fact nonNegative(DimExpr E) { return {Kind::NonNegative, std::move(E), 0}; }
  static Fact zero(DimExpr E) { return {Kind::Zero, std::move(E), 0}; }
  static Fact divisible(DimExpr E, int64_t N) { return {Kind::Divisible, std::move(E), N}; }
};

/// Kina syntax of a fact, as written inside `requires (...)`:
/// `K >= 16`, `N >= K`, `M mod 128 = 0`, `M = N * 2`.
std::string printFact(const SymbolTable &Syms, const Fact &F);

/// Inclusive numeric bounds; Lo == kNegInf / Hi == kPosInf mean unbounded.
struct Interval {
  static constexpr int64_t kPosInf = int64_t(1) << 62;
  static constexpr int64_t kNegInf = -kPosInf;
  int64_t Lo = kNegInf;
  int64_t Hi = kPosInf;
  bool hasLo() const { return Lo > kNegInf; }
  bool hasHi() const { return Hi < kPosInf; }
  bool isSingleton() const { return hasLo() && Lo == Hi; }
};

/// Facts that, added together, make a failed proof go through.
struct Suggestion {
  std::vector<Fact> Facts;
  /// The facts in Kina syntax joined by " and ", e.g. `K mod 16 = 0`.
  std::string Text;
  /// One `requires (...)` clause per fact, ready for a fix-it.
  std::vector<std::string> RequiresClauses;
};

enum class Verdict : uint8_t {
  Proved,    ///< holds whenever the facts hold
  Unknown,   ///< the solver cannot prove it (it may or may not hold)
  Disproved, ///< fails whenever the facts hold
};

struct Proof {
  Verdict Result = Verdict::Unknown;
  /// The claim in Kina syntax, e.g. `k * 16 + 16 <= K` or `M mod 128 = 0`.
  /// Filled only when the proof fails (printing costs more than most proofs).
  std::string Goal;
  /// Empty when proved; otherwise e.g. `cannot prove k * 16 + 16 <= K`.
  std::string Message;
  /// Alternatives, best first; each one alone makes the proof succeed.
  /// Only facts over dimension symbols are suggested (they fit a `requires`).
  std::vector<Suggestion> Suggestions;

  bool proved() const { return Result == Verdict::Proved; }
  explicit operator bool() const { return proved(); }
};

/// Knobs for one query.
struct ProofOptions {
  /// Search for missing facts when the proof fails (costs a few more proofs).
  bool Suggest = true;
  /// Nodes the bounds search may visit; more proves more, slower.
  unsigned Budget = 192;
};

} // namespace kina::sema::solver
