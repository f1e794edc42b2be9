//===- Layout.cpp - Physical layouts chosen by code generation ------------===//
//
// Shared-memory arena planning, the chunk swizzle, and the legality checks
// that keep the MLIR lowering total on verified IR.
//
//===----------------------------------------------------------------------===//
#include "codegen/Layout.h"

#include "ir/Verifier.h"
#include "target/Lowerable.h"

#include <numeric>

namespace kina::codegen {

using namespace ir;

static bool isPowerOfTwo(uint64_t v) { return v && !(v & (v - 1)); }

uint64_t SharedTileLayout::byteOffset(int64_t row, int64_t col) const {
  if (!swizzled)
    return static_cast<uint64_t>(row * cols + col) * elemBytes;
  int64_t perChunk = 16 / elemBytes;
  if (panelled) { // panel-major 128-byte panels, each an 8-chunk swizzled tile
    int64_t perPanel = 128 / elemBytes, c = col % perPanel;
    int64_t q = row * 8 + c / perChunk;
    return static_cast<uint64_t>(col / perPanel) * panelBytes +
           static_cast<uint64_t>((q ^ (row % 8)) * 16 + (c % perChunk) * elemBytes);
  }
  int64_t q = row * chunksPerRow + col / perChunk;
  int64_t key = chunksPerRow >= 8 ? row % 8 : (q / 8) % 8;
  return static_cast<uint64_t>((q ^ key) * 16 + (col % perChunk) * elemBytes);
}

KernelLayout planLayout(const Kernel &kernel) {
  KernelLayout layout;
  layout.shared.resize(kernel.tiles.size());
  uint64_t offset = 0;
  for (size_t i = 0; i < kernel.tiles.size(); ++i) {
    const TileDecl &t = kernel.tiles[i];
    if (t.space != MemSpace::Shared || t.shape.size() < 2)
      continue;
    SharedTileLayout s;
    s.rows = t.shape[t.shape.size() - 2];
    s.cols = t.shape.back();
    s.elemBytes = dtypeBytes(t.dtype);
    s.stages = 1;
    for (size_t d = 0; d + 2 < t.shape.size(); ++d)
      s.stages *= t.shape[d];
    uint64_t rowBytes = static_cast<uint64_t>(s.cols) * s.elemBytes;
    s.swizzled = rowBytes % 16 == 0 && isPowerOfTwo(rowBytes / 16) && s.elemBytes <= 16;
    s.chunksPerRow = s.swizzled ? static_cast<unsigned>(rowBytes / 16) : 0;
    s.stageBytes = (static_cast<uint64_t>(s.rows) * rowBytes + 127) / 128 * 128;
    if (t.layout == SharedLayout::Swizzle128B) {
      if (rowBytes > 128 && rowBytes % 128 == 0 && s.swizzled) {
        s.panelled = true;
        s.panelBytes = static_cast<uint64_t>(s.rows) * 128;
      }
      layout.alignBase1024 = true;
      offset = (offset + 1023) / 1024 * 1024;
      s.stageBytes = (s.stageBytes + 1023) / 1024 * 1024;
    }
    s.offsetBytes = offset;
    offset += s.stageBytes * static_cast<uint64_t>(s.stages);
    layout.shared[i] = s;
  }
  offset = (offset + 7) / 8 * 8;
  for (const BarrierDecl &b : kernel.barriers) {
    layout.barrierOffsets.push_back(offset);
    offset += 8 * static_cast<uint64_t>(b.stages > 0 ? b.stages : 0);
  }
  layout.sharedBytes = (offset + 127) / 128 * 128;
  if (layout.alignBase1024)
    layout.sharedBytes += 1024;
  return layout;
}

int64_t registerSlots(const std::vector<int64_t> &shape) {
  if (shape.size() != 2)
    return 0;
  if (shape[1] == 1)
    return shape[0] / 8;
  if (shape[0] == 1)
    return shape[1] / 4; // a row [1, C]: replicated over the 8 row groups
  return shape[0] * shape[1] / 32;
}

int64_t knownMultiple(const Kernel &kernel, const IndexExpr &e) {
  using Kind = IndexExpr::Kind;
  constexpr int64_t kAny = int64_t(1) << 40;
  switch (e.kind()) {
  case Kind::Const:
    return e.value() == 0 ? kAny : std::abs(e.value());
  case Kind::Dim: {
    int64_t m = 1;
    for (const Requirement &r : kernel.requirements) {
      const IndexExpr &c = r.condition;
      if (c.kind() != Kind::Eq)
        continue;
      const IndexExpr *modSide = &c.lhs(), *zeroSide = &c.rhs();
      if (modSide->kind() != Kind::Mod)
        std::swap(modSide, zeroSide);
      if (modSide->kind() != Kind::Mod || zeroSide->asConstant() != std::optional<int64_t>(0))
        continue;
      if (modSide->lhs().kind() == Kind::Dim && modSide->lhs().index() == e.index())
        if (auto d = modSide->rhs().asConstant(); d && *d > 0)
          m = std::lcm(m, *d);
    }
    return m;
  }
  case Kind::Add:
  case Kind::Sub:
    return std::gcd(knownMultiple(kernel, e.lhs()), knownMultiple(kernel, e.rhs()));
  case Kind::Mul: {
    int64_t a = knownMultiple(kernel, e.lhs()), b = knownMultiple(kernel, e.rhs());
    return a >= kAny || b >= kAny ? kAny : std::min(a * b, kAny);
  }
  case Kind::Div: {
    auto c = e.rhs().asConstant();
    int64_t a = knownMultiple(kernel, e.lhs());
    return c && *c > 0 && a % *c == 0 ? a / *c : 1;
  }
  case Kind::Mod: {
    auto c = e.rhs().asConstant();
    return c && *c > 0 ? std::gcd(knownMultiple(kernel, e.lhs()), *c) : 1;
  }
  default:
    return 1;
  }
}

namespace {

class Legality {
public:
  Legality(const Kernel &k, DiagnosticSink &sink) : k_(k), sink_(sink) {}
  bool ok() const { return errors_ == 0; }

