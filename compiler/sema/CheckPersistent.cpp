//===- CheckPersistent.cpp - TMA stores, warpgroup tile moves, clusters ---===//
//
// The statement rules the persistent Hopper GEMM adds (docs/language.md,
// "TMA store", "Shared store of a warpgroup tile", "wgmma with A from
// registers", "Clusters"): `tma_store dst <- src`, `tma_store_commit`,
// `tma_store_wait N`; assignments that move a warpgroup tile into a shared
// stage (`c_s[i] <- convert BF16 acc`) or fill a 16-bit warpgroup tile (from
// a converted F32 warpgroup tile, or from a shared slice); the cluster shape
// of a `block_grid` and `cluster_rank`. As in CheckHopper.cpp, only what
// each statement needs on its own is checked here; the ordering of bulk
// groups, fences and in-flight reads is the protocol pass's.
//
//===----------------------------------------------------------------------===//
#include "sema/Checker.h"

namespace kina::sema {

namespace {

int64_t cst(const DimExpr &d) { return d.constantValue().value_or(-1); }

/// Hover text on a statement's keyword (IDE tables only).
void hoverText(Checker &c, Span span, std::string md) {
  if (!c.options.ideTables)
    return;
  TypeAnnotation a;
  a.span = span;
  a.type = "protocol";
  a.markdown = std::move(md);
  c.program.annotations.push_back(std::move(a));
}

} // namespace

// ---------------------------------------------------------------- clusters

void Checker::checkCluster(const Stmt &s) {
  grid.cluster.clear();
  useCapability("clusters", s.clusterSpan);
  if (s.cluster.size() != s.shape.size()) {
    error(DiagId::ClusterShape, s.clusterSpan,
          "`cluster` takes one extent per axis of the block_grid (" +
              std::to_string(s.shape.size()) + "), got " + std::to_string(s.cluster.size()));
    return;
  }
  int64_t product = 1;
  std::vector<int64_t> extents;
  for (size_t axis = 0; axis < s.cluster.size(); ++axis) {
    auto c = constantIndex(s.cluster[axis], "a cluster extent");
    if (!c)
      return;
    if (*c < 1) {
      error(DiagId::ClusterShape, m.expr(s.cluster[axis]).span,
            "cluster extents are at least 1, got " + std::to_string(*c));
      return;
    }
    product *= *c;
    extents.push_back(*c);
  }
  if (product > 8) {
    error(DiagId::ClusterShape, s.clusterSpan,
          "a cluster holds at most 8 blocks (the portable cluster size); this one has " +
              std::to_string(product));
    return;
  }
  bool ok = true;
  for (size_t axis = 0; axis < extents.size() && axis < grid.blockGrid.size(); ++axis) {
    if (extents[axis] == 1)
      continue;
    const DimExpr &g = grid.blockGrid[axis];
    solver::Proof p = prover.proveDivisible(g, extents[axis]);
    if (p.proved())
      continue;
    ok = false;
    std::string fact = str(g) + " mod " + std::to_string(extents[axis]) + " = 0";
    auto &d = error(DiagId::ClusterShape, m.expr(s.cluster[axis]).span,
                    "the grid extent `" + str(g) + "` of axis " + std::to_string(axis) +
                        " is not provably a multiple of the cluster extent " +
                        std::to_string(extents[axis]) + ": cannot prove " + fact);
    if (g.isConstant())
      continue;
    if (!p.Suggestions.empty() && !p.Suggestions[0].Facts.empty())
      addRequiresFix(d, p.Suggestions[0].Text);
    else if (symbols.onlyDims(g))
      addRequiresFix(d, fact);
  }
  if (!ok)
    return;
  grid.cluster = extents;
  // Clusters tile the grid with consecutive blocks, x fastest: the rank is
  // (block_id 0 mod C0) + C0 * (block_id 1 mod C1) (%cluster_ctarank), so the
  // facts that tie it to the block (and a persistent tile) are known.
  DimExpr rank = DimExpr::constant(0);
  int64_t scale = 1;
  for (size_t axis = 0; axis < extents.size() && axis < grid.blockIds.size(); ++axis) {
    if (extents[axis] > 1)
      rank = rank + symbols.mod(grid.blockIds[axis], extents[axis]) * scale;
    scale *= extents[axis];
  }
  grid.clusterRank =
      rank.isValid() ? rank : symbols.newSymbolExpr("cluster_rank", solver::SymbolKind::BlockId);
  prover.assumeRange(grid.clusterRank, DimExpr::constant(0), DimExpr::constant(product));
  hoverText(*this, s.clusterSpan,
            "**cluster** of " + std::to_string(product) +
                " blocks: launched together (cuLaunchKernelEx with the cluster dimension); "
                "`cluster_rank` is the block's rank in it, 0 .. " +
                std::to_string(product - 1) + ".");
}

Type Checker::checkClusterRank(ExprId id, const Expr &e) {
  if (grid.cluster.empty()) {
    error(DiagId::ClusterContext, e.span,
          grid.inBlockGrid ? "`cluster_rank` needs a cluster launch: `block_grid [...] cluster "
                             "[...]`"
                           : "`cluster_rank` is only meaningful inside `block_grid [...] cluster "
                             "[...]`");
    return record(id, Type::error());
  }
  return record(id, Type::indexValue(grid.clusterRank));
}

// -------------------------------------------------------------- TMA store

void Checker::checkTmaStore(const Stmt &s) {
  useCapability("tma_store", s.keywordSpan);
  if (s.kind == StmtKind::TmaStoreCommit) {
    hoverText(*this, s.keywordSpan,
              "**tma_store_commit**: closes this warpgroup's open bulk group (the `tma_store`s "
              "since the last commit); `tma_store_wait N` counts the committed groups.");
    return;
  }
  if (s.kind == StmtKind::TmaStoreWait) {
    hoverText(*this, s.keywordSpan,
              "**tma_store_wait " + std::to_string(s.count) + "**: waits until at most " +
                  std::to_string(s.count) +
                  " committed TMA store groups of this warpgroup are still reading shared "
                  "memory (`cp.async.bulk.wait_group.read " +
                  std::to_string(s.count) +
                  "`), then synchronises the warpgroup: the stages they read may be written "
                  "again. A role that stores ends with a full wait for the writes.");
    if (s.count > 7)
      error(DiagId::TmaStoreWaitCount, s.countSpan.empty() ? s.keywordSpan : s.countSpan,
            "`tma_store_wait " + std::to_string(s.count) +
                "`: at most 7 committed TMA store groups can be left reading shared memory");
    return;
  }
  Type dst = checkExpr(s.target);
  Type src = checkStagedOperand(s.value);
  if (dst.isError() || src.isError())
    return;
  if (!src.isTensor() || src.tensor.space != Space::Shared) {
    error(DiagId::TmaStorePlacement, m.expr(s.value).span,
          "`tma_store` reads a stage of a cuda:shared tile, but the source is " + typeStr(src));
    return;
  }
  if (!dst.isTensor() || dst.tensor.space != Space::Global || dst.tensor.isTile) {
    error(DiagId::TmaStorePlacement, m.expr(s.target).span,
          "`tma_store` writes a slice of a cuda:global tensor, but the destination is " +
              typeStr(dst));
    return;
  }
  const Expr *dstBase = baseNameOf(m, s.target);
  if (!dst.tensor.writable) {
    const Item *item = current ? current->item : nullptr;
    std::string resultName = item && item->resultName.valid() ? item->resultName.name : "result";
    auto &d = error(DiagId::StoreToReadOnly, m.expr(s.target).span,
                    "`tma_store` into read-only input `" +
                        (dstBase ? dstBase->name.name : syntax::printExpr(m, s.target)) +
                        "`: kernel inputs are read-only");
    if (dstBase)
      d.fix(dstBase->name.span, resultName, "store into the result `" + resultName + "`");
    return;
  }
  if (!checkTmaBox(s, /*load=*/false, src, dst))
    return;
  const std::vector<DimExpr> &sh = src.tensor.shape;
  const Expr &de = m.expr(s.target);
  // The source is a whole stage: point index on the stage dimension only.
  const Expr *srcBase = baseNameOf(m, s.value);
  const Binding *sb = srcBase ? lookup(srcBase->name.name) : nullptr;
  int64_t rows = cst(sh[0]), cols = cst(sh[1]);
  bool wholeStage = sb && sb->type.isTensor() && sb->type.tensor.shape.size() >= 2 &&
                    cst(sb->type.tensor.shape.back()) == cols &&
                    cst(sb->type.tensor.shape[sb->type.tensor.shape.size() - 2]) == rows;
  if (!wholeStage) {
    error(DiagId::TmaStoreShape, m.expr(s.value).span,
          "`tma_store` reads a whole stage of its shared tile (`" +
              (srcBase ? srcBase->name.name : std::string("c_s")) + "[i]`), not a slice of one");
    return;
  }
  if (cols % 64 != 0 || rows < 1 || rows > 256) {
    error(DiagId::TmaStoreShape, m.expr(s.value).span,
          "`tma_store` boxes have at most 256 rows of whole 128-byte panels (a multiple of 64 "
          "elements of " +
              std::string(dtypeName(src.tensor.dtype)) + "); this one is " +
              printShape(sh, symbols));
    return;
  }
  ExprId whole = de.children[0];
  const Type &wt = typeOf(whole);
  if (wt.isTensor() && wt.tensor.shape.size() == 2) {
    DimExpr inner = wt.tensor.shape[1];
    if (!prover.proveDivisible(inner, 8).proved()) {
      auto &diag =
          error(DiagId::MisalignedCopy, de.span,
                "`tma_store` needs the rows of `" + syntax::printExpr(m, whole) +
                    "` to be a multiple of 16 bytes: cannot prove " + str(inner) + " mod 8 = 0");
      if (!inner.isConstant())
        addRequiresFix(diag, str(inner) + " mod 8 = 0");
    }
  } else if (wt.isTensor()) {
    error(DiagId::TmaStoreShape, m.expr(whole).span,
          "`tma_store` writes into a 2-D global tensor; `" + syntax::printExpr(m, whole) + "` is " +
              typeStr(wt));
  }
  int64_t bytes = rows * cols * dtypeBytes(src.tensor.dtype);
  hoverText(*this, s.keywordSpan,
            "**tma_store**: thread 0 of the warpgroup copies " + std::to_string(bytes) +
                " bytes (" + typeStr(src) + ", " + std::to_string(cols / 64) + " box" +
                (cols / 64 == 1 ? "" : "es") + " of one 128-byte panel) from `" +
                syntax::printExpr(m, s.value) + "` to `" + syntax::printExpr(m, s.target) +
                "`, after a warpgroup barrier orders every thread's writes of the stage; it "
                "joins the open bulk group (`tma_store_commit` closes it). The stage may be "
                "rewritten after a `tma_store_wait` retired the group; generic writes before "
                "it need `fence_proxy_async`.");
}

// ------------------------------------------------- warpgroup tile moves

bool Checker::checkWarpgroupMove(const Stmt &s) {
  // Which side is a warpgroup tile?
  auto warpgroupBinding = [&](ExprId id) -> const Binding * {
    const Expr &e = m.expr(id);
    if (e.kind != ExprKind::Name)
      return nullptr;
    const Binding *b = lookup(e.name.name);
    return b && b->type.isTensor() && b->type.tensor.warpgroup ? b : nullptr;
  };
  ExprId value = s.value;
  bool convert = false;
  DType convertTo = DType::F32;
  if (const Expr &v = m.expr(value);
      v.kind == ExprKind::Application && v.name.name == "convert" && v.children.size() == 2) {
    if (auto dt = parseDType(m.expr(v.children[0]).name.name);
        dt && m.expr(v.children[0]).kind == ExprKind::Name) {
      convert = true;
      convertTo = *dt;
      value = v.children[1];
    }
  }
  const Binding *target = warpgroupBinding(s.target);
  const Binding *source = warpgroupBinding(value);
  const Expr *targetBase = baseNameOf(m, s.target);
  const Binding *tb = targetBase ? lookup(targetBase->name.name) : nullptr;
  bool sharedTarget =
      !target && tb && tb->type.isTensor() && tb->type.tensor.space == Space::Shared;
  // An epilogue expression on a warpgroup tile (`c_s[i] <- convert BF16 (relu
  // (add acc bias[...]))`) goes into a shared stage like the tile itself.
  ExprId inner = value;
  while (m.expr(inner).kind == ExprKind::Paren && !m.expr(inner).children.empty())
    inner = m.expr(inner).children[0];
  bool expressionSource = !target && !source && sharedTarget && grid.inWarpgroupGrid &&
                          m.expr(inner).kind == ExprKind::Application;
  if (!target && !(source && sharedTarget) && !expressionSource)
    return false;

  auto recordName = [&](ExprId id, const Binding *b) {
    program.exprSymbol[id] = b->symbol;
    addReference(b->symbol, m.expr(id).span);
    record(id, b->type);
  };
  if (!target) {
    // `c_s[i] <- acc` / `c_s[i] <- convert BF16 acc`: the fragments of the
    // warpgroup tile into one stage of a shared tile.
    Type srcType;
    if (source) {
      recordName(value, source);
      srcType = source->type;
    } else {
      srcType = checkExpr(value);
      if (srcType.isError())
        return true;
      if (!srcType.isTensor() || !srcType.tensor.warpgroup) {
        error(DiagId::WarpgroupTileUse, s.span,
              "inside a warpgroup grid a shared stage is written from a warpgroup tile or an "
              "elementwise expression on one (`" +
                  targetBase->name.name + "[i] <- convert BF16 (relu acc)`)");
        return true;
      }
    }
    std::string srcName = syntax::printExpr(m, value);
    Type dst = checkStagedOperand(s.target);
    if (dst.isError())
      return true;
    if (convert)
      record(s.value, [&] {
        Type t = srcType;
        t.tensor.dtype = convertTo;
        return t;
      }());
    const TensorType &src = srcType.tensor;
    DType stored = convert ? convertTo : src.dtype;
    if (dst.tensor.shape != src.shape) {
      error(DiagId::WarpgroupStoreShape, s.span,
            "warpgroup tile `" + srcName + "` is " + printShape(src.shape, symbols) +
                ", the shared destination " +
                printShape(dst.tensor.shape, symbols) +
                "; write one whole stage of the same shape (`" + targetBase->name.name + "[i]`)")
          .label(m.expr(s.target).span, "destination " + printShape(dst.tensor.shape, symbols));
      return true;
    }
    if (dst.tensor.dtype != stored) {
      auto &d = error(DiagId::DTypeMismatch, s.span,
                      std::string("cannot store ") + dtypeName(stored) + " fragments into " +
                          dtypeName(dst.tensor.dtype) + " `" + targetBase->name.name + "`");
      if (!convert)
        d.fix(Span{m.expr(s.value).span.begin, m.expr(s.value).span.begin},
              std::string("convert ") + dtypeName(dst.tensor.dtype) + " ",
              std::string("convert to ") + dtypeName(dst.tensor.dtype));
      return true;
    }
    // stmatrix writes 16-bit elements into the swizzled layout TMA reads.
    if (dtypeBytes(stored) != 2) {
      error(DiagId::DTypeMismatch, s.span,
            std::string("a warpgroup tile is stored into shared memory as 16-bit elements "
                        "(stmatrix), not ") +
                dtypeName(stored) + ": declare `" + targetBase->name.name +
                "` BF16 or F16 and `convert` the tile");
      return true;
    }
    if (dst.tensor.layout != SharedLayout::Swizzle128B) {
      error(DiagId::SharedLayoutMismatch, m.expr(s.target).span,
            "a warpgroup tile is stored in the 128-byte swizzled layout (which `tma_store` "
            "reads), but `" +
                targetBase->name.name + "` has no layout: declare it `layout=swizzle_128b`");
      return true;
    }
    return true;
  }

  // A warpgroup tile assigned: a 16-bit A operand from a converted F32
  // warpgroup tile of the same shape, or from a shared slice (ldmatrix).
  recordName(s.target, target);
  const TensorType &dt = target->type.tensor;
  if (isWarpgroupVector(dt)) {
    // A broadcast row or column: loaded from a global slice of its shape
    // and element type (`b_r <- bias[n ..+ 128]`), each thread reading the
    // columns (rows) of its accumulator fragment.
    std::string name = m.expr(s.target).name.name;
    bool rowVector = cst(dt.shape[0]) == 1;
    std::string example = rowVector ? name + " <- bias[n ..+ " + str(dt.shape[1]) + "]"
                                    : name + " <- scale[m ..+ 64, 0 ..+ 1]";
    if (convert || source || s.valueMasked) {
      if (source)
        recordName(value, source);
      error(DiagId::WarpgroupTileUse, s.span,
            "warpgroup " + std::string(rowVector ? "row" : "column") + " `" + name + "` " +
                printShape(dt.shape, symbols) +
                " is assigned only by an unmasked load of a global slice of its shape and "
                "element type in this version (`" +
                example + "`); it is converted where an elementwise op uses it");
      return true;
    }
    Type src = checkExpr(s.value);
    if (src.isError())
      return true;
    const auto &ss = src.isTensor() ? src.tensor.shape : std::vector<DimExpr>{};
    bool shapeFits =
        rowVector ? (ss.size() == 1 && ss[0] == dt.shape[1]) ||
                        (ss.size() == 2 && ss[0] == DimExpr::constant(1) && ss[1] == dt.shape[1])
                  : ss.size() == 2 && ss[0] == dt.shape[0] && ss[1] == DimExpr::constant(1);
    if (!src.isTensor() || src.tensor.space != Space::Global || src.tensor.warpgroup ||
        !shapeFits) {
      error(DiagId::WarpgroupStoreShape, s.span,
            "warpgroup " + std::string(rowVector ? "row" : "column") + " `" + name + "` " +
                printShape(dt.shape, symbols) + " is loaded from a global slice of that shape" +
                (rowVector ? " (or a 1-D one of " + str(dt.shape[1]) + " elements)" : "") +
                ", found " + typeStr(src) + " (`" + example + "`)");
      return true;
    }
    if (src.tensor.dtype != dt.dtype) {
      error(DiagId::DTypeMismatch, s.span,
            std::string("cannot load ") + dtypeName(src.tensor.dtype) + " elements into " +
                dtypeName(dt.dtype) + " `" + name + "`: declare it " +
                dtypeName(src.tensor.dtype) +
                " (an elementwise op converts it to the accumulator's type)");
      return true;
    }
    return true;
  }
  if (convert && source) {
    recordName(value, source);
    Type t = source->type;
    t.tensor.dtype = convertTo;
    record(s.value, t);
    if (source->type.tensor.dtype != DType::F32 || dtypeBytes(dt.dtype) != 2 ||
        convertTo != dt.dtype || source->type.tensor.shape != dt.shape) {
      error(DiagId::WarpgroupTileUse, s.span,
            "a 16-bit warpgroup tile is written from an F32 warpgroup tile of the same shape "
            "(`" +
                m.expr(s.target).name.name + " <- convert " + dtypeName(dt.dtype) +
                " x`, the accumulator and A fragments coincide); here `" + m.expr(value).name.name +
                "` is " + typeStr(source->type) + " and `" + m.expr(s.target).name.name + "` " +
                typeStr(target->type));
    }
    return true;
  }
  if (!convert && !source) {
    Type src = checkStagedOperand(s.value);
    if (src.isError())
      return true;
    if (src.isTensor() && src.tensor.space == Space::Shared) {
      if (dtypeBytes(dt.dtype) != 2 || src.tensor.dtype != dt.dtype) {
        error(DiagId::WarpgroupTileUse, s.span,
              std::string("a warpgroup tile loaded from shared memory (ldmatrix) is a 16-bit "
                          "wgmma A operand of the shared tile's element type; here the tile is ") +
                  dtypeName(dt.dtype) + ", the source " + dtypeName(src.tensor.dtype));
        return true;
      }
      if (src.tensor.shape != dt.shape) {
        error(DiagId::WarpgroupStoreShape, s.span,
              "cannot load a shared slice of shape " + printShape(src.tensor.shape, symbols) +
                  " into warpgroup tile `" + m.expr(s.target).name.name + "` " +
                  printShape(dt.shape, symbols));
        return true;
      }
      if (src.tensor.layout != SharedLayout::Swizzle128B) {
        const Expr *base = baseNameOf(m, s.value);
        error(DiagId::SharedLayoutMismatch, m.expr(s.value).span,
              "a warpgroup tile loads from the 128-byte swizzled layout, but `" +
                  (base ? base->name.name : syntax::printExpr(m, s.value)) +
                  "` has no layout: declare it `layout=swizzle_128b`");
        return true;
      }
      const Expr *srcBase = baseNameOf(m, s.value);
      const Binding *sbind = srcBase ? lookup(srcBase->name.name) : nullptr;
      if (sbind && sbind->type.isTensor() && !sbind->type.tensor.shape.empty() &&
          cst(sbind->type.tensor.shape.back()) > 64) {
        error(DiagId::WgmmaOperandPanel, m.expr(s.value).span,
              "a warpgroup tile loads one 128-byte panel (64 columns) of a swizzled tile in this "
              "version");
        return true;
      }
      return true;
    }
  }
  error(DiagId::WarpgroupTileUse, s.span,
        "warpgroup tile `" + m.expr(s.target).name.name +
            "` is assigned only by `wgmma`, by `convert` of an F32 warpgroup tile of its shape, "
            "or by a load from a shared slice in this version");
  return true;
}

} // namespace kina::sema
