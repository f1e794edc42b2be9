//===- FromTileIR.cpp - Kina's tile IR to CUDA Tile IR bytecode -----------===//
#include "tileir/FromTileIR.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>
#include <set>

namespace kina::tileir {

namespace {

struct Lowering {
  const ir::Kernel &k;
  BytecodeWriter w;
  std::string error;
  Span errorSpan, opSpan;
  std::vector<ValueId> params; ///< tensor pointers
  std::vector<ValueId> dims;   ///< i32 dim values
  std::map<ir::VarId, ValueId> vars;
  /// A known divisor of each variable's value (0: the value is 0), for the
  /// slice starts: a partition view addresses whole tiles only.
  std::map<ir::VarId, std::int64_t> varFactor;
  /// Variables known >= 0 (ir::provablyNonNegative): a `let` of such a value,
  /// a `for` from such a lower bound.
  std::map<ir::VarId, bool> varNonNegative;
  bool nonNegative(const ir::IndexExpr &e) const {
    return ir::provablyNonNegative(e, [&](unsigned v) {
      auto it = varNonNegative.find(v);
      return it != varNonNegative.end() && it->second;
    });
  }
  std::map<ir::TileId, ValueId> tiles;
  std::vector<ValueId> blockIds;
  std::vector<ValueId> tensorViews;
  std::map<std::pair<ir::ParamId, std::vector<std::int64_t>>, ValueId> partitions;
  TypeId i32;

  Lowering(const ir::Kernel &kernel, Version v) : k(kernel), w(v) {}

  void fail(const std::string &m) {
    if (error.empty()) {
      error = m;
      errorSpan = opSpan;
    }
  }

  std::optional<Scalar> scalarOf(ir::DType d) {
    switch (d) {
    case ir::DType::F16:
      return Scalar::F16;
    case ir::DType::BF16:
      return Scalar::BF16;
    case ir::DType::F32:
      return Scalar::F32;
    case ir::DType::I32:
      return Scalar::I32;
    default:
      fail("element type " + std::string(ir::dtypeName(d)) + " is not lowered to Tile IR yet");
      return std::nullopt;
    }
  }
  TypeId elem(ir::DType d) { return w.scalar(scalarOf(d).value_or(Scalar::F32)); }
  TypeId tileType(const ir::TileDecl &t) { return w.tile(elem(t.dtype), t.shape); }
  TypeId si() { return w.tile(i32, {}); }

  ValueId index(const ir::IndexExpr &e) {
    using K = ir::IndexExpr::Kind;
    switch (e.kind()) {
    case K::Const:
      return w.constantI32(static_cast<std::int32_t>(e.value()));
    case K::Dim:
      return dims.at(e.index());
    case K::BlockId:
      return blockIds.at(e.index());
    case K::Var: {
      auto it = vars.find(e.index());
      if (it == vars.end()) {
        fail("unbound variable in an index");
        return ValueId{};
      }
      return it->second;
    }
    case K::Add:
    case K::Sub:
    case K::Mul:
    case K::Div:
    case K::Mod:
    case K::FloorDiv:
    case K::CeilDiv: {
      ValueId l = index(e.lhs()), r = index(e.rhs());
      using B = BytecodeWriter::IBin;
      B op = e.kind() == K::Add        ? B::Add
             : e.kind() == K::Sub      ? B::Sub
             : e.kind() == K::Mul      ? B::Mul
             : e.kind() == K::Div      ? B::DivTrunc // exact by the checker's proof
             : e.kind() == K::Mod      ? B::Rem
             : e.kind() == K::FloorDiv ? B::DivFloor
                                       : B::DivCeil;
      ValueId v = w.binaryI(op, si(), l, r);
      // Kina's `mod` is the non-negative remainder by a positive divisor;
      // remi truncates (a negative dividend gives a negative remainder), so
      // ((a rem d) + d) rem d unless the dividend is known >= 0.
      if (e.kind() == K::Mod && !nonNegative(e.lhs()))
        v = w.binaryI(B::Rem, si(), w.binaryI(B::Add, si(), v, r), r);
      return v;
    }
    default:
      fail("an index expression of this kind (warp ids, comparisons) has no Tile IR lowering");
      return ValueId{};
    }
  }