  // The rules are target/Lowerable.h's, which the checker applies first: a
  // report here after a clean `kina check` is a compiler bug.
  void error(Span span, std::string msg) {
    ++errors_;
    sink_.report(DiagId::UnsupportedTileLayout, span, "kernel '" + k_.name + "': " + msg)
        .note("internal: the checker should have rejected this (target/Lowerable.def)");
  }

  void tiles() {
    for (const TileDecl &t : k_.tiles) {
      if (t.space != MemSpace::Register || t.shape.size() != 2 ||
          t.scope == RegisterScope::Warpgroup) // checked by the IR verifier (K1220)
        continue;
      if (auto why = target::lowerable::registerTileProblem(t.shape))
        error(t.span, "register tile '" + t.name + "': " + *why);
    }
  }

  /// Valid tile IR that this version's code generation does not lower yet
  /// (K1241): reported here, before MLIR, never dropped or miscompiled.
  void notLowered(Span span, const std::string &what) {
    ++errors_;
    sink_.report(DiagId::CodegenNotLowered, span,
                 "kernel '" + k_.name + "': " + what + " is not lowered by code generation yet");
  }

  bool isWarpgroupTile(TileId t) const {
    return t < k_.tiles.size() && k_.tiles[t].space == MemSpace::Register &&
           k_.tiles[t].scope == RegisterScope::Warpgroup;
  }

  /// What TileToMLIR.cpp lowers of a warpgroup epilogue (he): elementwise
  /// ops on F32 [64, N] tiles (the accumulator's F32 fragment registers)
  /// and on the broadcast rows [1, N] / columns [64, 1] it loads from global
  /// memory. 16-bit [64, K] tiles (register A, packed) are not yet.
  bool isVector(TileId t) const {
    const auto &s = k_.tiles[t].shape;
    return isWarpgroupTile(t) && s.size() == 2 && (s[0] == 1 || s[1] == 1);
  }
  bool epilogueTile(TileId t) const {
    // 16-bit [64, N] tiles are packed pairs; TileToMLIR.cpp reads and
    // writes their elements through the pairs.
    return isWarpgroupTile(t);
  }
  bool epilogueOperand(const Operand &x) const {
    return x.kind == Operand::Kind::Scalar || epilogueTile(x.tile);
  }

