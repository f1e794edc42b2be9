//===- Verifier.cpp - Structural and type checks of the tile IR -----------===//
//
// One walk over the kernel that checks ids, scopes, index expressions,
// slices, operand types and async-group discipline, reporting K12xx
// diagnostics. Checks never assume earlier checks passed: every lookup is
// bounds-checked, so malformed IR yields diagnostics, not crashes.
//
//===----------------------------------------------------------------------===//
#include "ir/Verifier.h"

#include "ir/Printer.h"

#include <algorithm>
#include <initializer_list>
#include <set>

namespace kina::ir {
namespace {

using Kind = IndexExpr::Kind;

std::string shapeString(const std::vector<int64_t> &s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i)
    r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

/// The largest power-of-two-free multiple the verifier can see without the
/// solver: constants, products and sums of leaves; 1 when unknown. Used for
/// alignment facts that codegen relies on (swizzle rows, wgmma k offsets).
int64_t knownMultipleOf(const IndexExpr &e) {
  auto gcd = [](int64_t a, int64_t b) {
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    while (b) {
      int64_t t = a % b;
      a = b;
      b = t;
    }
    return a;
  };
  switch (e.kind()) {
  case Kind::Const:
    return e.value() == 0 ? int64_t(1) << 30 : (e.value() < 0 ? -e.value() : e.value());
  case Kind::Add:
  case Kind::Sub:
    return gcd(knownMultipleOf(e.lhs()), knownMultipleOf(e.rhs()));
  case Kind::Mul: {
    int64_t l = knownMultipleOf(e.lhs()), r = knownMultipleOf(e.rhs());
    return l > (int64_t(1) << 30) / r ? int64_t(1) << 30 : l * r;
  }
  default:
    return 1;
  }
}

bool isMultiple(const IndexExpr &e, int64_t m) { return knownMultipleOf(e) % m == 0; }

class Verifier {
public:
  Verifier(const Kernel &k, DiagnosticSink &sink) : k_(k), sink_(sink) {}

  bool run() {
    checkSignature();
    checkHopperSignature();
    std::vector<VarId> scope;
    for (TokenId t : checkBlock(k_.body, scope))
      error(DiagId::TileIRAsyncGroup, k_.body.ops.empty() ? k_.span : k_.body.ops.back().span,
            "cp_async group #" + std::to_string(t) +
                " is never committed (add cp_async_commit after its copies)");
    return errors_ == 0;
  }

private:
  void error(DiagId id, Span span, std::string msg) {
    ++errors_;
    sink_.report(id, span, "kernel '" + k_.name + "': " + msg);
  }

  // What leaves an index expression may mention.
  enum class Context { Signature, Body };

  /// Checks e; wantBool selects integer or boolean context.
  void checkIndex(const IndexExpr &e, bool wantBool, Context ctx, const std::vector<VarId> &scope,
                  Span span, const char *what) {
    if (e.isBoolean() != wantBool) {
      error(DiagId::TileIRBadIndex, span,
            std::string(what) + ": expected " + (wantBool ? "a condition" : "an integer") +
                " but got `" + printIndex(k_, e) + "`");
      return;
    }
    checkNode(e, ctx, scope, span, what);
  }

  void checkNode(const IndexExpr &e, Context ctx, const std::vector<VarId> &scope, Span span,
                 const char *what) {
    switch (e.kind()) {
    case Kind::Const:
      return;
    case Kind::Dim:
      if (e.index() >= k_.dims.size())
        error(DiagId::TileIRMalformed, span,
              std::string(what) + ": dimension #" + std::to_string(e.index()) + " is not declared");
      return;
    case Kind::WarpgroupId:
      if (ctx == Context::Signature)
        error(DiagId::TileIRBadIndex, span,
              std::string(what) + ": `warpgroup_id` may only appear in the kernel body");
      else if (k_.warpgroups <= 0)
        error(DiagId::TileIRWarpgroup, span,
              std::string(what) + ": `warpgroup_id` needs a warpgroup grid");
      return;
    case Kind::ClusterRank:
      if (ctx == Context::Signature)
        error(DiagId::TileIRBadIndex, span,
              std::string(what) + ": `cluster_rank` may only appear in the kernel body");
      return;
    case Kind::BlockId:
    case Kind::WarpId:
      if (ctx == Context::Signature)
        error(DiagId::TileIRBadIndex, span,
              std::string(what) + ": `" + printIndex(k_, e) +
                  "` may only appear in the kernel body");
      else if (e.index() > (e.kind() == Kind::BlockId ? 2u : 1u))
        error(DiagId::TileIRBadIndex, span,
              std::string(what) + ": axis " + std::to_string(e.index()) + " is out of range (" +
                  (e.kind() == Kind::BlockId ? "block grids have axes 0 to 2"
                                             : "warp grids have axes 0 and 1") +
                  ")");
      return;
    case Kind::Var:
      if (ctx == Context::Signature || e.index() >= k_.vars.size()) {
        error(DiagId::TileIRMalformed, span,
              std::string(what) + ": variable #" + std::to_string(e.index()) +
                  " is not declared here");
        return;
      }
      for (VarId v : scope)
        if (v == e.index())
          return;
      error(DiagId::TileIRMalformed, span,
            std::string(what) + ": variable `" + k_.vars[e.index()].name +
                "` is used out of scope");
      return;
    case Kind::Not:
      if (!e.lhs().isBoolean())
        error(DiagId::TileIRBadIndex, span, std::string(what) + ": `not` needs a condition");
      checkNode(e.lhs(), ctx, scope, span, what);
      return;
    case Kind::And:
    case Kind::Or:
      if (!e.lhs().isBoolean() || !e.rhs().isBoolean())
        error(DiagId::TileIRBadIndex, span,
              std::string(what) + ": `" + indexKindSpelling(e.kind()) + "` needs conditions");
      break;
    default: // arithmetic and comparisons take integers
      if (e.lhs().isBoolean() || e.rhs().isBoolean())
        error(DiagId::TileIRBadIndex, span,
              std::string(what) + ": `" + indexKindSpelling(e.kind()) + "` needs integers in `" +
                  printIndex(k_, e) + "`");
      if (e.kind() == Kind::Div || e.kind() == Kind::Mod || e.kind() == Kind::FloorDiv ||
          e.kind() == Kind::CeilDiv) {
        // `/` and `mod` may divide by a launch-invariant dim expression
        // (`t / (N/256)`), which the checker proved positive; the floor and
        // ceiling forms keep a constant divisor.
        auto c = e.rhs().asConstant();
        bool runtime =
            !c && (e.kind() == Kind::Div || e.kind() == Kind::Mod) && overDimsOnly(e.rhs());
        if (!runtime && (!c || *c <= 0))
          error(DiagId::TileIRBadIndex, span,
                std::string(what) + ": `" + indexKindSpelling(e.kind()) + "` needs a positive " +
                    (e.kind() == Kind::Div || e.kind() == Kind::Mod
                         ? "constant or an expression over the dims"
                         : "constant") +
                    " on the right in `" + printIndex(k_, e) + "`");
      }
      break;
    }
    checkNode(e.lhs(), ctx, scope, span, what);
    checkNode(e.rhs(), ctx, scope, span, what);
  }

  /// True when e is built from constants and dims only (launch-invariant).
  static bool overDimsOnly(const IndexExpr &e) {
    return !e.isBoolean() && !e.anyLeaf([](const IndexExpr &l) {
      return l.kind() != Kind::Const && l.kind() != Kind::Dim;
    });
  }

