//===- CheckMesh.cpp - Devices, meshes and sharded tensors (issue 19) -----===//
//
// Seed 003 §4.1 (`cuda:global(d)`) and §6.1 (a sharded tensor is
// `Tensor[..., Sharded(..., mesh=M), on=cuda:global]`, the placement applying
// per device of the mesh). Host-level operations run on the device of their
// operands; on a mesh they run on every device over its local blocks, which
// is right only for the combinations below (docs/language.md "Devices,
// meshes and sharding"). Partial sums (a matmul contracting over a sharded
// axis) are summed by an all-reduce before any operation that is not linear
// in them: the checker types the operation as if it were there, and
// compiler/algebraic inserts it (`keepsPartialSums` is the one rule both read).
// Every rule looks at the operands' types only: checking stays linear.
//
//===----------------------------------------------------------------------===//
#include "sema/Checker.h"

namespace kina::sema {

bool keepsPartialSums(std::string_view op, size_t tensorOperands, bool allPartial,
                      bool scalarOperand) {
  if (op == "add" || op == "sub")
    return tensorOperands == 2 && allPartial;
  if (op == "mul" || op == "div")
    return tensorOperands == 1 && scalarOperand;
  return op == "neg" || op == "transpose" || op == "all_reduce" || op == "reduce_scatter";
}

namespace {

/// CUDA device ordinals are ints; a mesh this large is a typo.
constexpr int64_t kMaxDevice = 1023;

bool onMesh(const TensorType &t) { return t.sharding.kind != ShardKind::None; }

bool isHostElementwise(const std::string &f) {
  return f == "add" || f == "sub" || f == "mul" || f == "div" || f == "max" || f == "min";
}

bool isHostUnary(const std::string &f) {
  return f == "relu" || f == "exp" || f == "neg" || f == "gelu" || f == "gelu_tanh" || f == "silu";
}

Sharding sharded(int dim, const std::vector<int64_t> &mesh) {
  return Sharding{ShardKind::Sharded, dim, mesh};
}

Sharding ofKind(ShardKind k, const std::vector<int64_t> &mesh) { return Sharding{k, -1, mesh}; }

} // namespace

std::string Checker::placeStr(const TensorType &t) const {
  if (t.space != Space::Global)
    return spaceName(t.space);
  if (onMesh(t))
    return shardingName(t.sharding);
  return "cuda:global(" + std::to_string(t.device) + ")";
}

bool Checker::resolveMesh(const syntax::TypeRef &t, TensorType &tt, bool isDeviceContext) {
  bool ok = true;
  if (t.placement.device != syntax::kNone) {
    auto v = indexValue(t.placement.device);
    if (!v)
      return false;
    auto c = v->constantValue();
    // In kernel and tile-function signatures the index has no effect (as
    // before issue 19): a launch runs on the device of its operands.
    if (isDeviceContext) {
    } else if (!c || *c < 0 || *c > kMaxDevice) {
      error(DiagId::BadDeviceIndex, m.expr(t.placement.device).span,
            "a device index is an integer constant from 0 to " + std::to_string(kMaxDevice) +
                ", found `" + str(*v) + "`");
      ok = false;
    } else {
      tt.device = *c;
    }
  }
  const syntax::ShardingRef &sr = t.sharding;
  if (sr.kind == syntax::ShardingKind::None)
    return ok;
  if (isDeviceContext) {
    error(DiagId::BadSharding, sr.span,
          "sharding is a refinement of host-level tensors; a kernel or tile function takes one "
          "device's block as a plain `on=cuda:global` tensor");
    return false;
  }
  if (t.kind != syntax::TypeKind::Tensor || t.placement.kind != syntax::PlacementKind::Global ||
      t.placement.device != syntax::kNone) {
    error(DiagId::BadSharding, sr.span,
          "a sharded or replicated tensor lives on each device of its mesh: write "
          "`on=cuda:global` after it, without a device index");
    return false;
  }
  Sharding s;
  s.kind = sr.kind == syntax::ShardingKind::Sharded ? ShardKind::Sharded : ShardKind::Replicated;
  for (ExprId d : sr.mesh) {
    auto v = indexValue(d);
    if (!v)
      return false;
    auto c = v->constantValue();
    if (!c || *c < 0 || *c > kMaxDevice) {
      error(DiagId::BadSharding, m.expr(d).span,
            "a mesh lists device indices, integer constants from 0 to " +
                std::to_string(kMaxDevice));
      return false;
    }
    if (std::find(s.mesh.begin(), s.mesh.end(), *c) != s.mesh.end()) {
      error(DiagId::BadSharding, m.expr(d).span,
            "device " + std::to_string(*c) + " is listed twice in the mesh");
      return false;
    }
    s.mesh.push_back(*c);
  }
  if (s.mesh.empty()) {
    error(DiagId::BadSharding, sr.meshSpan.empty() ? sr.span : sr.meshSpan,
          "a mesh lists at least one device");
    return false;
  }
  if (s.kind == ShardKind::Sharded) {
    auto v = indexValue(sr.dim);
    if (!v)
      return false;
    auto c = v->constantValue();
    if (tt.shape.empty()) {
      error(DiagId::BadSharding, sr.span, "a tensor without axes cannot be sharded");
      return false;
    }
    if (!c || *c < 0 || *c >= int64_t(tt.shape.size())) {
      error(DiagId::BadSharding, m.expr(sr.dim).span,
            "`dim` is an axis of the tensor: 0 to " + std::to_string(tt.shape.size() - 1) +
                " for " + printShape(tt.shape, symbols));
      return false;
    }
    s.dim = int(*c);
    int64_t n = int64_t(s.mesh.size());
    const DimExpr &extent = tt.shape[size_t(s.dim)];
    if (n > 1 && !prover.proveDivisible(extent, n).proved()) {
      std::string fact = str(extent) + " mod " + std::to_string(n) + " = 0";
      auto &d =
          error(DiagId::BadSharding, sr.span,
                "axis " + std::to_string(s.dim) + " (extent `" + str(extent) + "`) is split over " +
                    std::to_string(n) + " devices in equal blocks: cannot prove " + fact);
      if (symbols.onlyDims(extent))
        addRequiresFix(d, fact);
      return false;
    }
  }
  tt.sharding = std::move(s);
  return ok;
}

Type Checker::meshRules(const Expr &e, Type r) {
  if (r.isError() || !r.isTensor())
    return r;
  const std::string &f = e.name.name;
  bool copyToDevice = f == "copy_to_device";
  size_t first = copyToDevice && e.children.size() == 2 ? 1 : 0;
  std::vector<std::pair<Type, ExprId>> ops;
  bool scalarOperand = false;
  for (size_t i = first; i < e.children.size(); ++i) {
    Type t = typeOf(e.children[i]);
    if (t.isTensor())
      ops.emplace_back(std::move(t), e.children[i]);
    else if (t.kind == Type::Scalar || t.kind == Type::Index)
      scalarOperand = true;
  }
  if (ops.empty())
    return r;
  // Partial sums the operation is not linear in are summed first (pass A
  // inserts the all_reduce there).
  bool allPartial = true;
  for (const auto &o : ops)
    allPartial &= o.first.tensor.sharding.kind == ShardKind::Partial;
  for (auto &o : ops)
    if (o.first.tensor.sharding.kind == ShardKind::Partial &&
        !keepsPartialSums(f, ops.size(), allPartial, scalarOperand))
      o.first.tensor.sharding.kind = ShardKind::Replicated;

  const TensorType &x = ops[0].first.tensor;
  // One device, or one mesh, per operation.
  for (size_t k = 1; k < ops.size(); ++k) {
    const TensorType &y = ops[k].first.tensor;
    if (x.space != Space::Global || y.space != Space::Global)
      continue; // host against device: K0405, reported before
    const Expr &ye = m.expr(ops[k].second);
    if (!onMesh(x) && !onMesh(y) && x.device != y.device) {
      error(DiagId::DeviceMismatch, e.span,
            "`" + f + "` operands are on different devices: " + placeStr(x) + " and " +
                placeStr(y) + "; move one with `copy_to_device " + std::to_string(x.device) + "`")
          .label(m.expr(ops[0].second).span, placeStr(x))
          .label(ye.span, placeStr(y))
          .fix(ye.span,
               "(copy_to_device " + std::to_string(x.device) + " " +
                   syntax::printExpr(m, ops[k].second) + ")",
               "copy it to device " + std::to_string(x.device));
      return Type::error();
    }
    if (onMesh(x) != onMesh(y)) {
      const TensorType &single = onMesh(x) ? y : x, &meshed = onMesh(x) ? x : y;
      error(DiagId::DeviceMismatch, e.span,
            "`" + f + "` mixes a tensor on " + placeStr(single) + " with one on the mesh " +
                meshName(meshed.sharding.mesh) + " (" + placeStr(meshed) +
                "); an operation runs on one device or on every device of one mesh");
      return Type::error();
    }
    if (onMesh(x) && x.sharding.mesh != y.sharding.mesh) {
      error(DiagId::MeshMismatch, e.span,
            "`" + f + "` operands are on different meshes: " + meshName(x.sharding.mesh) + " and " +
                meshName(y.sharding.mesh))
          .label(m.expr(ops[0].second).span, placeStr(x))
          .label(ye.span, placeStr(y));
      return Type::error();
    }
  }
  auto mismatch = [&](const std::string &why) {
    error(DiagId::ShardingMismatch, e.span, why);
    return Type::error();
  };
  auto gatherFix = [&](Diagnostic &d, ExprId id) {
    d.fix(m.expr(id).span, "(all_gather " + syntax::printExpr(m, id) + ")",
          "gather it with `all_gather`");
  };

  if (f == "copy_to_host") {
    r.tensor.device = 0;
    r.tensor.sharding = {};
    if (x.sharding.kind == ShardKind::Sharded) {
      auto &d = error(DiagId::ShardingMismatch, e.span,
                      "`copy_to_host` takes a single-device or replicated tensor; this one is " +
                          placeStr(x) + ": gather it first, `copy_to_host (all_gather " +
                          syntax::printExpr(m, ops[0].second) + ")`");
      gatherFix(d, ops[0].second);
      return Type::error();
    }
    return r;
  }
  if (copyToDevice) {
    if (onMesh(x))
      return mismatch("`copy_to_device` moves a single-device or host tensor; this one is " +
                      placeStr(x) + " (gather it with `all_gather`, then `copy_to_host`)");
    r.tensor.sharding = {};
    r.tensor.device = 0;
    if (first == 1) {
      auto v = indexValue(e.children[0]);
      auto c = v ? v->constantValue() : std::nullopt;
      if (!c || *c < 0 || *c > kMaxDevice) {
        error(DiagId::BadDeviceIndex, m.expr(e.children[0]).span,
              "`copy_to_device d x` takes a device index d, an integer constant from 0 to " +
                  std::to_string(kMaxDevice));
        return Type::error();
      }
      r.tensor.device = *c;
    }
    return r;
  }
  // Single device: the result is on the operands' device.
  if (!onMesh(x)) {
    r.tensor.device = x.space == Space::Global ? x.device : 0;
    r.tensor.sharding = {};
    return r;
  }
  const std::vector<int64_t> &mesh = x.sharding.mesh;
  const Sharding &sx = x.sharding;
  r.tensor.device = 0;
  if (f == "matmul") {
    const Sharding &sb = ops[1].first.tensor.sharding;
    auto is = [](const Sharding &s, ShardKind k, int dim = -1) {
      return s.kind == k && (dim < 0 || s.dim == dim);
    };
    if (is(sx, ShardKind::Replicated) && is(sb, ShardKind::Replicated))
      r.tensor.sharding = ofKind(ShardKind::Replicated, mesh);
    else if (is(sx, ShardKind::Sharded, 0) && is(sb, ShardKind::Replicated))
      r.tensor.sharding = sharded(0, mesh);
    else if (is(sx, ShardKind::Replicated) && is(sb, ShardKind::Sharded, 1))
      r.tensor.sharding = sharded(1, mesh);
    else if (is(sx, ShardKind::Sharded, 1) && is(sb, ShardKind::Sharded, 0))
      r.tensor.sharding = ofKind(ShardKind::Partial, mesh);
    else
      return mismatch("`matmul` of " + shardingName(sx) + " and " + shardingName(sb) +
                      " has no local form: each device multiplies its blocks, so the pairs are "
                      "(Replicated, Replicated), (Sharded(dim=0), Replicated), (Replicated, "
                      "Sharded(dim=1)) and (Sharded(dim=1), Sharded(dim=0)), the last leaving "
                      "partial sums; `all_gather` an operand to replicate it");
    return r;
  }
  if (f == "transpose") {
    r.tensor.sharding = sx;
    if (sx.kind == ShardKind::Sharded)
      r.tensor.sharding.dim = 1 - sx.dim;
    return r;
  }
  if (isHostUnary(f)) {
    r.tensor.sharding = sx;
    return r;
  }
  if (isHostElementwise(f)) {
    r.tensor.sharding = sx;
    if (ops.size() == 1)
      return r; // a scalar operand
    const TensorType &y = ops[1].first.tensor;
    const Sharding &sy = y.sharding;
    if (sx.kind == ShardKind::Partial && sy.kind == ShardKind::Partial)
      return r; // a sum of partial sums (keepsPartialSums)
    bool same = y.shape == x.shape;
    bool column = !same && y.shape.size() == 2 && y.shape[1] == DimExpr::constant(1);
    // What y must be for x's blocks: the same blocks (same shape), the
    // blocks of the columns (a row bias), the blocks of the rows (a column).
    Sharding want = ofKind(ShardKind::Replicated, mesh);
    if (sx.kind == ShardKind::Sharded) {
      if (same)
        want = sx;
      else if (!column && sx.dim == int(x.shape.size()) - 1)
        want = sharded(int(y.shape.size()) - 1, mesh);
      else if (column && sx.dim == 0)
        want = sharded(0, mesh);
    }
    if (sy != want)
      return mismatch("`" + f + "` of " + shardingName(sx) + " and " + shardingName(sy) +
                      " has no local form: the second operand must be " + shardingName(want) +
                      (same     ? " (sharded like the first)"
                       : column ? " (a column is sharded like the rows)"
                                : " (a row is sharded like the columns)"));
    return r;
  }
  if (f == "softmax" || f == "layernorm" || f == "rmsnorm") {
    if (sx.kind == ShardKind::Sharded && sx.dim == int(x.shape.size()) - 1) {
      auto &d = error(DiagId::ShardingMismatch, e.span,
                      "`" + f + "` normalises whole rows, and the rows of this tensor are split (" +
                          shardingName(sx) + "); gather it first with `all_gather`");
      gatherFix(d, ops[0].second);
      return Type::error();
    }
    for (size_t k = 1; k < ops.size(); ++k)
      if (ops[k].first.tensor.sharding.kind != ShardKind::Replicated)
        return mismatch("`" + f + "` weights must be Replicated(mesh=" + meshName(mesh) +
                        "), found " + shardingName(ops[k].first.tensor.sharding));
    r.tensor.sharding = sx;
    return r;
  }
  return mismatch("`" + f + "` takes single-device tensors in this version; this one is " +
                  placeStr(x));
}

Type Checker::checkCollective(ExprId id, const Expr &e) {
  (void)id;
  const std::string &f = e.name.name;
  bool inDevice = current && current->item->kind != syntax::ItemKind::HostFunction;
  if (inDevice || e.children.size() != 1) {
    if (inDevice)
      error(DiagId::InvalidStatementContext, e.span,
            "`" + f + "` is a host-level collective over the devices of a mesh");
    else
      error(DiagId::WrongArgumentCount, e.span,
            "`" + f + "` takes 1 argument, " + std::to_string(e.children.size()) + " given");
    for (ExprId a : e.children)
      checkExpr(a);
    return Type::error();
  }
  Type x = checkExpr(e.children[0]);
  if (x.isError())
    return x;
  if (!x.isTensor()) {
    error(DiagId::ExpectedTile, m.expr(e.children[0]).span,
          "`" + f + "` takes a tensor, found " + typeStr(x));
    return Type::error();
  }
  const Sharding &s = x.tensor.sharding;
  std::string found = placeStr(x.tensor);
  Type r = x;
  r.tensor.writable = true;
  if (f == "all_gather") {
    if (s.kind != ShardKind::Sharded) {
      auto &d =
          error(DiagId::CollectiveOperand, e.span,
                "`all_gather` concatenates the blocks of a sharded tensor; this one is " + found);
      if (s.kind == ShardKind::Partial)
        d.fix(e.name.span, "all_reduce", "partial sums are summed by `all_reduce`");
      return Type::error();
    }
    r.tensor.sharding = ofKind(ShardKind::Replicated, s.mesh);
    return r;
  }
  if (s.kind != ShardKind::Partial) {
    auto &d = error(DiagId::CollectiveOperand, e.span,
                    "`" + f +
                        "` sums partial sums (a matmul contracting over a sharded axis leaves "
                        "them); this tensor is " +
                        found);
    if (s.kind == ShardKind::Sharded && f == "all_reduce")
      d.fix(e.name.span, "all_gather",
            "the blocks of a sharded tensor are gathered by `all_gather`");
    return Type::error();
  }
  if (f == "all_reduce") {
    r.tensor.sharding = ofKind(ShardKind::Replicated, s.mesh);
    return r;
  }
  // reduce_scatter: the sum, each device keeping its block of rows.
  int64_t n = int64_t(s.mesh.size());
  if (x.tensor.shape.empty() || (n > 1 && !prover.proveDivisible(x.tensor.shape[0], n).proved())) {
    std::string extent = x.tensor.shape.empty() ? "1" : str(x.tensor.shape[0]);
    std::string fact = extent + " mod " + std::to_string(n) + " = 0";
    auto &d = error(DiagId::CollectiveOperand, e.span,
                    "`reduce_scatter` leaves each of the " + std::to_string(n) +
                        " devices an equal block of rows: cannot prove " + fact);
    if (!x.tensor.shape.empty() && symbols.onlyDims(x.tensor.shape[0]))
      addRequiresFix(d, fact);
    return Type::error();
  }
  r.tensor.sharding = sharded(0, s.mesh);
  return r;
}

Type Checker::reducedForReturn(Type t) {
  if (t.isTensor() && t.tensor.sharding.kind == ShardKind::Partial)
    t.tensor.sharding.kind = ShardKind::Replicated;
  return t;
}

} // namespace kina::sema
