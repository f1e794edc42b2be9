//===- Alignment.cpp - 16-byte alignment of shared-memory chunk accesses --===//
//
// cp.async writes 16-byte chunks into shared memory, and ldmatrix (the shared
// operand loads of `wmma_mma`) reads 8 rows of 16 bytes; both fault on an
// address that is not 16-byte aligned. The source side of a copy is checked
// with the copy itself (Checker::checkCopyAlignment: row length, global row
// stride, column offset); this pass checks what only the shared layout
// decides, proved against the layout codegen really uses
// (codegen/Layout.cpp planLayout):
//   - every shared tile starts 128-byte aligned, and the stages of a staged
//     tile are `rows x cols x bytes` rounded up to 128 bytes apart, so tile
//     and stage offsets are always 16-byte aligned (nothing to prove);
//   - rows are `cols x bytes` apart (the XOR swizzle is used only when that is
//     a power-of-two number of 16-byte chunks, and it permutes whole chunks);
//   - so the element (r, c) of a view at (row0, col0) is 16-byte aligned for
//     every row r of the view iff `(row0 + r) * rowBytes + (col0 + c) * bytes`
//     is a multiple of 16: the column offset must be a multiple of 16 bytes,
//     and the row stride too unless the view is a single row at an aligned
//     row offset.
// A copy's source must also have contiguous rows: a point index in its
// innermost dimension makes the copied "rows" run down a column, which
// cp.async cannot express (codegen would copy 16 contiguous bytes anyway).
//
//===----------------------------------------------------------------------===//
#include "sema/Analysis.h"

#include <numeric>

namespace kina::sema {
namespace {

class AlignmentChecker {
public:
  explicit AlignmentChecker(Checker &c) : c_(c), m_(c.m) {}

  void run(const std::vector<StmtId> &body) {
    for (StmtId id : body)
      walkStmt(id);
  }

private:
  Checker &c_;
  const Module &m_;
  bool dp4a_ = false; ///< the operands being checked are dp4a_mma's (16-byte vectors)

  void walkStmt(StmtId id) {
    const Stmt &st = m_.stmt(id);
    FactScope facts(c_);
    switch (st.kind) {
    case StmtKind::BlockGrid:
    case StmtKind::WarpGrid:
      facts.grid(id);
      run(st.body);
      return;
    case StmtKind::For:
      facts.loop(id);
      run(st.body);
      return;
    case StmtKind::If: {
      exprs(st.value);
      {
        FactScope then(c_);
        then.branch(st.value, true);
        run(st.body);
      }
      FactScope otherwise(c_);
      otherwise.branch(st.value, false);
      run(st.elseBody);
      return;
    }
    case StmtKind::CpAsync:
      copy(st);
      exprs(st.value);
      return;
    default:
      exprs(st.value);
      exprs(st.target);
      return;
    }
  }

  /// Finds `wmma_mma` applications and checks their shared operands.
  void exprs(ExprId id) {
    if (id == syntax::kNone)
      return;
    const Expr &e = m_.expr(id);
    if (e.kind == ExprKind::Application &&
        (e.name.name == "wmma_mma" || e.name.name == "dp4a_mma") && e.children.size() == 3) {
      dp4a_ = e.name.name == "dp4a_mma";
      for (size_t i = 1; i < 3; ++i) {
        // A transposed B `transpose s` reads s's rows (CheckMmaOperands.cpp).
        ExprId op = e.children[i];
        while (m_.expr(op).kind == ExprKind::Paren)
          op = m_.expr(op).children[0];
        if (const Expr &oe = m_.expr(op); oe.kind == ExprKind::Application &&
                                          oe.name.name == "transpose" && oe.children.size() == 1)
          op = oe.children[0];
        view(op, /*copy=*/false);
      }
    }
    for (ExprId child : e.children)
      exprs(child);
  }

  void copy(const Stmt &st) {
    view(st.target, /*copy=*/true);
    sourceRows(st.value);
  }

  /// The shared tile and the start of each index of a view `t[...]` or `t`.
  struct View {
    std::string name;
    int symbol = -1;
    const TensorType *tile = nullptr;
    std::vector<std::optional<DimExpr>> starts; ///< per dimension
    std::vector<int64_t> lengths;               ///< 1 for a point index
    Span colSpan;                               ///< the last index
  };

  std::optional<View> sharedView(ExprId id) {
    const Expr &e = m_.expr(id);
    if (e.kind == ExprKind::Paren)
      return sharedView(e.children[0]);
    ExprId baseId = e.kind == ExprKind::Index ? e.children[0] : id;
    if (m_.expr(baseId).kind != ExprKind::Name)
      return std::nullopt;
    const Type &bt = c_.typeOf(baseId);
    if (!bt.isTensor() || bt.tensor.space != Space::Shared || bt.tensor.shape.empty())
      return std::nullopt;
    View v;
    v.name = m_.expr(baseId).name.name;
    v.symbol = c_.program.exprSymbol[baseId];
    v.tile = &bt.tensor;
    size_t rank = bt.tensor.shape.size();
    if (e.kind != ExprKind::Index) {
      for (size_t i = 0; i < rank; ++i) {
        v.starts.push_back(DimExpr::constant(0));
        v.lengths.push_back(bt.tensor.shape[i].constantValue().value_or(0));
      }
      v.colSpan = e.span;
      return v;
    }
    if (e.children.size() != rank + 1)
      return std::nullopt;
    for (size_t i = 0; i < rank; ++i) {
      const Expr &ix = m_.expr(e.children[i + 1]);
      if (ix.kind == ExprKind::Slice) {
        v.starts.push_back(c_.exprValueOrNull(ix.children[0]));
        auto len = c_.exprValueOrNull(ix.children[1]);
        v.lengths.push_back(len && len->constantValue() ? *len->constantValue() : 0);
      } else {
        v.starts.push_back(c_.exprValueOrNull(e.children[i + 1]));
        v.lengths.push_back(1);
      }
    }
    const Expr &last = m_.expr(e.children.back());
    v.colSpan = last.kind == ExprKind::Slice ? m_.expr(last.children[0]).span : last.span;
    return v;
  }