  /// A scalar operand: parameters declared, index leaves in scope.
  void checkScalar(const ScalarExpr &e, const std::vector<VarId> &scope, Span span,
                   const char *what) {
    using SK = ScalarExpr::Kind;
    switch (e.kind()) {
    case SK::Const:
      return;
    case SK::Param:
      if (e.param() >= k_.scalars.size())
        error(DiagId::TileIRMalformed, span,
              std::string(what) + ": scalar parameter #" + std::to_string(e.param()) +
                  " is not declared");
      else if (k_.scalars[e.param()].dtype != e.dtype())
        error(DiagId::TileIRTypeMismatch, span,
              std::string(what) + ": scalar parameter '" + k_.scalars[e.param()].name +
                  "' is used as " + std::string(dtypeName(e.dtype())));
      return;
    case SK::Index:
      checkIndex(e.index(), false, Context::Body, scope, span, what);
      return;
    case SK::Convert:
    case SK::Neg:
      checkScalar(e.operand(), scope, span, what);
      return;
    case SK::Math: {
      // What ElementwiseToMLIR.cpp lowers: the math kinds, float scalars.
      auto k = static_cast<UnaryKind>(e.mathKind());
      if (!isMathKind(k) || k > UnaryKind::GeluTanhApprox || !isFloat(e.dtype()) ||
          (e.dtype() == DType::F64 && !mathKindTakesF64(k)))
        error(DiagId::TileIRTypeMismatch, span,
              std::string(what) + ": math kind #" + std::to_string(e.mathKind()) + " of a " +
                  std::string(dtypeName(e.dtype())) + " scalar");
      checkScalar(e.operand(), scope, span, what);
      return;
    }
    default:
      checkScalar(e.lhs(), scope, span, what);
      checkScalar(e.rhs(), scope, span, what);
      return;
    }
  }

  void checkSignature() {
    if (k_.name.empty())
      error(DiagId::TileIRMalformed, k_.span, "the kernel has no name");
    std::vector<VarId> none;
    unsigned results = 0;
    for (const auto &p : k_.params) {
      if (p.shape.empty())
        error(DiagId::TileIRMalformed, p.span, "tensor '" + p.name + "' has rank 0");
      for (const auto &d : p.shape)
        checkIndex(d, false, Context::Signature, none, p.span, "tensor shape");
      if (p.isResult) {
        ++results;
        if (!p.writable)
          error(DiagId::TileIRMalformed, p.span, "result '" + p.name + "' must be writable");
      }
    }
    if (results > 1)
      error(DiagId::TileIRMalformed, k_.span, "a kernel has at most one result tensor");
    for (const auto &r : k_.requirements)
      checkIndex(r.condition, true, Context::Signature, none, r.span, "requires");
    for (const auto &g : k_.blockGrid)
      checkIndex(g, false, Context::Signature, none, k_.span, "block_grid");
    if (k_.warpGrid[0] < 1 || k_.warpGrid[1] < 1 || k_.warpGrid[0] * k_.warpGrid[1] > 32)
      error(DiagId::TileIRMalformed, k_.span,
            "warp_grid [" + std::to_string(k_.warpGrid[0]) + ", " + std::to_string(k_.warpGrid[1]) +
                "] must have 1 to 32 warps (1024 threads)");
    for (const auto &t : k_.tiles) {
      bool bad = t.shape.empty();
      for (int64_t s : t.shape)
        bad |= s <= 0;
      if (bad)
        error(DiagId::TileIRBadSlice, t.span,
              "tile '" + t.name + "' needs a non-empty shape of positive extents, got " +
                  shapeString(t.shape));
      if (t.space == MemSpace::Register && t.shape.size() != 2)
        error(DiagId::TileIRTypeMismatch, t.span,
              "register tile '" + t.name + "' must be 2-D, got " + shapeString(t.shape));
      if (t.space == MemSpace::Shared && t.shape.size() < 2)
        error(DiagId::TileIRTypeMismatch, t.span,
              "shared tile '" + t.name + "' must have at least 2 dimensions, got " +
                  shapeString(t.shape));
      if (t.space == MemSpace::Global)
        error(DiagId::TileIRTypeMismatch, t.span,
              "tile '" + t.name + "' cannot live in cuda:global; use a tensor parameter");
    }
  }

  const TileDecl *tile(TileId id, Span span, const char *what) {
    if (id < k_.tiles.size())
      return &k_.tiles[id];
    error(DiagId::TileIRMalformed, span,
          std::string(what) + ": tile #" + std::to_string(id) + " is not declared");
    return nullptr;
  }

  const TileDecl *registerTile(TileId id, Span span, const char *what) {
    const TileDecl *t = tile(id, span, what);
    if (t && t->space != MemSpace::Register) {
      error(DiagId::TileIRTypeMismatch, span,
            std::string(what) + ": '" + t->name + "' must be a register tile, it is in " +
                std::string(memSpaceName(t->space)));
      return nullptr;
    }
    return t;
  }

  struct AccessInfo {
    DType dtype;
    MemSpace space;
    std::vector<int64_t> shape; // after dropping points
    std::string name;
    bool writable;
  };

  std::optional<AccessInfo> checkAccess(const Access &a, const std::vector<VarId> &scope, Span span,
                                        const char *what) {
    AccessInfo info;
    std::vector<std::optional<int64_t>> extents;
    if (a.kind == Access::Kind::Tensor) {
      if (a.id >= k_.params.size()) {
        error(DiagId::TileIRMalformed, span,
              std::string(what) + ": tensor #" + std::to_string(a.id) + " is not declared");
        return std::nullopt;
      }
      const TensorParam &p = k_.params[a.id];
      info = {p.dtype, MemSpace::Global, {}, p.name, p.writable};
      for (const auto &d : p.shape)
        extents.push_back(d.asConstant());
    } else {
      const TileDecl *t = tile(a.id, span, what);
      if (!t)
        return std::nullopt;
      info = {t->dtype, t->space, {}, t->name, true};
      for (int64_t s : t->shape)
        extents.push_back(s);
    }
    if (a.slice.empty()) {
      for (auto &e : extents) {
        if (!e) {
          error(DiagId::TileIRBadSlice, span,
                std::string(what) + ": '" + info.name +
                    "' has a symbolic shape; slice it with static extents");
          return std::nullopt;
        }
        info.shape.push_back(*e);
      }
      return info;
    }
    if (a.slice.size() != extents.size()) {
      error(DiagId::TileIRBadSlice, span,
            std::string(what) + ": '" + info.name + "' has " + std::to_string(extents.size()) +
                " dimensions but the slice has " + std::to_string(a.slice.size()));
      return std::nullopt;
    }
    bool ok = true;
    for (size_t i = 0; i < a.slice.size(); ++i) {
      const SliceDim &d = a.slice[i];
      checkIndex(d.offset, false, Context::Body, scope, span, what);
      if (d.size <= 0 || (d.point && d.size != 1)) {
        error(DiagId::TileIRBadSlice, span,
              std::string(what) + ": dimension " + std::to_string(i) + " of '" + info.name +
                  "' has extent " + std::to_string(d.size));
        ok = false;
        continue;
      }
      if (extents[i]) {
        auto off = d.offset.asConstant();
        // A masked access may end past the extent (only its start is bounded).
        bool past =
            !allowPastEnd_ && (d.size > *extents[i] || (off && *off + d.size > *extents[i]));
        if (past || (off && *off < 0)) {
          error(DiagId::TileIRBadSlice, span,
                std::string(what) + ": dimension " + std::to_string(i) + " of '" + info.name +
                    "' (extent " + std::to_string(*extents[i]) + ") is sliced at `" +
                    printIndex(k_, d.offset) + " ..+ " + std::to_string(d.size) + "`");
          ok = false;
        }
      }
      if (!d.point)
        info.shape.push_back(d.size);
    }
    if (!ok)
      return std::nullopt;
    return info;
  }

  // ---- masks and ragged edges (TileIR.h: LoadOp/StoreOp masked, IndexTileOp, SelectOp) ----
  bool allowPastEnd_ = false;

  void checkMaskedAccess(const Access &a, const TileDecl *reg, const std::vector<VarId> &scope,
                         Span span, const char *what, const ScalarExpr *fill) {
    if (a.kind != Access::Kind::Tensor || a.slice.empty())
      error(DiagId::TileIRMasked, span,
            std::string(what) + ": must access a slice of a global tensor");
    if (reg && reg->scope != RegisterScope::Warp)
      error(DiagId::TileIRMasked, span,
            std::string(what) + ": the register tile '" + reg->name + "' must be per warp");
    if (fill)
      checkScalar(*fill, scope, span, what);
  }

  void checkIndexTile(const IndexTileOp &o, Span span) {
    const TileDecl *d = registerTile(o.dst, span, "index tile");
    if (!d)
      return;
    if (d->dtype != DType::I32 || d->shape.size() != 2 || d->scope != RegisterScope::Warp ||
        o.axis > 1)
      error(DiagId::TileIRMasked, span,
            "index tile: '" + d->name + "' must be a 2-D per-warp I32 register tile (axis 0 or 1)");
  }

