//===- RegisterInit.cpp - Reads of register tiles before any assignment ---===//
//
// A register tile holds whatever its registers held until something is
// assigned to it: `acc <- wmma_mma acc a b` without an `acc <- fill 0.0`
// first accumulates onto garbage. Register tiles are assigned whole
// (`x <- e`; slices of them are K0110), so this is definite assignment over
// the structured body, reported as K0908:
//
//  - An assignment is recorded with the path of branch conditions around it.
//    A read sees it when every condition of that path holds where the read
//    is: it is on the read's own path, or the prover shows it (a second
//    `if w = 0` sees what the first one assigned). An assignment on both
//    branches of an `if` counts after it unconditionally.
//  - A loop body is walked for its first iteration (k = start, so an
//    `if k > 0` branch is not taken) and then once for the later iterations,
//    which also see what the first iteration assigned (a value carried from
//    the previous iteration). After the loop, its assignments count only when
//    the loop provably runs (start < end).
//  - A branch that cannot be taken under the facts in scope is skipped.
//
// Past a budget of statements walked, loops get only their first-iteration
// walk: reads in branches that only later iterations take are then not
// checked (lenient, never a false error), and the pass stays linear.
//
//===----------------------------------------------------------------------===//
#include "sema/Analysis.h"

#include <map>
#include <set>

namespace kina::sema {
namespace {

/// A branch condition and which way it went.
struct Condition {
  ExprId cond;
  bool holds;
  bool operator==(const Condition &o) const { return cond == o.cond && holds == o.holds; }
};
using Path = std::vector<Condition>;

class RegisterInit {
public:
  RegisterInit(Checker &c, const Item &item) : c_(c), m_(c.m), item_(item) {}

  void run() { walkBlock(item_.body); }

private:
  Checker &c_;
  const Module &m_;
  const Item &item_;
  /// Register tiles declared in the item, by name, with their declaration.
  std::map<std::string, StmtId> declared_;
  /// For each register tile, the paths on which it has been assigned.
  std::map<std::string, std::vector<Path>> assigned_;
  std::set<std::string> everAssigned_; ///< assigned on some path walked so far
  /// Tiles declared outside a role and assigned inside one, with the role:
  /// its threads alone hold what it assigned.
  std::map<std::string, std::string> assignedInRole_;
  Path path_; ///< the branch conditions around the current statement
  std::set<uint32_t> reported_;
  size_t walked_ = 0;
  int warpgroupGridDepth_ = 0;
  std::set<std::string> warpgroupTiles_; ///< register tiles declared in a warpgroup grid
  static constexpr size_t kBudget = 20000;

  bool holdsHere(const Condition &k) {
    if (std::find(path_.begin(), path_.end(), k) != path_.end())
      return true;
    return provableCondition(c_, k.cond, k.holds);
  }
  bool assignedHere(const std::string &name) {
    auto it = assigned_.find(name);
    if (it == assigned_.end())
      return false;
    for (const Path &p : it->second)
      if (std::all_of(p.begin(), p.end(), [&](const Condition &k) { return holdsHere(k); }))
        return true;
    return false;
  }
  void assign(const std::string &name) {
    everAssigned_.insert(name);
    std::vector<Path> &paths = assigned_[name];
    if (std::find(paths.begin(), paths.end(), path_) == paths.end())
      paths.push_back(path_);
  }

