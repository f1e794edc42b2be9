//===- ProofHover.cpp - How each access's obligation was discharged -------===//
//
// Issue 17 part 4. The checker proves, per slice, index and division, an
// obligation (`k * 16 + 16 <= K`, `K mod 16 = 0`); the IDE shows it on
// hover with the facts it rests on. The prover tags every fact with the
// origin that gave it (Context::setOrigin: a `requires` clause, a loop, a
// grid, a branch); after a proof succeeds, Context::factsAbout picks the
// facts in scope that share a symbol with the goal and their origins are
// printed. That is a relevance filter (what the proof could use), linear in
// the facts in scope, not a minimal proof: re-proving with facts removed
// would cost a proof per fact per access while typing. `requires` facts are
// marked "checked at launch": the launch guard tests them, nothing proves
// them. Only built with CheckOptions::proofTables
// (kina-lsp: at hover time, for the hovered item).
//
//===----------------------------------------------------------------------===//
#include "sema/Checker.h"

namespace kina::sema {

Checker::Origin::Origin(Checker &c, const std::function<std::string()> &text, bool atLaunch)
    : c_(c), saved_(c.prover.origin()) {
  if (!c.options.proofTables)
    return;
  c.factOrigins.push_back({text(), atLaunch});
  c.prover.setOrigin(int32_t(c.factOrigins.size() - 1));
}

std::string Checker::dischargedBy(const std::vector<DimExpr> &goals) {
  std::vector<int32_t> origins;
  std::vector<std::string> plain; // facts without an origin, printed
  bool constant = true;
  for (const DimExpr &g : goals) {
    constant &= g.isConstant();
    for (size_t i : prover.factsAbout(g)) {
      int32_t o = prover.factOrigin(i);
      if (o >= 0 && size_t(o) < factOrigins.size()) {
        if (std::find(origins.begin(), origins.end(), o) == origins.end())
          origins.push_back(o);
        continue;
      }
      std::string f = "`" + solver::printFact(symbols, prover.facts()[i]) + "`";
      if (std::find(plain.begin(), plain.end(), f) == plain.end())
        plain.push_back(f);
    }
  }
  std::vector<std::string> parts;
  for (int32_t o : origins)
    parts.push_back(factOrigins[o].text +
                    (factOrigins[o].atLaunch ? " (checked at launch, not proved)" : ""));
  // Facts the checker derived (index divisions, persistent-loop ordinals)
  // without an origin of their own: the first few, then how many more.
  constexpr size_t kShownDerived = 3;
  for (size_t i = 0; i < plain.size() && i < kShownDerived; ++i)
    parts.push_back(std::move(plain[i]) + " (derived)");
  if (plain.size() > kShownDerived)
    parts.push_back(std::to_string(plain.size() - kShownDerived) + " more derived facts");
  if (parts.empty())
    return constant ? "by arithmetic on constants" : "from the dimensions being positive";
  std::string out = "from ";
  for (size_t i = 0; i < parts.size(); ++i)
    out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return out;
}

void Checker::annotateProof(Span span, const std::string &markdown, const std::string &type) {
  if (!options.proofTables || !options.ideTables)
    return;
  // The access's own annotation was pushed just before (its operands'
  // annotations may follow it): look at the last few only.
  size_t n = program.annotations.size();
  for (size_t i = n; i-- > 0 && n - i <= 8;) {
    TypeAnnotation &a = program.annotations[i];
    if (a.span.begin != span.begin || a.span.end != span.end)
      continue;
    if (a.markdown.empty())
      a.markdown = "```kina\n" + a.type + "\n```";
    a.markdown += "\n\n" + markdown;
    a.proof = true;
    return;
  }
  TypeAnnotation a;
  a.span = span;
  a.type = type;
  a.markdown = markdown;
  a.proof = true;
  program.annotations.push_back(std::move(a));
}

} // namespace kina::sema