  void checkSelect(const SelectOp &o, const std::vector<VarId> &scope, Span span) {
    const TileDecl *d = registerTile(o.dst, span, "select result");
    if (!d)
      return;
    if (d->scope != RegisterScope::Warp)
      error(DiagId::TileIRMasked, span, "select: '" + d->name + "' must be a per-warp tile");
    std::optional<DType> cmpType;
    auto operand = [&](const Operand &x, const char *role, std::optional<DType> want) {
      if (x.kind != Operand::Kind::Tile) {
        checkScalar(x.scalar, scope, span, role);
        return std::optional<DType>();
      }
      const TileDecl *t = registerTile(x.tile, span, role);
      if (!t)
        return std::optional<DType>();
      bool broadcast = t->shape.size() == 2 && d->shape.size() == 2 &&
                       ((t->shape[0] == d->shape[0] && t->shape[1] == 1) ||
                        (t->shape[0] == 1 && t->shape[1] == d->shape[1]));
      if (!broadcast)
        expectShape(t->shape, d->shape, span, std::string("select ") + role + " '" + t->name + "'");
      if (t->scope != RegisterScope::Warp)
        error(DiagId::TileIRMasked, span, std::string("select: ") + role + " must be per warp");
      if (want && t->dtype != *want)
        error(DiagId::TileIRMasked, span,
              std::string("select: ") + role + " '" + t->name + "' is " +
                  std::string(dtypeName(t->dtype)) + ", expected " + std::string(dtypeName(*want)));
      return std::optional<DType>(t->dtype);
    };
    cmpType = operand(o.lhs, "comparison operand", std::nullopt);
    if (auto r = operand(o.rhs, "comparison operand", cmpType); !cmpType)
      cmpType = r;
    if (!cmpType)
      error(DiagId::TileIRMasked, span, "select: the comparison needs a tile operand");
    operand(o.onTrue, "value", d->dtype);
    operand(o.onFalse, "value", d->dtype);
  }

  void expectShape(const std::vector<int64_t> &got, const std::vector<int64_t> &want, Span span,
                   const std::string &what) {
    // A 1-D access [N] is the column [N, 1] of the register layout.
    auto column = [](const std::vector<int64_t> &v, const std::vector<int64_t> &m) {
      return v.size() == 1 && m.size() == 2 && m[1] == 1 && v[0] == m[0];
    };
    if (column(got, want) || column(want, got))
      return;
    if (got != want)
      error(DiagId::TileIRTypeMismatch, span,
            what + ": shape " + shapeString(got) + " does not match " + shapeString(want));
  }