  void read(const std::string &name, Span span) {
    if (assignedHere(name) || !reported_.insert(span.begin).second || errorWithin(c_, span))
      return;
    auto inRole = assignedInRole_.find(name);
    bool otherRole = inRole != assignedInRole_.end() && everAssigned_.count(name) == 0;
    bool somewhere = everAssigned_.count(name) > 0;
    std::string msg = somewhere ? "the register tile `" + name +
                                      "` is read where it may not have been assigned"
                                : "the register tile `" + name +
                                      "` is read before anything is assigned to it";
    Diagnostic &d = c_.error(DiagId::RegisterReadBeforeWrite, span, std::move(msg));
    const Stmt &decl = m_.stmt(declared_[name]);
    d.label(decl.name.span, "declared here; its registers start undefined");
    if (otherRole)
      d.note("it is assigned in role `" + inRole->second +
             "`, whose threads are not this role's: a register tile holds what its own threads "
             "assigned (declare it inside the role that uses it, or assign it before the roles)");
    else if (somewhere)
      d.note("it is assigned only on some paths before this read (a branch, or a loop that may "
             "not run)");
    else if (warpgroupTiles_.count(name))
      // A warpgroup tile is not filled (K0413): the first wgmma overwrites it.
      d.note("write `zero_when (k = 0)` (k the loop variable) on the wgmma that accumulates "
             "into `" +
             name + "` first: it overwrites the accumulator there");
    else
      d.fix(Span{decl.span.end, decl.span.end},
            "\n" + indentOf(decl.span) + name + " <- fill 0.0",
            "initialize `" + name + "` after its declaration");
  }

  std::string indentOf(Span s) const {
    std::string_view text = c_.options.sourceText;
    if (text.empty() || s.begin > text.size())
      return "      ";
    size_t lineStart = text.rfind('\n', s.begin == 0 ? 0 : s.begin - 1);
    lineStart = lineStart == std::string_view::npos ? 0 : lineStart + 1;
    std::string indent;
    for (size_t i = lineStart; i < s.begin && (text[i] == ' ' || text[i] == '\t'); ++i)
      indent.push_back(text[i]);
    return indent;
  }

  /// Reads of tracked register tiles anywhere inside an expression.
  void reads(ExprId id) {
    if (id == syntax::kNone)
      return;
    const Expr &e = m_.expr(id);
    if (e.kind == ExprKind::Name) {
      if (declared_.count(e.name.name))
        read(e.name.name, e.span);
      return;
    }
    for (ExprId child : e.children)
      reads(child);
  }

  void walkBlock(const std::vector<StmtId> &body) {
    for (StmtId s : body)
      walkStmt(s);
  }

  void walkStmt(StmtId id) {
    ++walked_;
    const Stmt &st = m_.stmt(id);
    switch (st.kind) {
    case StmtKind::Register:
      declared_[st.name.name] = id;
      if (warpgroupGridDepth_ > 0)
        warpgroupTiles_.insert(st.name.name);
      else
        warpgroupTiles_.erase(st.name.name);
      assigned_.erase(st.name.name);
      everAssigned_.erase(st.name.name);
      return;
    case StmtKind::Assign: {
      reads(st.value);
      const Expr &target = m_.expr(st.target);
      if (target.kind == ExprKind::Name && declared_.count(target.name.name))
        assign(target.name.name);
      else
        reads(st.target); // a store's indices, never a register tile
      return;
    }
    case StmtKind::Let:
    case StmtKind::Return:
      reads(st.value);
      return;
    case StmtKind::CpAsync:
      reads(st.value);
      return;
    case StmtKind::BlockGrid:
    case StmtKind::WarpGrid:
    case StmtKind::WarpgroupGrid:
    case StmtKind::Role: {
      FactScope facts(c_);
      facts.grid(id);
      int depth = st.kind == StmtKind::WarpgroupGrid;
      warpgroupGridDepth_ += depth;
      // A role's body runs on its own warpgroups only: what it assigns to a
      // tile declared outside it is not in the registers of the threads
      // after it (another role's, or the grid's after the roles).
      auto beforeRole = assigned_;
      auto everBefore = everAssigned_;
      walkBlock(st.body);
      if (st.kind == StmtKind::Role) {
        for (const auto &[name, paths] : assigned_)
          if (declared_.count(name) && !beforeRole.count(name))
            assignedInRole_.emplace(name, st.name.name);
        for (auto it = assigned_.begin(); it != assigned_.end();)
          it = beforeRole.count(it->first) ? std::next(it) : assigned_.erase(it);
        for (const auto &[name, paths] : beforeRole)
          assigned_[name] = paths;
        everAssigned_ = std::move(everBefore);
      }
      warpgroupGridDepth_ -= depth;
      return;
    }
    case StmtKind::Wgmma: {
      // `zero_when (c)` overwrites the accumulator where c provably holds
      // (the first iteration of `zero_when (k = 0)`); elsewhere wgmma adds
      // to what the accumulator holds.
      bool overwrites = st.zeroWhen != syntax::kNone && provableCondition(c_, st.zeroWhen, true);
      if (!overwrites)
        reads(st.value);
      reads(st.operandA);
      reads(st.operandB);
      const Expr &target = m_.expr(st.target);
      if (target.kind == ExprKind::Name && declared_.count(target.name.name))
        assign(target.name.name);
      return;
    }
    case StmtKind::If:
      walkIf(st);
      return;
    case StmtKind::For:
      walkFor(id, st);
      return;
    default:
      return;
    }
  }

