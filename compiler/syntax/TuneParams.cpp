//===- TuneParams.cpp - Instantiating a kernel at a lattice point ---------===//
//
// An item's expressions are the arena entries whose spans lie inside the
// item's span (the lowering allocates them while lowering that item), so an
// instance is made in place: Names of parameters become Integers, then every
// Binary/Negate/Paren whose operands are now all Integers and that contains a
// parameter folds to one Integer with the whole expression's span. Folding
// stops where it would change meaning: a division or modulo by zero, a
// negative operand or result (Kina's `/` and `mod` on indices floor), and an
// overflow stay unfolded for the checker to report as written.
//
//===----------------------------------------------------------------------===//
#include "syntax/TuneParams.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <set>

namespace kina::syntax {

namespace {

bool inside(Span inner, Span outer) {
  return inner.begin >= outer.begin && inner.end <= outer.end && !(outer.empty());
}

std::string valueList(const TuneParam &p) {
  std::string s = "{";
  for (size_t i = 0; i < p.values.size(); ++i)
    s += (i ? ", " : "") + std::to_string(p.values[i]);
  return s + "}";
}

/// Folds expression `id` (post-order); returns true when it is an Integer
/// afterwards. `touched` marks expressions containing a substituted name.
bool fold(Module &m, ExprId id, std::vector<char> &touched, std::vector<char> &done) {
  if (id == kNone || id >= m.exprs.size())
    return false;
  if (done[id])
    return m.exprs[id].kind == ExprKind::Integer;
  done[id] = 1;
  // Children first (copy the ids: the vector is not resized, but be safe).
  std::vector<ExprId> kids = m.exprs[id].children;
  bool allInt = true;
  for (ExprId c : kids) {
    allInt &= fold(m, c, touched, done);
    if (c < touched.size() && touched[c])
      touched[id] = 1;
  }
  Expr &e = m.exprs[id];
  if (e.kind == ExprKind::Integer)
    return true;
  if (!touched[id] || !allInt)
    return false;
  auto val = [&](size_t i) { return m.exprs[kids[i]].intValue; };
  int64_t r = 0;
  if (e.kind == ExprKind::Paren && kids.size() == 1) {
    r = val(0);
  } else if (e.kind == ExprKind::Binary && kids.size() == 2) {
    int64_t a = val(0), b = val(1);
    if (a < 0 || b < 0)
      return false;
    switch (e.op) {
    case BinaryOp::Add:
      if (__builtin_add_overflow(a, b, &r))
        return false;
      break;
    case BinaryOp::Sub:
      r = a - b;
      if (r < 0)
        return false;
      break;
    case BinaryOp::Mul:
      if (__builtin_mul_overflow(a, b, &r))
        return false;
      break;
    case BinaryOp::Div:
      if (b == 0)
        return false;
      r = a / b;
      break;
    case BinaryOp::Mod:
      if (b == 0)
        return false;
      r = a % b;
      break;
    default:
      return false; // comparisons stay conditions
    }
  } else {
    return false;
  }
  e.kind = ExprKind::Integer;
  e.intValue = r;
  e.children.clear();
  return true;
}

} // namespace

std::vector<Diagnostic> checkTuneDeclarations(const Module &m) {
  std::vector<Diagnostic> out;
  for (size_t i = 0; i < m.items.size(); ++i)
    for (Diagnostic &d : checkTuneDeclarations(m, i))
      out.push_back(std::move(d));
  return out;
}

std::vector<Diagnostic> checkTuneDeclarations(const Module &m, size_t index) {
  std::vector<Diagnostic> out;
  auto report = [&](DiagId id, Span s, std::string msg) -> Diagnostic & {
    out.push_back(Diagnostic{id, s, std::move(msg), {}, {}, {}});
    return out.back();
  };
  for (size_t ii = index; ii < m.items.size() && ii == index; ++ii) {
    const Item &item = m.items[ii];
    if (item.tuneParams.empty() && !m.anyCountParam)
      continue;
    // A count written as a name must name one of the item's parameters.
    for (const Stmt &s : m.stmts) {
      if (!s.countParam.valid() || !inside(s.span, item.bodySpan))
        continue;
      bool known = false;
      for (const TuneParam &t : item.tuneParams)
        known |= t.name.name == s.countParam.name;
      if (!known)
        report(DiagId::TuneCountName, s.countParam.span,
               "`" + s.countParam.name + "` is not a tune parameter of `" + item.name.name +
                   "`; a count is an integer literal or a tune parameter");
    }
    if (item.tuneParams.empty())
      continue;
    std::map<std::string, Span> taken;
    for (const Ident &d : item.dims)
      taken.emplace(d.name, d.span);
    for (const Param &p : item.params)
      taken.emplace(p.name.name, p.name.span);
    if (item.resultName.valid())
      taken.emplace(item.resultName.name, item.resultName.span);
    std::map<std::string, Span> params;
    for (const TuneParam &t : item.tuneParams) {
      if (!t.name.valid())
        continue;
      if (auto it = taken.find(t.name.name); it != taken.end()) {
        report(DiagId::TuneParamName, t.name.span,
               "tune parameter `" + t.name.name + "` has the name of a dimension or parameter")
            .label(it->second, "declared here");
      } else if (auto pit = params.find(t.name.name); pit != params.end()) {
        report(DiagId::TuneParamName, t.name.span,
               "tune parameter `" + t.name.name + "` is declared twice")
            .label(pit->second, "first declared here");
      } else {
        params.emplace(t.name.name, t.name.span);
      }
      std::set<int64_t> seen;
      for (size_t i = 0; i < t.values.size(); ++i) {
        int64_t v = t.values[i];
        if (v <= 0)
          report(DiagId::TuneValues, t.valueSpans[i],
                 "candidate " + std::to_string(v) + " of `" + t.name.name +
                     "` is not a positive integer");
        else if (!seen.insert(v).second)
          report(DiagId::TuneValues, t.valueSpans[i],
                 "candidate " + std::to_string(v) + " of `" + t.name.name + "` is written twice")
              .fix(t.valueSpans[i], "", "remove the repeated candidate");
      }
      if (!t.defaultSpan.empty() &&
          std::find(t.values.begin(), t.values.end(), t.defaultValue) == t.values.end()) {
        Diagnostic &d = report(DiagId::TuneDefaultNotCandidate, t.defaultSpan,
                               "default " + std::to_string(t.defaultValue) + " of `" + t.name.name +
                                   "` is not one of " + valueList(t));
        if (!t.values.empty())
          d.fix(t.defaultSpan, std::to_string(t.values.front()),
                "use the first candidate, " + std::to_string(t.values.front()));
      }
    }
    // Body variables and declarations may not hide a parameter.
    for (const Stmt &s : m.stmts) {
      if (!inside(s.span, item.bodySpan) || !s.name.valid())
        continue;
      if (s.kind != StmtKind::Let && s.kind != StmtKind::For && s.kind != StmtKind::Shared &&
          s.kind != StmtKind::Register)
        continue;
      if (auto it = params.find(s.name.name); it != params.end())
        report(DiagId::TuneParamName, s.name.span,
               "`" + s.name.name + "` hides the tune parameter of the same name")
            .label(it->second, "tune parameter declared here");
    }
    uint64_t size = latticeSize(item);
    if (size > kMaxLatticePoints)
      report(DiagId::TuneLatticeSize, item.tuneParams.front().span,
             "the lattice of `" + item.name.name + "` has " +
                 (size == UINT64_MAX ? std::string("more than 2^64") : std::to_string(size)) +
                 " points, more than the 1,000,000 `kina tune` enumerates");
  }
  return out;
}

uint64_t latticeSize(const Item &item) {
  uint64_t n = 1;
  for (const TuneParam &t : item.tuneParams) {
    uint64_t k = std::max<size_t>(t.values.size(), 1);
    if (__builtin_mul_overflow(n, k, &n))
      return UINT64_MAX;
  }
  return n;
}

TunePoint latticePoint(const Item &item, uint64_t index) {
  TunePoint p;
  for (size_t i = item.tuneParams.size(); i-- > 0;) {
    const TuneParam &t = item.tuneParams[i];
    if (t.values.empty()) {
      p[t.name.name] = t.defaultValue;
      continue;
    }
    p[t.name.name] = t.values[index % t.values.size()];
    index /= t.values.size();
  }
  return p;
}

TunePoint defaultPoint(const Item &item) {
  TunePoint p;
  for (const TuneParam &t : item.tuneParams)
    p[t.name.name] = t.defaultValue;
  return p;
}

std::string formatPoint(const Item &item, const TunePoint &point) {
  std::string s;
  for (const TuneParam &t : item.tuneParams) {
    auto it = point.find(t.name.name);
    int64_t v = it == point.end() ? t.defaultValue : it->second;
    s += (s.empty() ? "" : ",") + t.name.name + "=" + std::to_string(v);
  }
  return s;
}

bool parsePointSpec(const std::vector<std::string> &specs, TunePoint &point, std::string &error) {
  for (const std::string &spec : specs) {
    size_t start = 0;
    while (start <= spec.size()) {
      size_t comma = spec.find(',', start);
      std::string part =
          spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      start = comma == std::string::npos ? spec.size() + 1 : comma + 1;
      if (part.empty())
        continue;
      size_t eq = part.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == part.size()) {
        error = "--param expects NAME=VALUE pairs such as BM=128,BN=256, got `" + part + "`";
        return false;
      }
      std::string name = part.substr(0, eq), value = part.substr(eq + 1);
      char *end = nullptr;
      errno = 0;
      long long v = strtoll(value.c_str(), &end, 10);
      if (errno || !end || *end) {
        error = "--param value for " + name + " must be an integer, got `" + value + "`";
        return false;
      }
      if (point.count(name)) {
        error = "--param gives " + name + " twice";
        return false;
      }
      point[name] = v;
    }
  }
  return true;
}