  /// Checks a region; returns the groups that still have uncommitted copies
  /// at its end (the enclosing region may commit them, as in
  /// `if c { cp_async ... } cp_async_commit`).
  std::set<TokenId> checkBlock(const Block &b, std::vector<VarId> scope) {
    std::set<TokenId> open; // groups with copies in this region, not yet committed
    for (const Op &op : b.ops) {
      Span sp = op.span;
      if (auto *o = op.as<LetOp>()) {
        checkIndex(o->value, false, Context::Body, scope, sp, "let");
        if (o->var >= k_.vars.size())
          error(DiagId::TileIRMalformed, sp,
                "let binds undeclared variable #" + std::to_string(o->var));
        else
          scope.push_back(o->var);
      } else if (auto *o = op.as<FillOp>()) {
        checkScalar(o->value, scope, sp, "fill");
        if (const TileDecl *t = tile(o->dst, sp, "fill"); t && t->space == MemSpace::Shared)
          error(DiagId::TileIRTypeMismatch, sp,
                "fill: '" + t->name +
                    "' must be a register tile (shared tiles are filled by stores)");
      } else if (auto *o = op.as<CpAsyncOp>()) {
        auto dst = checkAccess(o->dst, scope, sp, "cp_async destination");
        allowPastEnd_ = o->masked;
        auto src = checkAccess(o->src, scope, sp, "cp_async source");
        allowPastEnd_ = false;
        if (dst && dst->space != MemSpace::Shared)
          error(DiagId::TileIRTypeMismatch, sp,
                "cp_async: destination '" + dst->name + "' must be a shared tile");
        if (src && src->space != MemSpace::Global)
          error(DiagId::TileIRTypeMismatch, sp,
                "cp_async: source '" + src->name + "' must be a global tensor");
        if (dst && src) {
          if (dst->dtype != src->dtype)
            error(DiagId::TileIRTypeMismatch, sp,
                  "cp_async: dtypes differ (" + std::string(dtypeName(src->dtype)) + " -> " +
                      std::string(dtypeName(dst->dtype)) + ")");
          if (dst->shape.size() != 2)
            error(DiagId::TileIRTypeMismatch, sp,
                  "cp_async: copies 2-D regions, the destination is " + shapeString(dst->shape));
          expectShape(src->shape, dst->shape, sp, "cp_async source");
        }
        if (o->group >= k_.numTokens)
          error(DiagId::TileIRMalformed, sp,
                "cp_async: group #" + std::to_string(o->group) + " is not declared");
        else if (committed_.count(o->group))
          error(DiagId::TileIRAsyncGroup, sp,
                "cp_async: group #" + std::to_string(o->group) + " was already committed");
        else
          open.insert(o->group);
      } else if (auto *o = op.as<CpAsyncCommitOp>()) {
        if (o->group >= k_.numTokens)
          error(DiagId::TileIRMalformed, sp,
                "cp_async_commit: group #" + std::to_string(o->group) + " is not declared");
        else if (!committed_.insert(o->group).second)
          error(DiagId::TileIRAsyncGroup, sp,
                "cp_async_commit: group #" + std::to_string(o->group) + " is committed twice");
        open.erase(o->group);
      } else if (auto *o = op.as<CpAsyncWaitOp>()) {
        for (TokenId t : o->completes)
          if (t >= k_.numTokens || !committed_.count(t))
            error(DiagId::TileIRAsyncGroup, sp,
                  "cp_async_wait_group: group #" + std::to_string(t) +
                      " is waited on before it is committed");
        if (o->pending > 7)
          error(DiagId::TileIRAsyncGroup, sp,
                "cp_async_wait_group " + std::to_string(o->pending) +
                    ": PTX allows at most 7 pending groups");
      } else if (op.as<BlockSyncOp>()) {
      } else if (auto *o = op.as<MmaOp>()) {
        const TileDecl *d = registerTile(o->dst, sp, "mma result");
        const TileDecl *c = registerTile(o->acc, sp, "mma accumulator");
        auto a = checkAccess(o->a, scope, sp, "mma A");
        auto bb = checkAccess(o->b, scope, sp, "mma B");
        // F16 accumulators take F16 operands (mma.sync .f16.f16.f16.f16),
        // I32 ones I8 operands (m16n8k32 s8.s8.s32 or dp4a).
        bool f16Acc = a && a->dtype == DType::F16;
        bool int8 = a && a->dtype == DType::I8;
        for (auto *acc : {d, c})
          if (acc && (int8 ? acc->dtype != DType::I32
                           : acc->dtype != DType::F32 && !(f16Acc && acc->dtype == DType::F16)))
            error(DiagId::TileIRTypeMismatch, sp,
                  "mma: accumulator '" + acc->name +
                      "' must be F32 (or F16 with F16 operands, I32 with I8 ones), " + "it is " +
                      std::string(dtypeName(acc->dtype)));
        if (o->dp4a && !int8)
          error(DiagId::TileIRTypeMismatch, sp, "dp4a_mma: the operands must be I8");
        if (int8 && (!o->transB || (a && a->space != MemSpace::Shared)))
          error(DiagId::TileIRTypeMismatch, sp,
                "mma: I8 operands are a shared A and a transposed shared B");
        // Register A: a whole register tile (MMA operands, issue 14 part 4).
        if (a && a->space == MemSpace::Register && !o->a.slice.empty())
          error(DiagId::TileIRTypeMismatch, sp, "mma: a register A operand is a whole tile");
        for (auto *x : {&a, &bb}) {
          if (!*x)
            continue;
          // Register B: the block-level form (a one-warp block) for the Tile
          // IR backend, whose mmaf takes both operands as values.
          bool oneWarpBlock = k_.warpGrid[0] * k_.warpGrid[1] == 1 && k_.warpgroups == 0;
          bool placed = (*x)->space == MemSpace::Shared ||
                        ((x == &a || oneWarpBlock) && (*x)->space == MemSpace::Register);
          if (!placed ||
              ((*x)->dtype != DType::F16 && (*x)->dtype != DType::BF16 && (*x)->dtype != DType::I8))
            error(DiagId::TileIRTypeMismatch, sp,
                  "mma: operand '" + (*x)->name + "' must be an F16, BF16 or I8 shared tile" +
                      (x == &a ? " or register tile" : ""));
          if ((*x)->shape.size() != 2) {
            error(DiagId::TileIRTypeMismatch, sp,
                  "mma: operand '" + (*x)->name + "' must be a 2-D slice, got " +
                      shapeString((*x)->shape));
            *x = std::nullopt;
          }
        }
        if (a && bb && a->dtype != bb->dtype)
          error(DiagId::TileIRTypeMismatch, sp, "mma: A and B have different dtypes");
        if (d && c)
          expectShape(d->shape, c->shape, sp, "mma result");
        if (a && bb && c) {
          expectShape(a->shape, {c->shape[0], a->shape[1]}, sp, "mma A");
          if (o->transB)
            expectShape(bb->shape, {c->shape[1], a->shape[1]}, sp, "mma B (transposed)");
          else
            expectShape(bb->shape, {a->shape[1], c->shape[1]}, sp, "mma B");
        }
      } else if (auto *o = op.as<LoadOp>()) {
        const TileDecl *d = registerTile(o->dst, sp, "load destination");
        allowPastEnd_ = o->masked;
        auto s = checkAccess(o->src, scope, sp, "load source");
        allowPastEnd_ = false;
        if (o->masked)
          checkMaskedAccess(o->src, d, scope, sp, "masked load", &o->fill);
        if (d && s) {
          // A 1-D access [N] is also the row [1, N] of a warpgroup vector
          // or of a per-warp row (a broadcast operand).
          bool wgRow = s->shape.size() == 1 && d->shape.size() == 2 && d->shape[0] == 1 &&
                       d->shape[1] == s->shape[0];
          if (!wgRow)
            expectShape(s->shape, d->shape, sp, "load source");
          if (s->dtype != d->dtype)
            error(DiagId::TileIRTypeMismatch, sp, "load: dtypes differ; convert after loading");
          if (s->space == MemSpace::Register)
            error(DiagId::TileIRTypeMismatch, sp, "load: source must be global or shared");
        }
      } else if (auto *o = op.as<StoreOp>()) {
        const TileDecl *s = registerTile(o->src, sp, "store source");
        allowPastEnd_ = o->masked;
        auto d = checkAccess(o->dst, scope, sp, "store destination");
        allowPastEnd_ = false;
        if (o->masked)
          checkMaskedAccess(o->dst, s, scope, sp, "masked store", nullptr);
        if (d && s) {
          // A row [1, N] stores into a 1-D access [N].
          bool row = d->shape.size() == 1 && s->shape.size() == 2 && s->shape[0] == 1 &&
                     s->shape[1] == d->shape[0];
          if (!row)
            expectShape(s->shape, d->shape, sp, "store source");
          if (s->dtype != d->dtype && !o->convert)
            error(DiagId::TileIRTypeMismatch, sp,
                  "store: storing " + std::string(dtypeName(s->dtype)) + " into " +
                      std::string(dtypeName(d->dtype)) + " needs an explicit convert");
          if (d->space == MemSpace::Register)
            error(DiagId::TileIRTypeMismatch, sp, "store: destination must be global or shared");
          if (d->space == MemSpace::Global && !d->writable)
            error(DiagId::TileIRTypeMismatch, sp, "store: tensor '" + d->name + "' is read-only");
        }
      } else if (auto *o = op.as<UnaryOp>()) {
        const TileDecl *d = registerTile(o->dst, sp, "unary result");
        // The math kinds' element types (what ElementwiseToMLIR.cpp lowers).
        if (d && isMathKind(o->kind) && o->kind != UnaryKind::Abs &&
            (!isFloat(d->dtype) || (d->dtype == DType::F64 && !mathKindTakesF64(o->kind))))
          error(DiagId::TileIRTypeMismatch, sp,
                std::string(unaryKindName(o->kind)) + ": not defined for " +
                    std::string(dtypeName(d->dtype)) + " elements");
        if (o->src.kind == Operand::Kind::Scalar)
          checkScalar(o->src.scalar, scope, sp, "unary operand");
        if (o->src.kind == Operand::Kind::Tile) {
          const TileDecl *s = registerTile(o->src.tile, sp, "unary operand");
          if (d && s) {
            expectShape(s->shape, d->shape, sp, std::string(unaryKindName(o->kind)));
            if (o->kind != UnaryKind::Convert && s->dtype != d->dtype)
              error(DiagId::TileIRTypeMismatch, sp,
                    std::string(unaryKindName(o->kind)) + ": dtypes differ; use convert");
          }
        }
      } else if (auto *o = op.as<BinaryOp>()) {
        const TileDecl *d = registerTile(o->dst, sp, "binary result");
        if (d && o->kind == BinaryKind::Pow && (!isFloat(d->dtype) || d->dtype == DType::F64))
          error(DiagId::TileIRTypeMismatch, sp,
                "pow: not defined for " + std::string(dtypeName(d->dtype)) + " elements");
        for (const Operand *x : {&o->lhs, &o->rhs}) {
          if (x->kind != Operand::Kind::Tile) {
            checkScalar(x->scalar, scope, sp, "binary operand");
            continue;
          }
          const TileDecl *s = registerTile(x->tile, sp, "binary operand");
          if (!d || !s)
            continue;
          if (s->dtype != d->dtype)
            error(DiagId::TileIRTypeMismatch, sp,
                  std::string(binaryKindName(o->kind)) + ": operand '" + s->name + "' is " +
                      std::string(dtypeName(s->dtype)) + ", the result " +
                      std::string(dtypeName(d->dtype)));
          bool broadcast = s->shape.size() == 2 && d->shape.size() == 2 &&
                           ((s->shape[0] == d->shape[0] && s->shape[1] == 1) ||
                            (s->shape[0] == 1 && s->shape[1] == d->shape[1]));
          if (!broadcast)
            expectShape(s->shape, d->shape, sp,
                        std::string(binaryKindName(o->kind)) + " operand '" + s->name + "'");
        }
      } else if (auto *o = op.as<IndexTileOp>()) {
        checkIndexTile(*o, sp);
      } else if (auto *o = op.as<SelectOp>()) {
        checkSelect(*o, scope, sp);
      } else if (auto *o = op.as<ReduceOp>()) {
        const TileDecl *d = registerTile(o->dst, sp, "reduction result");
        const TileDecl *s = registerTile(o->src, sp, "reduction operand");
        if (d && s && s->shape.size() == 2) {
          if (o->columns)
            expectShape(d->shape, {1, s->shape[1]}, sp, std::string(colReduceKindName(o->kind)));
          else
            expectShape(d->shape, {s->shape[0], 1}, sp, std::string(reduceKindName(o->kind)));
          if (s->dtype != d->dtype)
            error(DiagId::TileIRTypeMismatch, sp, "reduction: dtypes differ");
        }
      } else if (auto *o = op.as<TransposeOp>()) {
        const TileDecl *d = registerTile(o->dst, sp, "transpose result");
        const TileDecl *s = registerTile(o->src, sp, "transpose operand");
        if (d && s && s->shape.size() == 2) {
          expectShape(d->shape, {s->shape[1], s->shape[0]}, sp, "transpose");
          if (s->dtype != d->dtype)
            error(DiagId::TileIRTypeMismatch, sp, "transpose: dtypes differ");
        }
      } else if (auto *o = op.as<RoleOp>()) {
        checkRole(*o, b, sp);
        auto left = checkNested(o->body, scope, o);
        open.insert(left.begin(), left.end());
      } else if (auto *o = op.as<BarrierArriveOp>()) {
        checkBarrierRef(o->barrier, o->stage, scope, sp, "arrive");
        if (o->expectTxBytes < 0 || o->expectTxBytes >= (int64_t(1) << 20))
          error(DiagId::TileIRBarrier, sp,
                "arrive: expect_tx " + std::to_string(o->expectTxBytes) +
                    " is outside the transaction count range 0 .. 2^20-1 (PTX ISA 9.7.13.15.1)");
        if (o->cluster && o->expectTxBytes != 0)
          error(DiagId::TileIRBarrier, sp,
                "arrive: a cluster arrive carries no expect_tx (the transaction count is local)");
        if (o->cluster && k_.clusterSize() < 2)
          error(DiagId::TileIRBarrier, sp,
                "arrive ... cluster needs a cluster launch of 2 or more CTAs (Kernel::cluster)");
      } else if (auto *o = op.as<BarrierWaitOp>()) {
        checkBarrierRef(o->barrier, o->stage, scope, sp, "wait");
        checkIndex(o->round, false, Context::Body, scope, sp, "wait round");
      } else if (auto *o = op.as<TmaLoadOp>()) {
        checkTmaLoad(*o, scope, sp);
      } else if (auto *o = op.as<WgmmaOp>()) {
        checkWgmma(*o, scope, sp);
      } else if (auto *o = op.as<TmaStoreOp>()) {
        checkTmaStore(*o, scope, sp);
      } else if (op.as<TmaStoreCommitOp>() || op.as<TmaStoreWaitOp>()) {
        if (k_.warpgroups <= 0)
          error(DiagId::TileIRWarpgroup, sp,
                "tma_store_commit/tma_store_wait need a warpgroup grid");
      } else if (op.as<WgmmaCommitOp>() || op.as<WgmmaWaitOp>() || op.as<FenceProxyAsyncOp>()) {
        if (k_.warpgroups <= 0 && !op.as<FenceProxyAsyncOp>())
          error(DiagId::TileIRWarpgroup, sp, "wgmma_commit/wgmma_wait need a warpgroup grid");
      } else if (auto *o = op.as<ForOp>()) {
        checkIndex(o->lower, false, Context::Body, scope, sp, "for lower bound");
        checkIndex(o->upper, false, Context::Body, scope, sp, "for upper bound");
        checkIndex(o->step, false, Context::Body, scope, sp, "for step");
        if (auto c = o->step.asConstant(); c ? *c <= 0 : !overDimsOnly(o->step))
          error(DiagId::TileIRBadIndex, sp,
                "for step `" + printIndex(k_, o->step) +
                    "` must be a positive constant or an expression over the dims");
        if (o->var >= k_.vars.size()) {
          error(DiagId::TileIRMalformed, sp,
                "for binds undeclared variable #" + std::to_string(o->var));
          continue;
        }
        auto inner = scope;
        inner.push_back(o->var);
        auto left = checkNested(o->body, inner, nullptr);
        open.insert(left.begin(), left.end());
      } else if (auto *o = op.as<IfOp>()) {
        checkIndex(o->cond, true, Context::Body, scope, sp, "if condition");
        auto left = checkNested(o->thenBody, scope, nullptr);
        open.insert(left.begin(), left.end());
        left = checkNested(o->elseBody, scope, nullptr);
        open.insert(left.begin(), left.end());
      }
      checkWarpgroupTileUse(op, sp);
    }
    return open;
  }