  /// The partition view of tensor `p` in tiles of `shape`, made at entry.
  void collectViews(const ir::Block &b,
                    std::set<std::pair<ir::ParamId, std::vector<std::int64_t>>> &out) {
    for (const ir::Op &op : b.ops) {
      auto add = [&](const ir::Access &a) {
        if (a.kind != ir::Access::Kind::Tensor)
          return;
        std::vector<std::int64_t> shape;
        for (const ir::SliceDim &d : a.slice)
          shape.push_back(d.size);
        out.insert({a.id, shape});
      };
      if (auto *l = op.as<ir::LoadOp>())
        add(l->src);
      else if (auto *s = op.as<ir::StoreOp>())
        add(s->dst);
      else if (auto *f = op.as<ir::ForOp>())
        collectViews(f->body, out);
    }
  }

  /// The SSA value of a register tile, or a failure naming the tile when
  /// nothing wrote it yet (`verb`: what the op does with it).
  std::optional<ValueId> written(ir::TileId t, const char *verb = "read") {
    auto it = tiles.find(t);
    if (it != tiles.end())
      return it->second;
    fail("tile `" + k.tiles[t].name + "` is " + verb + " before it is written");
    return std::nullopt;
  }

  /// A number that provably divides e's value (0 when e is 0): constants,
  /// sums, products, and the lets and loop variables built from them.
  /// Anything else (grid ids, dims, divisions) counts as 1.
  std::int64_t factor(const ir::IndexExpr &e) {
    using K = ir::IndexExpr::Kind;
    switch (e.kind()) {
    case K::Const:
      return e.value() < 0 ? -e.value() : e.value();
    case K::Var: {
      auto it = varFactor.find(e.index());
      return it == varFactor.end() ? 1 : it->second;
    }
    case K::Add:
    case K::Sub:
      return std::gcd(factor(e.lhs()), factor(e.rhs()));
    case K::Mul: {
      std::int64_t l = factor(e.lhs()), r = factor(e.rhs()), p = 0;
      return __builtin_mul_overflow(l, r, &p) ? std::max<std::int64_t>(l, r) : p;
    }
    default:
      return 1;
    }
  }

  std::pair<ValueId, std::vector<ValueId>> view(const ir::Access &a) {
    if (a.kind != ir::Access::Kind::Tensor || a.slice.empty()) {
      fail("a load or store must name a slice of a tensor parameter");
      return {};
    }
    std::vector<std::int64_t> shape;
    std::vector<ValueId> idx;
    for (const ir::SliceDim &d : a.slice) {
      if (d.point) {
        fail("a point index into a tensor (dropping a dimension) is not lowered to Tile IR yet");
        return {};
      }
      // The view's index is the start divided by the size: exact only when
      // the start is a multiple of it (otherwise the tile read would be the
      // aligned one below it: a silent miscompile).
      if (std::int64_t f = factor(d.offset); d.size > 1 && f % d.size != 0) {
        fail("a slice of size " + std::to_string(d.size) + " must start at a multiple of " +
             std::to_string(d.size) +
             " that the compiler can see (a multiple of the size times a grid id or loop "
             "index, plus multiples of the size): Tile IR addresses whole tiles of a "
             "partition view");
        return {};
      }
      shape.push_back(d.size);
      idx.push_back(w.binaryI(BytecodeWriter::IBin::DivTrunc, si(), index(d.offset),
                              w.constantI32(static_cast<std::int32_t>(d.size))));
    }
    return {partitions.at({a.id, shape}), idx};
  }

  ValueId operand(const ir::Operand &o, TypeId type, ir::DType dt,
                  const std::vector<std::int64_t> &shape) {
    if (o.kind == ir::Operand::Kind::Scalar) {
      if (o.scalar.kind() != ir::ScalarExpr::Kind::Const) {
        fail("only literal scalar operands are lowered to Tile IR yet");
        return ValueId{};
      }
      double v = o.scalar.value();
      if (dt != ir::DType::F32) {
        fail("scalar operands of non-F32 tiles are not lowered to Tile IR yet");
        return ValueId{};
      }
      float f = static_cast<float>(v);
      std::uint32_t bits;
      std::memcpy(&bits, &f, 4);
      return w.constantSplat(type, bits, 4);
    }
    auto value = written(o.tile);
    if (!value)
      return ValueId{};
    const ir::TileDecl &t = k.tiles[o.tile];
    if (t.shape == shape)
      return *value;
    if (t.shape.size() == 2 && shape.size() == 2 && t.shape[0] == shape[0] && t.shape[1] == 1)
      return w.broadcast(type, *value); // an [R, 1] column along the rows
    fail("operand shapes do not match for the Tile IR lowering");
    return ValueId{};
  }