  void walkIf(const Stmt &st) {
    bool taken[2] = {false, false};
    for (bool holds : {true, false}) {
      if (provableCondition(c_, st.value, !holds))
        continue; // cannot be taken here
      taken[holds ? 0 : 1] = true;
      FactScope facts(c_);
      facts.branch(st.value, holds);
      path_.push_back({st.value, holds});
      walkBlock(holds ? st.body : st.elseBody);
      path_.pop_back();
    }
    // Assigned on both branches: assigned after the `if`, whatever it took.
    if (!taken[0] || !taken[1])
      return;
    Path yes = path_, no = path_;
    yes.push_back({st.value, true});
    no.push_back({st.value, false});
    for (auto &[name, paths] : assigned_) {
      bool a = std::find(paths.begin(), paths.end(), yes) != paths.end();
      bool b = std::find(paths.begin(), paths.end(), no) != paths.end();
      if (a && b && std::find(paths.begin(), paths.end(), path_) == paths.end())
        paths.push_back(path_);
    }
  }

  void walkFor(StmtId id, const Stmt &st) {
    auto var = c_.loopVarOf.find(id);
    auto start = c_.exprValueOrNull(st.value);
    auto end = c_.exprValueOrNull(st.end);
    reads(st.value);
    reads(st.end);
    if (var == c_.loopVarOf.end() || !start || !end)
      return;
    const DimExpr k = var->second;
    std::map<std::string, std::vector<Path>> entry = assigned_;
    size_t depth = path_.size();

    // The first iteration: k = start.
    std::map<std::string, std::vector<Path>> afterFirst;
    {
      FactScope facts(c_);
      facts.loop(id);
      facts.equal(k, *start);
      walkBlock(st.body);
      // What the first iteration assigned stays assigned in later ones. A
      // condition about k held or not at k = start: drop it when it held,
      // drop the path when it did not.
      for (auto &[name, paths] : assigned_) {
        std::vector<Path> kept;
        for (Path p : paths) {
          bool ok = true;
          Path q(p.begin(), p.begin() + std::min(depth, p.size()));
          for (size_t i = depth; i < p.size() && ok; ++i) {
            if (!mentionsLoopVar(p[i].cond, k))
              q.push_back(p[i]);
            else
              ok = provableCondition(c_, p[i].cond, p[i].holds);
          }
          if (ok && std::find(kept.begin(), kept.end(), q) == kept.end())
            kept.push_back(std::move(q));
        }
        paths = std::move(kept);
      }
      afterFirst = assigned_;
    }
    // Later iterations: k > start, seeing the first iteration's assignments.
    if (walked_ < kBudget) {
      FactScope facts(c_);
      facts.loop(id);
      facts.lessEqual(*start + DimExpr::constant(1), k);
      walkBlock(st.body);
    }
    // After the loop: the first iteration's assignments, when it runs. Paths
    // still holding in-loop conditions (about warps) keep them.
    bool runs = c_.prover.proveLess(*start, *end).proved();
    assigned_ = runs ? std::move(afterFirst) : std::move(entry);
  }

  bool mentionsLoopVar(ExprId cond, const DimExpr &k) {
    std::vector<solver::AtomId> syms;
    symbolsOfExpr(c_, cond, syms);
    for (const solver::Term &t : k.terms())
      if (std::find(syms.begin(), syms.end(), t.Atom) != syms.end())
        return true;
    return false;
  }
};

} // namespace

void checkRegisterInit(Checker &checker, const Item &item) {
  RegisterInit(checker, item).run();
}

} // namespace kina::sema