void instantiateItem(Module &m, size_t index, const TunePoint &point) {
  if (index >= m.items.size())
    return;
  const Item &item = m.items[index];
  if (item.tuneParams.empty())
    return;
  std::map<std::string, int64_t> values;
  for (const TuneParam &t : item.tuneParams) {
    if (!t.name.valid())
      continue;
    auto it = point.find(t.name.name);
    values.emplace(t.name.name, it == point.end() ? t.defaultValue : it->second);
  }
  std::vector<char> touched(m.exprs.size(), 0), done(m.exprs.size(), 0);
  std::vector<ExprId> mine;
  for (ExprId id = 0; id < m.exprs.size(); ++id) {
    Expr &e = m.exprs[id];
    if (!inside(e.span, item.span))
      continue;
    mine.push_back(id);
    if (e.kind != ExprKind::Name)
      continue;
    auto it = values.find(e.name.name);
    if (it == values.end())
      continue;
    e.kind = ExprKind::Integer;
    e.intValue = it->second;
    touched[id] = 1;
  }
  for (ExprId id : mine)
    fold(m, id, touched, done);
  for (Stmt &s : m.stmts)
    if (s.countParam.valid() && inside(s.span, item.span))
      if (auto it = values.find(s.countParam.name); it != values.end())
        s.count = it->second;
}