  // ---- Hopper: warpgroups, roles, barriers, TMA, wgmma ----

  /// A nested region: tracks the depth (roles sit at the top level) and the
  /// enclosing role.
  std::set<TokenId> checkNested(const Block &b, std::vector<VarId> scope, const RoleOp *role) {
    ++depth_;
    const RoleOp *outer = role_;
    if (role)
      role_ = role;
    auto left = checkBlock(b, std::move(scope));
    role_ = outer;
    --depth_;
    return left;
  }

  void checkHopperSignature() {
    if (k_.warpgroups != 0) {
      if (k_.warpgroups < 1 || k_.warpgroups > 8)
        error(DiagId::TileIRWarpgroup, k_.span,
              "warpgroup_grid [" + std::to_string(k_.warpgroups) +
                  "] must have 1 to 8 warpgroups (1024 threads)");
      if (k_.warpGrid[0] != 1 || k_.warpGrid[1] != 1)
        error(DiagId::TileIRWarpgroup, k_.span,
              "a kernel has a warp_grid or a warpgroup_grid, not both");
    }
    for (const auto &t : k_.tiles) {
      if (t.layout == SharedLayout::Swizzle128B) {
        if (t.space != MemSpace::Shared) {
          error(DiagId::TileIRTypeMismatch, t.span,
                "tile '" + t.name + "': swizzle_128b is a layout of shared tiles");
        } else if (dtypeBytes(t.dtype) != 2 || t.shape.size() < 2 || t.shape.back() % 64 != 0 ||
                   t.shape[t.shape.size() - 2] % 8 != 0) {
          error(DiagId::TileIRTmaCopy, t.span,
                "swizzle_128b tile '" + t.name + "': " + std::string(dtypeName(t.dtype)) + " " +
                    shapeString(t.shape) +
                    " must hold a 16-bit type with rows of a multiple of 64 elements (128-byte "
                    "panels) and a multiple of 8 rows per stage");
        }
      }
      if (t.scope == RegisterScope::Warpgroup) {
        if (t.space != MemSpace::Register)
          error(DiagId::TileIRWarpgroup, t.span,
                "tile '" + t.name + "': only register tiles are warpgroup-distributed");
        else if (k_.warpgroups <= 0)
          error(DiagId::TileIRWarpgroup, t.span,
                "warpgroup tile '" + t.name + "' needs a warpgroup grid");
        else if (!isWarpgroupShape(t))
          error(DiagId::TileIRWarpgroup, t.span,
                "warpgroup tile '" + t.name + "' is " + std::string(dtypeName(t.dtype)) + " " +
                    shapeString(t.shape) +
                    "; this version supports the wgmma accumulator F32 [64, N], N a multiple "
                    "of 8 in 8..256, and the operand BF16/F16 [64, K], K a multiple of 16 in "
                    "16..256");
      }
    }
    checkCluster();
    for (const auto &b : k_.barriers) {
      if (k_.warpgroups <= 0)
        error(DiagId::TileIRBarrier, b.span, "barrier '" + b.name + "' needs a warpgroup grid");
      if (b.stages < 1 || b.stages > 64)
        error(DiagId::TileIRBarrier, b.span,
              "barrier '" + b.name + "' has " + std::to_string(b.stages) +
                  " stages (1 to 64 are supported)");
      if (b.arrivals < 1 || b.arrivals >= (int64_t(1) << 20))
        error(DiagId::TileIRBarrier, b.span,
              "barrier '" + b.name + "' expects " + std::to_string(b.arrivals) +
                  " arrivals; mbarrier counts are 1 .. 2^20-1 (PTX ISA 9.7.13.15.9)");
    }
    // Register budgets: every warpgroup keeps the launch's allocation unless
    // a role sets its own; setmaxnreg.inc would block forever if the total
    // exceeds the SM's register file.
    checkRegisterBudget();
  }

  static bool isWarpgroupShape(const TileDecl &t) {
    if (isWarpgroupVector(t))
      return true;
    if (t.shape.size() != 2 || t.shape[0] != 64)
      return false;
    int64_t n = t.shape[1];
    if (t.dtype == DType::F32)
      return n % 8 == 0 && n >= 8 && n <= 256;
    if (t.dtype == DType::BF16 || t.dtype == DType::F16)
      return n % 16 == 0 && n >= 16 && n <= 256;
    return false;
  }

  /// A warpgroup vector: the row [1, N] (N a multiple of 8 in 8..256) or
  /// the column [64, 1] that an epilogue broadcasts over a [64, N] tile;
  /// each thread holds the values of its fragment's columns (N/4) or rows
  /// (2). Float element types only (codegen/mlir/TileToMLIR.cpp).
  static bool isWarpgroupVector(const TileDecl &t) {
    if (t.shape.size() != 2 || !isFloat(t.dtype) || t.dtype == DType::F64)
      return false;
    if (t.shape[0] == 1)
      return t.shape[1] % 8 == 0 && t.shape[1] >= 8 && t.shape[1] <= 256;
    return t.shape[0] == 64 && t.shape[1] == 1;
  }

