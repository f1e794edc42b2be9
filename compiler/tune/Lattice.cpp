//===- Lattice.cpp - Checking every point of a tune lattice ---------------===//
//
// Each worker takes the next point index from an atomic counter, copies the
// parsed module (a few hundred kilobytes for a stdlib file), instantiates the
// one item at the point and checks only that item with the IDE tables off, as
// `kina check` does. Points are independent, so the result does not depend on
// the thread count; LatticeTest compares it with point-by-point analyze().
//
//===----------------------------------------------------------------------===//
#include "tune/Lattice.h"

#include "sema/Check.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

namespace kina::tune {

const char *reasonName(Reason r) {
  switch (r) {
  case Reason::Legal:
    return "legal";
  case Reason::SharedMemory:
    return "shared memory";
  case Reason::Registers:
    return "registers";
  case Reason::Threads:
    return "threads";
  case Reason::Divisibility:
    return "divisibility";
  case Reason::Alignment:
    return "alignment";
  case Reason::Capability:
    return "capability";
  case Reason::Fences:
    return "fences";
  case Reason::Other:
    return "other";
  }
  return "other";
}

Reason reasonForCode(std::string_view code, DiagClass cls) {
  static const std::map<std::string_view, Reason> byCode = {
      {"K0801", Reason::SharedMemory}, {"K1207", Reason::SharedMemory},
      {"K0803", Reason::Registers},    {"K0920", Reason::Registers},
      {"K0921", Reason::Registers},    {"K0922", Reason::Registers},
      {"K1225", Reason::Registers},    {"K1226", Reason::Registers},
      {"K0802", Reason::Threads},      {"K0203", Reason::Alignment},
      {"K0204", Reason::Alignment},    {"K1325", Reason::Alignment},
      {"K0410", Reason::Alignment}, // a swizzled tile of 3 panels: its width
  };
  if (auto it = byCode.find(code); it != byCode.end())
    return it->second;
  switch (cls) {
  case DiagClass::Divisibility:
    return Reason::Divisibility;
  case DiagClass::Capability:
    return Reason::Capability;
  case DiagClass::Fence:
  case DiagClass::Effect:
    return Reason::Fences;
  case DiagClass::Resource:
    return Reason::SharedMemory;
  default:
    return Reason::Other;
  }
}

namespace {

using syntax::BinaryOp;
using syntax::Expr;
using syntax::ExprKind;

/// Integer value of an expression over the shape; nullopt when unknown.
std::optional<int64_t> evalInt(const syntax::Module &m, syntax::ExprId id,
                               const std::map<std::string, int64_t> &shape, int depth = 0) {
  if (id == syntax::kNone || id >= m.exprs.size() || depth > 200)
    return std::nullopt;
  const Expr &e = m.exprs[id];
  switch (e.kind) {
  case ExprKind::Integer:
    return e.intValue;
  case ExprKind::Name: {
    auto it = shape.find(e.name.name);
    if (it == shape.end())
      return std::nullopt;
    return it->second;
  }
  case ExprKind::Paren:
    return e.children.size() == 1 ? evalInt(m, e.children[0], shape, depth + 1) : std::nullopt;
  case ExprKind::Negate: {
    auto v = e.children.size() == 1 ? evalInt(m, e.children[0], shape, depth + 1) : std::nullopt;
    return v ? std::optional<int64_t>(-*v) : std::nullopt;
  }
  case ExprKind::Binary: {
    if (e.children.size() != 2)
      return std::nullopt;
    auto a = evalInt(m, e.children[0], shape, depth + 1);
    auto b = evalInt(m, e.children[1], shape, depth + 1);
    if (!a || !b)
      return std::nullopt;
    int64_t r = 0;
    switch (e.op) {
    case BinaryOp::Add:
      return __builtin_add_overflow(*a, *b, &r) ? std::nullopt : std::optional(r);
    case BinaryOp::Sub:
      return __builtin_sub_overflow(*a, *b, &r) ? std::nullopt : std::optional(r);
    case BinaryOp::Mul:
      return __builtin_mul_overflow(*a, *b, &r) ? std::nullopt : std::optional(r);
    case BinaryOp::Div:
      if (*b <= 0 || *a < 0)
        return std::nullopt;
      return *a / *b;
    case BinaryOp::Mod:
      if (*b <= 0 || *a < 0)
        return std::nullopt;
      return *a % *b;
    case BinaryOp::Eq:
      return *a == *b;
    case BinaryOp::Ne:
      return *a != *b;
    case BinaryOp::Lt:
      return *a < *b;
    case BinaryOp::Le:
      return *a <= *b;
    case BinaryOp::Gt:
      return *a > *b;
    case BinaryOp::Ge:
      return *a >= *b;
    }
    return std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

int64_t constantProduct(const syntax::Module &m, const std::vector<syntax::ExprId> &shape) {
  int64_t n = 1;
  for (syntax::ExprId id : shape) {
    auto v = evalInt(m, id, {});
    if (!v || *v <= 0)
      return 0;
    n *= *v;
  }
  return n;
}

/// The item's first block_grid (and its cluster) as constants.
void gridFacts(const syntax::Module &m, const syntax::Item &item, PointResult &r) {
  for (const syntax::Stmt &s : m.stmts) {
    if (s.kind != syntax::StmtKind::BlockGrid || s.span.begin < item.bodySpan.begin ||
        s.span.end > item.bodySpan.end)
      continue;
    r.gridBlocks = constantProduct(m, s.shape);
    r.clusterSize = s.cluster.empty() ? 1 : std::max<int64_t>(constantProduct(m, s.cluster), 1);
    return;
  }
}

void checkPoint(const SourceFile &file, const syntax::Module &module, const LatticeOptions &options,
                PointResult &r) {
  syntax::Module m = module;
  syntax::instantiateItem(m, static_cast<size_t>(r.item), r.point);
  sema::CheckOptions co;
  co.target = options.target;
  co.onlyItems = {r.item};
  co.ideTables = false;
  co.exprTypeTable = false;
  co.fileDiagnostics = false;
  co.sourceText = file.text();
  DiagnosticSink sink;
  sema::CheckedProgram program = sema::check(m, co, sink);
  std::vector<Diagnostic> diags = sink.take();
  sortDiagnostics(diags);
  bool capability = false;
  for (const Diagnostic &d : diags) {
    if (d.severity() != Severity::Error)
      continue;
    Reason reason = reasonForCode(d.info().code, d.info().diagClass);
    // The reason is the first error's, except that a capability the target
    // lacks wins: no other parameter value can make such a point legal (an
    // mma.sync kernel's points on sm_75 are "capability", whatever else
    // they also exceed).
    if (r.codes.empty() || (reason == Reason::Capability && !capability)) {
      r.reason = reason;
      r.message = d.message;
      r.code = d.info().code;
      capability = reason == Reason::Capability;
    }
    r.codes.emplace_back(d.info().code);
  }
  const syntax::Item &item = m.items[r.item];
  if (r.codes.empty() && !options.shape.empty()) {
    for (const syntax::Requirement &req : item.requirements) {
      if (req.isCapability)
        continue;
      if (evaluateRequirement(m, req.condition, options.shape) == 0) {
        r.reason = Reason::Divisibility;
        r.codes.push_back("requires");
        r.code = "requires";
        r.message =
            "requires (" + syntax::printExpr(m, req.condition) + ") does not hold at the shape";
        break;
      }
    }
  }
  for (const sema::KernelSummary &k : program.kernels)
    if (k.item == r.item) {
      r.sharedBytes = k.sharedBytes;
      r.threadsPerBlock = k.threadsPerBlock;
      r.registerEstimate = k.registerEstimate;
    }
  gridFacts(m, item, r);
}

} // namespace

int evaluateRequirement(const syntax::Module &m, syntax::ExprId cond,
                        const std::map<std::string, int64_t> &shape) {
  auto v = evalInt(m, cond, shape);
  if (!v)
    return -1;
  return *v != 0 ? 1 : 0;
}

LatticeResult checkLattice(const SourceFile &file, const syntax::Module &module,
                           const LatticeOptions &options) {
  auto start = std::chrono::steady_clock::now();
  LatticeResult out;
  out.declarationErrors = syntax::checkTuneDeclarations(module);
  for (size_t i = 0; i < module.items.size(); ++i) {
    const syntax::Item &item = module.items[i];
    if (item.kind != syntax::ItemKind::Kernel || item.tuneParams.empty())
      continue;
    if (!options.kernels.empty() && std::find(options.kernels.begin(), options.kernels.end(),
                                              item.name.name) == options.kernels.end())
      continue;
    uint64_t n = syntax::latticeSize(item);
    if (n > syntax::kMaxLatticePoints)
      continue; // K0174 is in declarationErrors
    for (uint64_t p = 0; p < n; ++p) {
      PointResult r;
      r.item = static_cast<int>(i);
      r.kernel = item.name.name;
      r.index = p;
      r.point = syntax::latticePoint(item, p);
      bool off = false;
      for (const auto &[name, value] : options.pinned)
        if (auto it = r.point.find(name); it != r.point.end() && it->second != value)
          off = true;
      if (off)
        continue;
      r.pointText = syntax::formatPoint(item, r.point);
      out.points.push_back(std::move(r));
    }
  }
  out.size = out.points.size();
  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  unsigned threads = options.threads ? options.threads : std::min(hw, 16u);
  threads = static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>(threads, out.size)));
  out.threads = threads;
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < out.points.size();)
      checkPoint(file, module, options, out.points[i]);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(work);
  work();
  for (std::thread &t : pool)
    t.join();
  for (const PointResult &r : out.points) {
    if (r.legal())
      ++out.legal;
    else
      ++out.rejected[static_cast<int>(r.reason)];
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

} // namespace kina::tune