std::vector<Diagnostic> instantiateTuneParams(Module &m, const TunePoint &requested) {
  std::vector<Diagnostic> out;
  std::set<std::string> known;
  for (size_t i = 0; i < m.items.size(); ++i) {
    const Item &item = m.items[i];
    if (item.tuneParams.empty())
      continue;
    TunePoint point = defaultPoint(item);
    for (const TuneParam &t : item.tuneParams) {
      known.insert(t.name.name);
      auto it = requested.find(t.name.name);
      if (it == requested.end())
        continue;
      if (std::find(t.values.begin(), t.values.end(), it->second) == t.values.end()) {
        out.push_back(Diagnostic{DiagId::TunePointValue,
                                 t.name.span,
                                 "--param " + t.name.name + "=" + std::to_string(it->second) +
                                     " is not one of " + valueList(t) + " in `" + item.name.name +
                                     "`; the default point is used",
                                 {},
                                 {},
                                 {}});
        continue;
      }
      point[t.name.name] = it->second;
    }
    instantiateItem(m, i, point);
  }
  for (const auto &[name, value] : requested)
    if (!known.count(name))
      out.push_back(Diagnostic{DiagId::TunePointValue,
                               Span{0, 0},
                               "--param " + name + "=" + std::to_string(value) +
                                   ": no kernel of this file declares `tune " + name + "`",
                               {},
                               {},
                               {}});
  return out;
}

} // namespace kina::syntax
