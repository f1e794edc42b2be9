//===- Suggest.cpp - Missing facts for failed proofs ----------------------===//
//
// When a proof fails, propose the `requires` facts that would make it go
// through. Candidates are facts over dimension symbols only (a `requires`
// clause can mention nothing else):
//   - bounds: `s mod c = 0` for each dim s related to the goal (directly or
//     through the facts of the loop/grid variables in it) and each constant
//     c seen there (coefficients, divisors, constants), then the same
//     constant for all those dims together, then the residual inequality the
//     search got stuck on (e.g. `K >= 16`);
//   - divisibility: `a mod (n / gcd(c, n)) = 0` for each leftover term c·a,
//     then the leftover congruence itself.
// Each candidate is assumed in a scratch scope and the query re-run; only
// candidates that make it succeed are returned.
//
//===----------------------------------------------------------------------===//
#include "sema/solver/CheckedMath.h"
#include "sema/solver/Context.h"

#include <algorithm>

namespace kina::sema::solver {

using namespace detail;

namespace {
constexpr size_t kMaxCandidates = 12;
constexpr size_t kMaxSuggestions = 3;
constexpr size_t kMaxRelatedAtoms = 64;
} // namespace

bool Context::consistentWith(const Fact &F, unsigned Budget) {
  // A fact whose negation is provable would make every query succeed.
  if (F.K == Fact::Kind::NonNegative && nonNegative(-F.E - 1, Budget, nullptr))
    return false;
  if (F.K == Fact::Kind::Zero &&
      (nonNegative(F.E - 1, Budget, nullptr) || nonNegative(-F.E - 1, Budget, nullptr)))
    return false;
  return true;
}

bool Context::provesWith(const std::vector<Fact> &Extra, const std::function<bool()> &Query) {
  for (const Fact &F : Extra)
    if (!consistentWith(F, 64))
      return false;
  push();
  for (const Fact &F : Extra)
    assume(F);
  bool Ok = !Contradiction;
  // Empty ranges also betray a contradiction (e.g. `1 <= K <= 15` and
  // `K mod 16 = 0`).
  for (size_t I = Facts.size(); Ok && I-- > Marks.back().Facts;)
    for (const Term &T : Facts[I].E.terms()) {
      Interval R = atomRange(T.Atom);
      Ok &= R.Lo <= R.Hi;
    }
  Ok = Ok && Query();
  pop();
  return Ok;
}

void Context::addSuggestion(Proof &P, std::vector<Fact> Fs) {
  Suggestion S;
  for (const Fact &F : Fs) {
    std::string Text = printFact(Syms, F);
    S.Text += (S.Text.empty() ? "" : " and ") + Text;
    S.RequiresClauses.push_back("requires (" + Text + ")");
  }
  for (const Suggestion &Old : P.Suggestions)
    if (Old.Text == S.Text)
      return;
  S.Facts = std::move(Fs);
  P.Suggestions.push_back(std::move(S));
}

void Context::suggestForBounds(const std::vector<DimExpr> &Goals,
                               const std::vector<DimExpr> &Residuals, unsigned Budget, Proof &P) {
  // Dims and constants related to the goals.
  std::vector<AtomId> Dims, Work;
  std::vector<int64_t> Consts;
  std::vector<bool> Seen(Syms.size(), false);
  auto AddConst = [&](int64_t C) {
    if (C < 0)
      C = C == INT64_MIN ? 0 : -C;
    if (C > 1 && C < (int64_t(1) << 31) &&
        std::find(Consts.begin(), Consts.end(), C) == Consts.end())
      Consts.push_back(C);
  };
  auto AddExpr = [&](const DimExpr &E) {
    AddConst(E.constantTerm());
    for (const Term &T : E.terms()) {
      AddConst(T.Coeff);
      if (T.Atom < Seen.size() && !Seen[T.Atom]) {
        Seen[T.Atom] = true;
        Work.push_back(T.Atom);
      }
    }
  };
  for (const DimExpr &G : Goals)
    AddExpr(G);
  for (size_t I = 0; I < Work.size() && I < kMaxRelatedAtoms; ++I) {
    const AtomInfo &Info = Syms.info(Work[I]);
    switch (Info.Kind) {
    case AtomKind::Symbol:
      if (Info.SymKind == SymbolKind::Dim) {
        Dims.push_back(Work[I]);
      } else if (Work[I] < ByAtom.size()) {
        for (uint32_t F : ByAtom[Work[I]])
          if (Facts[F].K != Fact::Kind::Divisible)
            AddExpr(Facts[F].E);
      }
      break;
    case AtomKind::Product:
      for (AtomId F : Info.Factors)
        AddExpr(DimExpr::atom(F));
      break;
    default:
      AddConst(Info.Divisor);
      AddExpr(Info.Operand);
      break;
    }
  }
  // The weakest fact that works is the best suggestion: small divisors first.
  std::sort(Consts.begin(), Consts.end());

  auto Query = [&] {
    for (const DimExpr &G : Goals)
      if (!nonNegative(G, Budget, nullptr))
        return false;
    return true;
  };
  size_t Tried = 0;
  for (int64_t C : Consts)
    for (AtomId S : Dims) {
      if (Tried >= kMaxCandidates || P.Suggestions.size() >= kMaxSuggestions)
        break;
      if (atomDivisor(S) % C == 0)
        continue;
      ++Tried;
      std::vector<Fact> Fs{Fact::divisible(DimExpr::atom(S), C)};
      if (provesWith(Fs, Query))
        addSuggestion(P, std::move(Fs));
    }
  if (P.Suggestions.empty())
    for (int64_t C : Consts) {
      std::vector<Fact> Fs;
      for (AtomId S : Dims)
        if (atomDivisor(S) % C != 0)
          Fs.push_back(Fact::divisible(DimExpr::atom(S), C));
      if (Fs.size() >= 2 && provesWith(Fs, Query)) {
        addSuggestion(P, std::move(Fs));
        break;
      }
    }
  for (const DimExpr &R : Residuals) {
    std::vector<Fact> Fs{Fact::nonNegative(R)};
    if (provesWith(Fs, Query)) {
      addSuggestion(P, std::move(Fs));
      break;
    }
  }
}

void Context::suggestForDivisibility(const DimExpr &G, const DimExpr &Rest, int64_t N, Proof &P) {
  auto Query = [&] { return divisible(G, N, nullptr) == Tri::Yes; };
  if (!Syms.onlyDims(Rest))
    return;
  if (Rest.constantTerm() == 0) {
    // Each leftover term c·a on its own: a mod (n / gcd(c, n)) = 0.
    std::vector<Fact> Fs;
    for (const Term &T : Rest.terms())
      Fs.push_back(Fact::divisible(DimExpr::atom(T.Atom), N / gcd64(T.Coeff, N)));
    if (provesWith(Fs, Query))
      addSuggestion(P, std::move(Fs));
  }
  std::vector<Fact> Whole{Fact::divisible(Rest, N)};
  if (provesWith(Whole, Query))
    addSuggestion(P, std::move(Whole));
}

} // namespace kina::sema::solver