  /// Clusters: 1..8 CTAs (the portable cluster size of the CUDA programming
  /// guide, "Thread Block Clusters"), each grid extent known at compile time
  /// a multiple of the cluster extent.
  void checkCluster() {
    const auto &c = k_.cluster;
    if (c[0] == 1 && c[1] == 1 && c[2] == 1)
      return;
    if (c[0] < 1 || c[1] < 1 || c[2] < 1 || c[0] * c[1] * c[2] > 8) {
      error(DiagId::TileIRCluster, k_.span,
            "cluster [" + std::to_string(c[0]) + ", " + std::to_string(c[1]) + ", " +
                std::to_string(c[2]) + "] must have positive extents and at most 8 CTAs");
      return;
    }
    for (unsigned d = 0; d < 3; ++d)
      if (auto g = k_.blockGrid[d].asConstant(); g && *g % c[d] != 0)
        error(DiagId::TileIRCluster, k_.span,
              "block_grid extent " + std::to_string(*g) + " along axis " + std::to_string(d) +
                  " is not a multiple of the cluster extent " + std::to_string(c[d]));
  }

  void checkRegisterBudget() {
    if (k_.warpgroups <= 0)
      return;
    std::vector<int64_t> budget(static_cast<size_t>(std::max<int64_t>(k_.warpgroups, 0)), 0);
    bool any = false;
    for (const Op &op : k_.body.ops)
      if (auto *r = op.as<RoleOp>(); r && r->registers > 0)
        for (int64_t w = r->firstWarpgroup; w <= r->lastWarpgroup; ++w)
          if (w >= 0 && w < k_.warpgroups) {
            budget[w] = r->registers;
            any = true;
          }
    if (!any)
      return;
    int64_t launch = launchRegisters(k_.threadsPerBlock());
    int64_t total = 0;
    for (int64_t r : budget)
      total += 128 * (r ? r : launch);
    if (total > 65536)
      error(DiagId::TileIRWarpgroup, k_.span,
            "the roles' register budgets need " + std::to_string(total) +
                " registers per block, the SM has 65536 (setmaxnreg.inc would wait forever)");
  }

  void checkRole(const RoleOp &o, const Block &, Span sp) {
    if (k_.warpgroups <= 0) {
      error(DiagId::TileIRWarpgroup, sp, "role '" + o.name + "' needs a warpgroup grid");
      return;
    }
    if (depth_ != 0)
      error(DiagId::TileIRWarpgroup, sp,
            "role '" + o.name + "' must be at the top level of the kernel body");
    if (o.firstWarpgroup < 0 || o.lastWarpgroup < o.firstWarpgroup ||
        o.lastWarpgroup >= k_.warpgroups)
      error(DiagId::TileIRWarpgroup, sp,
            "role '" + o.name + "' covers warpgroups " + std::to_string(o.firstWarpgroup) + " .. " +
                std::to_string(o.lastWarpgroup) + " of a grid of " + std::to_string(k_.warpgroups));
    if (o.registers != 0 && (o.registers < 24 || o.registers > 256 || o.registers % 8 != 0))
      error(DiagId::TileIRWarpgroup, sp,
            "role '" + o.name + "': registers " + std::to_string(o.registers) +
                " must be a multiple of 8 in [24, 256] (setmaxnreg)");
    for (const auto &[first, last] : roleRanges_)
      if (o.firstWarpgroup <= last && first <= o.lastWarpgroup)
        error(DiagId::TileIRWarpgroup, sp,
              "role '" + o.name + "' overlaps another role's warpgroups " + std::to_string(first) +
                  " .. " + std::to_string(last));
    roleRanges_.emplace_back(o.firstWarpgroup, o.lastWarpgroup);
  }

  void checkBarrierRef(BarrierId b, const IndexExpr &stage, const std::vector<VarId> &scope,
                       Span sp, const char *what) {
    checkIndex(stage, false, Context::Body, scope, sp, what);
    if (k_.warpgroups <= 0)
      error(DiagId::TileIRBarrier, sp, std::string(what) + ": barriers need a warpgroup grid");
    if (b >= k_.barriers.size()) {
      error(DiagId::TileIRBarrier, sp,
            std::string(what) + ": barrier #" + std::to_string(b) + " is not declared");
      return;
    }
    if (auto c = stage.asConstant(); c && (*c < 0 || *c >= k_.barriers[b].stages))
      error(DiagId::TileIRBarrier, sp,
            std::string(what) + ": stage " + std::to_string(*c) + " of barrier '" +
                k_.barriers[b].name + "' (" + std::to_string(k_.barriers[b].stages) +
                " stages) is out of range");
  }

  /// The stage dims of a staged swizzle_128b access must be points and the
  /// rows start on a multiple of 8 (the 1024-byte swizzle atom); returns the
  /// first sliced row offset.
  bool checkSwizzledAccess(const Access &a, DiagId id, Span sp, const std::string &what) {
    if (a.kind != Access::Kind::Tile || a.id >= k_.tiles.size() ||
        k_.tiles[a.id].layout != SharedLayout::Swizzle128B) {
      error(id, sp, what + " must be a swizzle_128b shared tile");
      return false;
    }
    const TileDecl &t = k_.tiles[a.id];
    size_t rank = t.shape.size();
    if (a.slice.empty()) {
      if (rank > 2) {
        error(id, sp, what + ": staged tile '" + t.name + "' must be indexed by its stage");
        return false;
      }
      return true;
    }
    if (a.slice.size() != rank)
      return false; // checkAccess reported it
    for (size_t i = 0; i + 2 < rank; ++i)
      if (!a.slice[i].point) {
        error(id, sp, what + ": the stage dimensions of '" + t.name + "' take a point index");
        return false;
      }
    const SliceDim &rows = a.slice[rank - 2], &cols = a.slice[rank - 1];
    if (rows.point || cols.point) {
      error(id, sp, what + ": the last two dimensions of '" + t.name + "' must be ranges");
      return false;
    }
    if (!isMultiple(rows.offset, 8)) {
      error(id, sp,
            what + ": the rows of '" + t.name + "' start at `" + printIndex(k_, rows.offset) +
                "`, which is not known to be a multiple of 8 (the 128-byte swizzle repeats "
                "every 8 rows)");
      return false;
    }
    return true;
  }

  void checkTmaLoad(const TmaLoadOp &o, const std::vector<VarId> &scope, Span sp) {
    checkBarrierRef(o.barrier, o.stage, scope, sp, "tma_load");
    if (o.multicast && k_.clusterSize() < 2)
      error(DiagId::TileIRTmaCopy, sp,
            "tma_load multicast needs a cluster launch of 2 or more CTAs (Kernel::cluster)");
    auto dst = checkAccess(o.dst, scope, sp, "tma_load destination");
    auto src = checkAccess(o.src, scope, sp, "tma_load source");
    if (!dst || !src)
      return;
    if (!checkSwizzledAccess(o.dst, DiagId::TileIRTmaCopy, sp, "tma_load destination"))
      return;
    const TileDecl &t = k_.tiles[o.dst.id];
    if (src->space != MemSpace::Global || k_.params[o.src.id].shape.size() != 2) {
      error(DiagId::TileIRTmaCopy, sp,
            "tma_load: the source '" + src->name + "' must be a rank-2 global tensor");
      return;
    }
    if (o.src.slice.empty() || o.src.slice[0].point || o.src.slice[1].point) {
      error(DiagId::TileIRTmaCopy, sp,
            "tma_load: the source must be a 2-D slice `r ..+ R, c ..+ C` of '" + src->name + "'");
      return;
    }
    if (src->dtype != dst->dtype)
      error(DiagId::TileIRTmaCopy, sp,
            "tma_load: dtypes differ (" + std::string(dtypeName(src->dtype)) + " -> " +
                std::string(dtypeName(dst->dtype)) + ")");
    if (dst->shape.size() != 2 || src->shape != dst->shape) {
      error(DiagId::TileIRTmaCopy, sp,
            "tma_load: source " + shapeString(src->shape) + " and destination " +
                shapeString(dst->shape) + " must be the same 2-D box");
      return;
    }
    if (dst->shape[0] > 256)
      error(DiagId::TileIRTmaCopy, sp,
            "tma_load: a box has at most 256 rows, this one " + std::to_string(dst->shape[0]));
    if (dst->shape[1] != t.shape.back())
      error(DiagId::TileIRTmaCopy, sp,
            "tma_load: the box must cover whole 128-byte rows of '" + t.name + "' (" +
                std::to_string(t.shape.back()) + " elements), not " +
                std::to_string(dst->shape[1]));
  }