  void tilesWritten(const ir::Block &b, std::set<ir::TileId> &out) {
    for (const ir::Op &op : b.ops) {
      if (auto *x = op.as<ir::FillOp>())
        out.insert(x->dst);
      else if (auto *x = op.as<ir::LoadOp>())
        out.insert(x->dst);
      else if (auto *x = op.as<ir::UnaryOp>())
        out.insert(x->dst);
      else if (auto *x = op.as<ir::BinaryOp>())
        out.insert(x->dst);
      else if (auto *x = op.as<ir::ReduceOp>())
        out.insert(x->dst);
      else if (auto *x = op.as<ir::MmaOp>())
        out.insert(x->dst);
      else if (auto *x = op.as<ir::ForOp>())
        tilesWritten(x->body, out);
    }
  }

  void block(const ir::Block &b) {
    for (const ir::Op &op : b.ops) {
      if (!error.empty())
        return;
      opSpan = op.span;
      std::visit([&](const auto &node) { lower(node); }, op.node);
    }
  }

  void lower(const ir::LetOp &op) {
    vars[op.var] = index(op.value);
    varNonNegative[op.var] = nonNegative(op.value);
    varFactor[op.var] = factor(op.value);
  }
  void lower(const ir::FillOp &op) {
    const ir::TileDecl &t = k.tiles[op.dst];
    ir::Operand o = ir::Operand::ofScalar(op.value);
    tiles[op.dst] = operand(o, tileType(t), t.dtype, t.shape);
  }
  void lower(const ir::LoadOp &op) {
    if (op.masked) {
      fail("masked loads are not lowered to Tile IR yet");
      return;
    }
    const ir::TileDecl &t = k.tiles[op.dst];
    if (k.params[op.src.id].dtype != t.dtype) {
      fail("a load that converts is not lowered to Tile IR yet");
      return;
    }
    auto [pv, idx] = view(op.src);
    if (!error.empty())
      return;
    // The view's tiles have the slice's shape ([64] for a 1-D tensor); the
    // register tile may carry it as [64, 1]: same elements, reshaped.
    std::vector<std::int64_t> shape = sliceShape(op.src);
    if (!sameElements(shape, t.shape))
      return;
    ValueId v = w.loadView(w.tile(elem(t.dtype), shape), pv, idx).first;
    tiles[op.dst] = shape == t.shape ? v : w.reshape(tileType(t), v);
  }
  std::vector<std::int64_t> sliceShape(const ir::Access &a) {
    std::vector<std::int64_t> shape;
    for (const ir::SliceDim &d : a.slice)
      shape.push_back(d.size);
    return shape;
  }
  bool sameElements(const std::vector<std::int64_t> &a, const std::vector<std::int64_t> &b) {
    std::int64_t na = 1, nb = 1;
    for (std::int64_t x : a)
      na *= x;
    for (std::int64_t x : b)
      nb *= x;
    if (na != nb)
      fail("a slice and its register tile hold different numbers of elements");
    return na == nb;
  }
  void lower(const ir::StoreOp &op) {
    if (op.masked || op.convert) {
      fail("masked or converting stores are not lowered to Tile IR yet");
      return;
    }
    auto src = written(op.src, "stored");
    if (!src)
      return;
    auto [pv, idx] = view(op.dst);
    if (!error.empty())
      return;
    const ir::TileDecl &t = k.tiles[op.src];
    std::vector<std::int64_t> shape = sliceShape(op.dst);
    if (!sameElements(shape, t.shape))
      return;
    w.storeView(shape == t.shape ? *src : w.reshape(w.tile(elem(t.dtype), shape), *src), pv, idx);
  }
  void lower(const ir::UnaryOp &op) {
    const ir::TileDecl &t = k.tiles[op.dst];
    ValueId x = operand(op.src, tileType(t), t.dtype, t.shape);
    if (op.kind == ir::UnaryKind::Copy)
      tiles[op.dst] = x;
    else if (op.kind == ir::UnaryKind::Exp && t.dtype == ir::DType::F32)
      tiles[op.dst] = w.exp(tileType(t), x);
    else
      fail("`" + std::string(ir::unaryKindName(op.kind)) + "` is not lowered to Tile IR yet");
  }
  /// `acc <- wmma_mma acc a b` of the block-level form: both operands are
  /// whole register tiles (values), as mmaf takes them.
  void lower(const ir::MmaOp &op) {
    auto value = [&](const ir::Access &x, const char *role) -> std::optional<ValueId> {
      if (x.kind != ir::Access::Kind::Tile || !x.slice.empty() ||
          k.tiles[x.id].space != ir::MemSpace::Register) {
        fail(std::string("the ") + role +
             " operand of `wmma_mma` must be a whole register tile for Tile IR (it has no "
             "shared memory)");
        return std::nullopt;
      }
      return written(x.id);
    };
    if (op.transB) {
      fail("a transposed B operand of `wmma_mma` is not lowered to Tile IR yet");
      return;
    }
    auto a = value(op.a, "A"), b = value(op.b, "B");
    if (!a || !b)
      return;
    const ir::TileDecl &d = k.tiles[op.dst], &ad = k.tiles[op.a.id];
    if (d.dtype != ir::DType::F32 || (ad.dtype != ir::DType::F16 && ad.dtype != ir::DType::BF16)) {
      fail("`wmma_mma` is lowered to Tile IR for F16 or BF16 operands and an F32 accumulator");
      return;
    }
    auto acc = written(op.acc);
    if (!acc)
      return;
    tiles[op.dst] = w.mmaF(tileType(d), *a, *b, *acc);
  }

