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

class Verifier {
public:
  Verifier(const Kernel &k, DiagnosticSink &sink) : k_(k), sink_(sink) {}

  bool run() {
    checkSignature();
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
  void checkIndex(const IndexExpr &e, bool wantBool, Context ctx,
                  const std::vector<VarId> &scope, Span span, const char *what) {
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
    case Kind::Const: return;
    case Kind::Dim:
      if (e.index() >= k_.dims.size())
        error(DiagId::TileIRMalformed, span,
              std::string(what) + ": dimension #" + std::to_string(e.index()) + " is not declared");
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
            std::string(what) + ": variable `" + k_.vars[e.index()].name + "` is used out of scope");
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
        auto c = e.rhs().asConstant();
        if (!c || *c <= 0)
          error(DiagId::TileIRBadIndex, span,
                std::string(what) + ": `" + indexKindSpelling(e.kind()) +
                    "` needs a positive constant on the right in `" + printIndex(k_, e) + "`");
      }
      break;
    }
    checkNode(e.lhs(), ctx, scope, span, what);
    checkNode(e.rhs(), ctx, scope, span, what);
  }

  /// A scalar operand: parameters declared, index leaves in scope.
  void checkScalar(const ScalarExpr &e, const std::vector<VarId> &scope, Span span,
                   const char *what) {
    using SK = ScalarExpr::Kind;
    switch (e.kind()) {
    case SK::Const: return;
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
    case SK::Index: checkIndex(e.index(), false, Context::Body, scope, span, what); return;
    case SK::Convert:
    case SK::Neg: checkScalar(e.operand(), scope, span, what); return;
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
            "warp_grid [" + std::to_string(k_.warpGrid[0]) + ", " +
                std::to_string(k_.warpGrid[1]) + "] must have 1 to 32 warps (1024 threads)");
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

  std::optional<AccessInfo> checkAccess(const Access &a, const std::vector<VarId> &scope,
                                        Span span, const char *what) {
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
        if (d.size > *extents[i] || (off && (*off < 0 || *off + d.size > *extents[i]))) {
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
          error(DiagId::TileIRMalformed, sp, "let binds undeclared variable #" + std::to_string(o->var));
        else
          scope.push_back(o->var);
      } else if (auto *o = op.as<FillOp>()) {
        checkScalar(o->value, scope, sp, "fill");
        if (const TileDecl *t = tile(o->dst, sp, "fill"); t && t->space == MemSpace::Shared)
          error(DiagId::TileIRTypeMismatch, sp,
                "fill: '" + t->name + "' must be a register tile (shared tiles are filled by stores)");
      } else if (auto *o = op.as<CpAsyncOp>()) {
        auto dst = checkAccess(o->dst, scope, sp, "cp_async destination");
        auto src = checkAccess(o->src, scope, sp, "cp_async source");
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
          error(DiagId::TileIRMalformed, sp, "cp_async: group #" + std::to_string(o->group) + " is not declared");
        else if (committed_.count(o->group))
          error(DiagId::TileIRAsyncGroup, sp,
                "cp_async: group #" + std::to_string(o->group) + " was already committed");
        else
          open.insert(o->group);
      } else if (auto *o = op.as<CpAsyncCommitOp>()) {
        if (o->group >= k_.numTokens)
          error(DiagId::TileIRMalformed, sp, "cp_async_commit: group #" + std::to_string(o->group) + " is not declared");
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
        for (auto *acc : {d, c})
          if (acc && acc->dtype != DType::F32)
            error(DiagId::TileIRTypeMismatch, sp,
                  "mma: accumulator '" + acc->name + "' must be F32, it is " +
                      std::string(dtypeName(acc->dtype)));
        for (auto *x : {&a, &bb}) {
          if (!*x)
            continue;
          if ((*x)->space != MemSpace::Shared ||
              ((*x)->dtype != DType::F16 && (*x)->dtype != DType::BF16))
            error(DiagId::TileIRTypeMismatch, sp,
                  "mma: operand '" + (*x)->name + "' must be an F16 or BF16 shared tile");
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
          expectShape(bb->shape, {a->shape[1], c->shape[1]}, sp, "mma B");
        }
      } else if (auto *o = op.as<LoadOp>()) {
        const TileDecl *d = registerTile(o->dst, sp, "load destination");
        auto s = checkAccess(o->src, scope, sp, "load source");
        if (d && s) {
          expectShape(s->shape, d->shape, sp, "load source");
          if (s->dtype != d->dtype)
            error(DiagId::TileIRTypeMismatch, sp, "load: dtypes differ; convert after loading");
          if (s->space == MemSpace::Register)
            error(DiagId::TileIRTypeMismatch, sp, "load: source must be global or shared");
        }
      } else if (auto *o = op.as<StoreOp>()) {
        const TileDecl *s = registerTile(o->src, sp, "store source");
        auto d = checkAccess(o->dst, scope, sp, "store destination");
        if (d && s) {
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
                           s->shape[0] == d->shape[0] && s->shape[1] == 1;
          if (!broadcast)
            expectShape(s->shape, d->shape, sp,
                        std::string(binaryKindName(o->kind)) + " operand '" + s->name + "'");
        }
      } else if (auto *o = op.as<ReduceOp>()) {
        const TileDecl *d = registerTile(o->dst, sp, "reduction result");
        const TileDecl *s = registerTile(o->src, sp, "reduction operand");
        if (d && s && s->shape.size() == 2) {
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
      } else if (auto *o = op.as<ForOp>()) {
        checkIndex(o->lower, false, Context::Body, scope, sp, "for lower bound");
        checkIndex(o->upper, false, Context::Body, scope, sp, "for upper bound");
        if (o->var >= k_.vars.size()) {
          error(DiagId::TileIRMalformed, sp, "for binds undeclared variable #" + std::to_string(o->var));
          continue;
        }
        auto inner = scope;
        inner.push_back(o->var);
        auto left = checkBlock(o->body, inner);
        open.insert(left.begin(), left.end());
      } else if (auto *o = op.as<IfOp>()) {
        checkIndex(o->cond, true, Context::Body, scope, sp, "if condition");
        auto left = checkBlock(o->thenBody, scope);
        open.insert(left.begin(), left.end());
        left = checkBlock(o->elseBody, scope);
        open.insert(left.begin(), left.end());
      }
    }
    return open;
  }

  const Kernel &k_;
  DiagnosticSink &sink_;
  unsigned errors_ = 0;
  std::set<TokenId> committed_;
};

} // namespace

bool verify(const Kernel &kernel, DiagnosticSink &sink) { return Verifier(kernel, sink).run(); }

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