  /// `tma_store dst <- src`: src one whole stage of a swizzle_128b tile
  /// (whole rows: one box per 128-byte panel), dst a 2-D slice of a
  /// writable rank-2 global tensor of the same dtype and shape.
  void checkTmaStore(const TmaStoreOp &o, const std::vector<VarId> &scope, Span sp) {
    if (k_.warpgroups <= 0)
      error(DiagId::TileIRWarpgroup, sp, "tma_store needs a warpgroup grid");
    auto src = checkAccess(o.src, scope, sp, "tma_store source");
    auto dst = checkAccess(o.dst, scope, sp, "tma_store destination");
    if (!dst || !src)
      return;
    if (!checkSwizzledAccess(o.src, DiagId::TileIRTmaCopy, sp, "tma_store source"))
      return;
    const TileDecl &t = k_.tiles[o.src.id];
    if (dst->space != MemSpace::Global || k_.params[o.dst.id].shape.size() != 2) {
      error(DiagId::TileIRTmaCopy, sp,
            "tma_store: the destination '" + dst->name + "' must be a rank-2 global tensor");
      return;
    }
    if (!dst->writable)
      error(DiagId::TileIRTmaCopy, sp, "tma_store: tensor '" + dst->name + "' is read-only");
    if (o.dst.slice.empty() || o.dst.slice[0].point || o.dst.slice[1].point) {
      error(DiagId::TileIRTmaCopy, sp,
            "tma_store: the destination must be a 2-D slice `r ..+ R, c ..+ C` of '" + dst->name +
                "'");
      return;
    }
    if (src->dtype != dst->dtype)
      error(DiagId::TileIRTmaCopy, sp,
            "tma_store: dtypes differ (" + std::string(dtypeName(src->dtype)) + " -> " +
                std::string(dtypeName(dst->dtype)) + ")");
    if (src->shape.size() != 2 || src->shape != dst->shape) {
      error(DiagId::TileIRTmaCopy, sp,
            "tma_store: source " + shapeString(src->shape) + " and destination " +
                shapeString(dst->shape) + " must be the same 2-D box");
      return;
    }
    if (!wholeStage(o.src, t))
      error(DiagId::TileIRTmaCopy, sp,
            "tma_store: the source must be one whole stage of '" + t.name + "' " +
                shapeString(t.shape));
    if (src->shape[0] > 256)
      error(DiagId::TileIRTmaCopy, sp,
            "tma_store: a box has at most 256 rows, this one " + std::to_string(src->shape[0]));
  }

  /// The access covers whole stages' rows and columns: every non-stage
  /// dimension is unsliced or `0 ..+ extent`.
  static bool wholeStage(const Access &a, const TileDecl &t) {
    if (a.slice.empty())
      return true;
    size_t rank = t.shape.size();
    for (size_t i = rank - 2; i < rank && i < a.slice.size(); ++i)
      if (a.slice[i].point || a.slice[i].offset.asConstant() != std::optional<int64_t>(0) ||
          a.slice[i].size != t.shape[i])
        return false;
    return a.slice.size() == rank;
  }

  bool isWarpgroupTile(TileId t) const {
    return t < k_.tiles.size() && k_.tiles[t].scope == RegisterScope::Warpgroup &&
           k_.tiles[t].space == MemSpace::Register;
  }

  /// `c_s[i] <- acc` / `<- convert BF16 acc` (stmatrix): a whole stage
  /// [64, N] of a 16-bit swizzle_128b tile.
  void checkWarpgroupSharedStore(const StoreOp &o, Span sp) {
    const TileDecl &src = k_.tiles[o.src];
    if (o.dst.kind != Access::Kind::Tile || o.dst.id >= k_.tiles.size())
      return;
    const TileDecl &t = k_.tiles[o.dst.id];
    if (t.layout != SharedLayout::Swizzle128B || dtypeBytes(t.dtype) != 2 ||
        !wholeStage(o.dst, t) || accessShape(k_, o.dst) != src.shape) {
      error(DiagId::TileIRWarpgroupMemory, sp,
            "store of warpgroup tile '" + src.name + "' " + shapeString(src.shape) + " to '" +
                t.name + "': the destination must be one whole stage " + shapeString(src.shape) +
                " of a 16-bit swizzle_128b shared tile (stmatrix)");
      return;
    }
    if (src.dtype != t.dtype && !(o.convert && src.dtype == DType::F32))
      error(DiagId::TileIRWarpgroupMemory, sp,
            "store of warpgroup tile '" + src.name + "' (" + std::string(dtypeName(src.dtype)) +
                ") to " + std::string(dtypeName(t.dtype)) + " tile '" + t.name +
                "': stmatrix stores the same type or converts from F32");
  }

  /// `a_r <- a_s[s, r ..+ 64, c ..+ K]` (ldmatrix) into a 16-bit warpgroup tile.
  void checkWarpgroupLoad(const LoadOp &o, Span sp) {
    const TileDecl &d = k_.tiles[o.dst];
    auto bad = [&](const std::string &why) {
      error(DiagId::TileIRWarpgroupMemory, sp, "load into warpgroup tile '" + d.name + "': " + why);
    };
    // A broadcast row or column of an epilogue: per-thread loads from a
    // global tensor (the elements its fragment needs).
    if (isWarpgroupVector(d)) {
      if (o.src.kind != Access::Kind::Tensor)
        bad("a broadcast row or column is loaded from a global tensor");
      return;
    }
    // A whole [64, N] slice of a global tensor (an epilogue's residual):
    // each thread loads its fragment's elements, of the tensor's type.
    if (o.src.kind == Access::Kind::Tensor) {
      if (o.src.id < k_.params.size() && k_.params[o.src.id].dtype != d.dtype)
        bad("a global slice is loaded in its own element type");
      return;
    }
    if (d.dtype != DType::BF16 && d.dtype != DType::F16)
      return bad("only BF16/F16 operand tiles are loaded (ldmatrix), it is " +
                 std::string(dtypeName(d.dtype)));
    if (o.src.kind != Access::Kind::Tile || o.src.id >= k_.tiles.size() ||
        k_.tiles[o.src.id].space != MemSpace::Shared)
      return bad("the source must be a slice of a shared tile");
    if (!checkSwizzledAccess(o.src, DiagId::TileIRWarpgroupMemory, sp, "ldmatrix source"))
      return;
    if (!inOnePanel(o.src))
      bad("the columns must be a slice inside one 64-element (128-byte) panel at a constant "
          "multiple of 16");
  }

  /// The last dimension of a swizzled access is a slice at a constant
  /// multiple of 16 that stays inside one 64-element (128-byte) panel.
  bool inOnePanel(const Access &a) const {
    if (a.kind != Access::Kind::Tile || a.id >= k_.tiles.size())
      return false;
    int64_t off = 0, size = k_.tiles[a.id].shape.back();
    if (!a.slice.empty()) {
      auto c = a.slice.back().offset.asConstant();
      if (!c)
        return false;
      off = *c;
      size = a.slice.back().size;
    }
    return off % 16 == 0 && off % 64 + size <= 64;
  }