  void lower(const ir::BinaryOp &op) {
    const ir::TileDecl &t = k.tiles[op.dst];
    TypeId ty = tileType(t);
    ValueId l = operand(op.lhs, ty, t.dtype, t.shape), r = operand(op.rhs, ty, t.dtype, t.shape);
    using F = BytecodeWriter::FBin;
    switch (op.kind) {
    case ir::BinaryKind::Add:
      tiles[op.dst] = w.binaryF(F::Add, ty, l, r);
      break;
    case ir::BinaryKind::Sub:
      tiles[op.dst] = w.binaryF(F::Sub, ty, l, r);
      break;
    case ir::BinaryKind::Mul:
      tiles[op.dst] = w.binaryF(F::Mul, ty, l, r);
      break;
    case ir::BinaryKind::Div:
      tiles[op.dst] = w.binaryF(F::Div, ty, l, r);
      break;
    case ir::BinaryKind::Max:
      tiles[op.dst] = w.maxF(ty, l, r);
      break;
    default:
      fail("`" + std::string(ir::binaryKindName(op.kind)) + "` is not lowered to Tile IR yet");
    }
    if (t.dtype != ir::DType::F32 && t.dtype != ir::DType::F16 && t.dtype != ir::DType::BF16)
      fail("integer elementwise ops are not lowered to Tile IR yet");
  }
  void lower(const ir::ReduceOp &op) {
    const ir::TileDecl &s = k.tiles[op.src], &d = k.tiles[op.dst];
    auto it = tiles.find(op.src);
    if (it == tiles.end() || s.dtype != ir::DType::F32 || s.shape.size() != 2) {
      fail("row reductions are lowered for written 2-D F32 tiles only");
      return;
    }
    TypeId f32 = w.scalar(Scalar::F32);
    TypeId col = w.tile(f32, {s.shape[0]});
    bool sum = op.kind == ir::ReduceKind::Sum;
    ValueId r = w.reduce(col, it->second, 1,
                         sum ? BytecodeWriter::Combine::AddF : BytecodeWriter::Combine::MaxF,
                         w.tile(f32, {}), f32, sum ? 0u : 0xFF800000u);
    tiles[op.dst] = w.reshape(tileType(d), r);
  }
  void lower(const ir::ForOp &op) {
    std::set<ir::TileId> written;
    tilesWritten(op.body, written);
    std::vector<ir::TileId> carried(written.begin(), written.end());
    std::vector<ValueId> init;
    std::vector<TypeId> types;
    for (ir::TileId t : carried) {
      const ir::TileDecl &d = k.tiles[t];
      types.push_back(tileType(d));
      auto it = tiles.find(t);
      // A tile first written inside the loop starts as zeros (never read
      // before the body writes it: the checker's initialisation rules).
      // The splat's element is as wide as the tile's (2 bytes for F16/BF16).
      unsigned width = d.dtype == ir::DType::F16 || d.dtype == ir::DType::BF16 ? 2 : 4;
      init.push_back(it != tiles.end() ? it->second : w.constantSplat(types.back(), 0, width));
    }
    ValueId lb = index(op.lower), ub = index(op.upper), st = index(op.step);
    auto body = w.beginFor(lb, ub, st, init, types, si());
    auto savedVars = vars;
    vars[op.var] = body[0];
    varNonNegative[op.var] = nonNegative(op.lower);
    varFactor[op.var] = std::gcd(factor(op.lower), factor(op.step));
    auto savedTiles = tiles;
    for (size_t i = 0; i < carried.size(); ++i)
      tiles[carried[i]] = body[1 + i];
    block(op.body);
    std::vector<ValueId> yielded;
    for (ir::TileId t : carried)
      yielded.push_back(tiles[t]);
    auto res = w.endFor(yielded);
    vars = savedVars;
    tiles = savedTiles;
    for (size_t i = 0; i < carried.size() && i < res.size(); ++i)
      tiles[carried[i]] = res[i];
  }
  template <typename T> void lower(const T &) {
    fail("this operation (warps, shared memory, async copies, barriers, mma) has no "
         "block-level Tile IR lowering");
  }