  void view(ExprId id, bool copy) {
    auto v = sharedView(id);
    if (!v)
      return;
    const TensorType &t = *v->tile;
    unsigned bytes = dtypeBytes(t.dtype);
    auto cols = t.shape.back().constantValue();
    if (bytes == 0 || 16 % bytes != 0 || !cols)
      return;
    int64_t per16 = 16 / bytes;
    int64_t rowBytes = *cols * bytes;
    // A copy whose own rows are not whole chunks is K0203 (checkCopyAlignment).
    if (copy && (v->lengths.back() * bytes) % 16 != 0)
      return;
    Span at = m_.expr(id).span;
    std::string who = copy    ? "`cp_async` writes 16-byte chunks"
                      : dp4a_ ? "`dp4a_mma` loads its operands in 16-byte vectors, which "
                                "need 16-byte aligned rows"
                              : "`wmma_mma` loads its operands with ldmatrix, which needs "
                                "16-byte aligned rows";
    // Rows of the view: the second-to-last dimension (a 1-D tile has one).
    size_t rank = t.shape.size();
    int64_t rows = rank >= 2 ? v->lengths[rank - 2] : 1;
    std::optional<DimExpr> row0 = rank >= 2 ? v->starts[rank - 2] : DimExpr::constant(0);
    bool tileRows = rank >= 2 && t.shape[rank - 2].constantValue().value_or(1) > 1;
    if (rowBytes % 16 != 0 && tileRows) {
      bool misaligned = rows > 1;
      if (!misaligned && row0) {
        int64_t need = 16 / std::gcd<int64_t>(rowBytes, 16);
        misaligned = !c_.prover.proveDivisible(*row0, need).proved();
      }
      if (misaligned) {
        std::string fix =
            "make the last extent of `" + v->name + "` a multiple of " + std::to_string(per16);
        Diagnostic &d =
            copy
                ? c_.error(
                      DiagId::MisalignedSharedAccess, at,
                      who + ", but the rows of `" + v->name + "` are " + std::to_string(rowBytes) +
                          " bytes apart (" + std::to_string(*cols) + " " + dtypeName(t.dtype) +
                          " elements): row 1 of the destination is not 16-byte aligned; " + fix)
                : c_.error(DiagId::MisalignedSharedAccess, at,
                           who + ", but the rows of `" + v->name + "` are " +
                               std::to_string(rowBytes) + " bytes apart (" + std::to_string(*cols) +
                               " " + dtypeName(t.dtype) + " elements); " + fix);
        if (v->symbol >= 0)
          d.label(c_.program.symbolInfos[v->symbol].definition,
                  "declared with " + std::to_string(rowBytes) + "-byte rows");
        return;
      }
    }
    const std::optional<DimExpr> &col0 = v->starts.back();
    if (col0 && !c_.prover.proveDivisible(*col0, per16).proved()) {
      std::string what = copy ? "destination column offset" : "column offset";
      c_.error(DiagId::MisalignedSharedAccess, v->colSpan,
               (copy ? std::string("`cp_async` writes 16-byte chunks")
                     : std::string(dp4a_ ? "`dp4a_mma` loads its operands in 16-byte vectors"
                                         : "`wmma_mma` loads its operands with ldmatrix in "
                                           "16-byte rows")) +
                   ": cannot prove the " + what + " `" + c_.str(*col0) + "` of `" + v->name +
                   "` is a multiple of " + std::to_string(per16));
    }
  }

  /// The source's innermost index must be a range (contiguous rows).
  void sourceRows(ExprId id) {
    const Expr &e = m_.expr(id);
    if (e.kind != ExprKind::Index || e.children.size() < 2)
      return;
    const Type &bt = c_.typeOf(e.children[0]);
    if (!bt.isTensor() || bt.tensor.space != Space::Global)
      return;
    const Expr &last = m_.expr(e.children.back());
    if (last.kind == ExprKind::Slice)
      return;
    c_.error(DiagId::MisalignedSharedAccess, last.span,
             "`cp_async` copies contiguous rows, but the innermost index of the source is the "
             "single element `" +
                 syntax::printExpr(m_, e.children.back()) +
                 "`: the rows of this copy are not contiguous in `" +
                 syntax::printExpr(m_, e.children[0]) + "`")
        .note("slice the innermost dimension (`i ..+ n`), or stage the data through registers");
  }
};

} // namespace

void checkSharedAlignment(Checker &checker, const Item &item) {
  AlignmentChecker a(checker);
  a.run(item.body);
}

} // namespace kina::sema