  bool wide(const Access &a) const {
    return a.kind == Access::Kind::Tile && a.id < k_.tiles.size() &&
           k_.tiles[a.id].space == MemSpace::Shared && k_.tiles[a.id].shape.back() * 2 > 128;
  }

  /// `a_r <- convert BF16 acc` (F32 -> 16-bit warpgroup tile): lowered.
  bool isRegisterAConvert(const UnaryOp &o) const {
    return o.kind == UnaryKind::Convert && o.src.kind == Operand::Kind::Tile &&
           isWarpgroupTile(o.src.tile) && k_.tiles[o.src.tile].dtype == DType::F32 &&
           (k_.tiles[o.dst].dtype == DType::BF16 || k_.tiles[o.dst].dtype == DType::F16);
  }

  void hopperForms(const Op &op) {
    if (auto *o = op.as<WgmmaOp>(); o && (wide(o->a) || wide(o->b)))
      notLowered(op.span, "a wgmma operand in a swizzle_128b tile wider than one 128-byte panel");
    else if (auto *o = op.as<UnaryOp>(); o && isWarpgroupTile(o->dst) && !isRegisterAConvert(*o) &&
                                         (!epilogueTile(o->dst) || !epilogueOperand(o->src)))
      notLowered(op.span, "an elementwise op on 16-bit warpgroup tiles");
    else if (auto *o = op.as<BinaryOp>();
             o && isWarpgroupTile(o->dst) &&
             (!epilogueTile(o->dst) || !epilogueOperand(o->lhs) || !epilogueOperand(o->rhs)))
      notLowered(op.span, "an elementwise op on 16-bit warpgroup tiles");
  }

  void block(const Block &b) {
    for (const Op &op : b.ops) {
      hopperForms(op);
      if (auto *o = op.as<CpAsyncOp>()) {
        auto shape = accessShape(k_, o->dst);
        if (o->dst.id < k_.tiles.size() && shape.size() == 2) {
          unsigned eb = dtypeBytes(k_.tiles[o->dst.id].dtype);
          if (auto why = target::lowerable::copyRowProblem(shape[1] * eb))
            error(op.span, *why);
        }
      } else if (auto *o = op.as<MmaOp>()) {
        auto a = accessShape(k_, o->a), b2 = accessShape(k_, o->b);
        if (a.size() == 2 && b2.size() == 2) {
          if (auto why = target::lowerable::mmaShapeProblem(a[0], b2[o->transB ? 0 : 1], a[1]))
            error(op.span, *why);
          // An int8 mma.sync steps k by 32 (m16n8k32; dp4a_mma by 16).
          else if (!o->dp4a && o->a.id < k_.tiles.size() && k_.tiles[o->a.id].dtype == DType::I8 &&
                   a[1] % 32 != 0)
            error(op.span, "an int8 mma of k = " + std::to_string(a[1]) +
                               " does not split into m16n8k32 steps");
        }
      } else if (auto *o = op.as<TransposeOp>()) {
        if (o->src < k_.tiles.size()) {
          auto &s = k_.tiles[o->src].shape;
          if (s.size() == 2)
            if (auto why = target::lowerable::transposeProblem(s[0], s[1]))
              error(op.span, *why);
        }
      } else if (auto *o = op.as<ForOp>()) {
        block(o->body);
      } else if (auto *o = op.as<RoleOp>()) {
        block(o->body);
      } else if (auto *o = op.as<IfOp>()) {
        block(o->thenBody);
        block(o->elseBody);
      }
    }
  }

private:
  const Kernel &k_;
  DiagnosticSink &sink_;
  unsigned errors_ = 0;
};

} // namespace

bool checkLowerable(const Kernel &kernel, const KernelLayout &layout, uint64_t maxSharedBytes,
                    DiagnosticSink &sink) {
  Legality l(kernel, sink);
  l.tiles();
  l.block(kernel.body);
  bool ok = l.ok();
  if (layout.sharedBytes > maxSharedBytes) {
    sink.report(DiagId::SharedMemoryTooLarge, kernel.span,
                "kernel '" + kernel.name + "' needs " + std::to_string(layout.sharedBytes) +
                    " bytes of shared memory per block; the target allows " +
                    std::to_string(maxSharedBytes))
        .note("reduce the tile sizes or the number of pipeline stages");
    ok = false;
  }
  return ok;
}

} // namespace kina::codegen