  LoweredKernel run() {
    if (k.warpGrid[0] * k.warpGrid[1] != 1 || k.warpgroups || k.clusterSize() != 1 ||
        !k.barriers.empty() || !k.scalars.empty())
      fail("only block-level kernels (no warp grid, warpgroups, clusters, barriers or scalar "
           "parameters) are lowered to Tile IR");
    for (const ir::TileDecl &t : k.tiles)
      if (t.space != ir::MemSpace::Register)
        fail("shared tile `" + t.name + "`: Tile IR has no explicit shared memory");
    i32 = w.scalar(Scalar::I32);
    std::vector<TypeId> sig;
    for (const ir::TensorParam &p : k.params)
      sig.push_back(w.tile(w.pointer(elem(p.dtype)), {}));
    for (size_t i = 0; i < k.dims.size(); ++i)
      sig.push_back(si());
    auto args = w.beginEntry(k.name, sig);
    params.assign(args.begin(), args.begin() + k.params.size());
    dims.assign(args.begin() + k.params.size(), args.end());
    blockIds = w.tileBlockId();
    std::set<std::pair<ir::ParamId, std::vector<std::int64_t>>> want;
    collectViews(k.body, want);
    std::map<ir::ParamId, ValueId> tvs;
    std::map<ir::ParamId, TypeId> tvTypes;
    for (ir::ParamId p = 0; p < k.params.size(); ++p) {
      const ir::TensorParam &tp = k.params[p];
      size_t rank = tp.shape.size();
      std::vector<ValueId> extents;
      for (const ir::IndexExpr &e : tp.shape)
        extents.push_back(index(e));
      // Row-major strides: the last is 1, each other the product of the
      // extents after it.
      std::vector<ValueId> strides(rank > 0 ? rank - 1 : 0);
      for (size_t i = rank; i-- > 1;) {
        ValueId s = extents[i];
        if (i + 1 < rank)
          s = w.binaryI(BytecodeWriter::IBin::Mul, si(), s, strides[i]);
        strides[i - 1] = s;
      }
      std::vector<std::int64_t> shape(rank, kDynamic), stride(rank, kDynamic);
      if (rank)
        stride.back() = 1;
      tvTypes[p] = w.tensorView(elem(tp.dtype), shape, stride);
      tvs[p] = w.makeTensorView(tvTypes[p], params[p], extents, strides);
    }
    for (const auto &[p, shape] : want) {
      std::vector<std::int32_t> ts(shape.begin(), shape.end()), dimMap;
      for (size_t i = 0; i < shape.size(); ++i)
        dimMap.push_back(static_cast<std::int32_t>(i));
      partitions[{p, shape}] =
          w.makePartitionView(w.partitionView(ts, tvTypes[p], dimMap, std::nullopt), tvs[p]);
    }
    block(k.body);
    w.ret();
    w.endEntry();
    LoweredKernel out;
    out.requirements = w.requirements();
    if (!error.empty()) {
      out.error = error;
      out.errorSpan = errorSpan;
      return out;
    }
    out.bytecode = w.finish();
    out.error = w.error();
    return out;
  }
};

} // namespace

LoweredKernel lowerToTileIr(const ir::Kernel &kernel, Version version) {
  Lowering l(kernel, version);
  return l.run();
}

} // namespace kina::tileir