  void checkWgmma(const WgmmaOp &o, const std::vector<VarId> &scope, Span sp) {
    checkIndex(o.zeroWhen, true, Context::Body, scope, sp, "wgmma zero_when");
    const TileDecl *acc = registerTile(o.acc, sp, "wgmma accumulator");
    auto a = checkAccess(o.a, scope, sp, "wgmma A");
    auto b = checkAccess(o.b, scope, sp, "wgmma B");
    if (k_.warpgroups <= 0)
      error(DiagId::TileIRWarpgroup, sp, "wgmma needs a warpgroup grid");
    if (acc && acc->scope != RegisterScope::Warpgroup) {
      error(DiagId::TileIRWgmmaOperands, sp,
            "wgmma: the accumulator '" + acc->name + "' must be a warpgroup tile");
      acc = nullptr;
    }
    if (!acc || !a || !b)
      return;
    bool registerA = o.a.kind == Access::Kind::Tile && isWarpgroupTile(o.a.id);
    if (registerA && !o.a.slice.empty()) {
      error(DiagId::TileIRWgmmaOperands, sp,
            "wgmma: a register A operand '" + a->name + "' is used whole, not sliced");
      return;
    }
    if (!registerA && a->space == MemSpace::Register) {
      error(DiagId::TileIRWgmmaOperands, sp,
            "wgmma: register A operand '" + a->name + "' must be a warpgroup tile");
      return;
    }
    bool okA = registerA || checkSwizzledAccess(o.a, DiagId::TileIRWgmmaOperands, sp, "wgmma A");
    bool okB = checkSwizzledAccess(o.b, DiagId::TileIRWgmmaOperands, sp, "wgmma B");
    if (!okA || !okB)
      return;
    if ((a->dtype != DType::F16 && a->dtype != DType::BF16) || a->dtype != b->dtype)
      error(DiagId::TileIRWgmmaOperands, sp,
            "wgmma: A and B must both be F16 or both BF16, they are " +
                std::string(dtypeName(a->dtype)) + " and " + std::string(dtypeName(b->dtype)));
    if (a->shape.size() != 2 || b->shape.size() != 2)
      return;
    int64_t n = acc->shape[1], kk = a->shape[1];
    if (a->shape[0] != 64 || kk % 16 != 0 || b->shape[0] != n || b->shape[1] != kk) {
      error(DiagId::TileIRWgmmaOperands, sp,
            "wgmma: acc " + shapeString(acc->shape) + ", A " + shapeString(a->shape) + ", B " +
                shapeString(b->shape) +
                " must be [64, N], [64, K], [N, K] with K a multiple of 16");
      return;
    }
    for (const Access *x : {&o.a, &o.b}) {
      if (x == &o.a && registerA)
        continue;
      if (!x->slice.empty()) {
        const IndexExpr &col = x->slice.back().offset;
        auto c = col.asConstant();
        if (!c || *c % 16 != 0) {
          error(DiagId::TileIRWgmmaOperands, sp,
                "wgmma: the K offset `" + printIndex(k_, col) +
                    "` must be a constant multiple of 16 (descriptor start address + 32 bytes "
                    "per k16)");
          continue;
        }
      }
      if (!inOnePanel(*x))
        error(DiagId::TileIRWgmmaOperands, sp,
              "wgmma: the K columns of '" + k_.tiles[x->id].name +
                  "' must lie inside one 64-element (128-byte) panel in this version");
    }
  }

  /// Elementwise ops on warpgroup tiles work on the fragments: every tile
  /// operand and the result are warpgroup tiles of one shape (scalars
  /// broadcast); a warpgroup tile never mixes with a per-warp one.
  void checkWarpgroupElementwise(TileId dst, std::initializer_list<const Operand *> srcs, Span sp) {
    bool any = isWarpgroupTile(dst);
    for (const Operand *x : srcs)
      any |= x->kind == Operand::Kind::Tile && isWarpgroupTile(x->tile);
    if (!any)
      return;
    auto same = [&](TileId t) {
      if (!isWarpgroupTile(t) || !isWarpgroupTile(dst))
        return false;
      const auto &ts = k_.tiles[t].shape, &ds = k_.tiles[dst].shape;
      if (ts == ds)
        return true;
      // A warpgroup vector broadcast over a [64, N] tile (row or column).
      return isWarpgroupVector(k_.tiles[t]) && !isWarpgroupVector(k_.tiles[dst]) &&
             ((ts[0] == 1 && ts[1] == ds[1]) || (ts[0] == ds[0] && ts[1] == 1));
    };
    for (const Operand *x : srcs)
      if (x->kind == Operand::Kind::Tile && x->tile < k_.tiles.size() && dst < k_.tiles.size() &&
          !same(x->tile))
        error(DiagId::TileIRWarpgroup, sp,
              "elementwise op: '" + k_.tiles[x->tile].name + "' and the result '" +
                  k_.tiles[dst].name +
                  "' must both be warpgroup tiles of the same shape, or the operand a "
                  "warpgroup row [1, N] or column [64, 1] broadcast over the [64, N] result");
  }

  /// Warpgroup tiles are read or written by wgmma, stores (global: per
  /// thread; shared: stmatrix), ldmatrix loads and elementwise ops on
  /// warpgroup tiles of one shape in this version; every other op is a K1220.
  void checkWarpgroupTileUse(const Op &op, Span sp) {
    auto isWg = [&](TileId t) {
      return t < k_.tiles.size() && k_.tiles[t].scope == RegisterScope::Warpgroup &&
             k_.tiles[t].space == MemSpace::Register;
    };
    auto isWgAccess = [&](const Access &a) { return a.kind == Access::Kind::Tile && isWg(a.id); };
    auto reject = [&](const char *what, TileId t) {
      error(DiagId::TileIRWarpgroup, sp,
            std::string(what) + " of warpgroup tile '" + k_.tiles[t].name +
                "' is not supported in this version (wgmma and stores to global memory are)");
    };
    if (auto *o = op.as<StoreOp>()) {
      if (isWg(o->src) && o->dst.kind != Access::Kind::Tensor)
        checkWarpgroupSharedStore(*o, sp);
      if (isWgAccess(o->dst))
        reject("a store into", o->dst.id);
    } else if (auto *o = op.as<LoadOp>()) {
      if (isWg(o->dst))
        checkWarpgroupLoad(*o, sp);
      if (isWgAccess(o->src))
        reject("a load from", o->src.id);
    } else if (auto *o = op.as<FillOp>()) {
      if (isWg(o->dst))
        reject("fill", o->dst);
    } else if (auto *o = op.as<MmaOp>()) {
      for (TileId t : {o->dst, o->acc})
        if (isWg(t))
          reject("mma.sync", t);
    } else if (auto *o = op.as<UnaryOp>()) {
      checkWarpgroupElementwise(o->dst, {&o->src}, sp);
    } else if (auto *o = op.as<BinaryOp>()) {
      checkWarpgroupElementwise(o->dst, {&o->lhs, &o->rhs}, sp);
    } else if (auto *o = op.as<ReduceOp>()) {
      for (TileId t : {o->dst, o->src})
        if (isWg(t))
          reject("a reduction", t);
    } else if (auto *o = op.as<TransposeOp>()) {
      for (TileId t : {o->dst, o->src})
        if (isWg(t))
          reject("transpose", t);
    } else if (auto *o = op.as<CpAsyncOp>()) {
      if (isWgAccess(o->dst))
        reject("cp_async into", o->dst.id);
    }
  }

  const Kernel &k_;
  DiagnosticSink &sink_;
  unsigned errors_ = 0;
  std::set<TokenId> committed_;
  int depth_ = 0;                // nesting of for/if/role regions
  const RoleOp *role_ = nullptr; // the enclosing role
  std::vector<std::pair<int64_t, int64_t>> roleRanges_;
};

} // namespace

bool verify(const Kernel &kernel, DiagnosticSink &sink) { return Verifier(kernel, sink).run(); }

int64_t launchRegisters(unsigned threadsPerBlock) {
  if (threadsPerBlock == 0)
    return 255;
  // One block per SM: the register file split evenly, rounded down to the
  // allocation granularity of 8, at most 255 per thread.
  int64_t r = (65536 / threadsPerBlock) / 8 * 8;
  return r > 255 ? 248 : r;
}

std::vector<int64_t> accessShape(const Kernel &kernel, const Access &access) {
  std::vector<int64_t> shape;
  if (access.kind == Access::Kind::Tile) {
    if (access.id >= kernel.tiles.size())
      return {};
    if (access.slice.empty())
      return kernel.tiles[access.id].shape;
  } else {
    if (access.id >= kernel.params.size())
      return {};
    if (access.slice.empty()) {
      for (const auto &d : kernel.params[access.id].shape) {
        auto c = d.asConstant();
        if (!c)
          return {};
        shape.push_back(*c);
      }
      return shape;
    }
  }
  for (const SliceDim &d : access.slice)
    if (!d.point)
      shape.push_back(d.size);
  return shape;
}

} // namespace kina::ir
