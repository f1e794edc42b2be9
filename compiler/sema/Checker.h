//===- Checker.h - Internal state of the type checker ----------*- C++ -*-===//
//
// Private to compiler/sema. The Checker walks items, statements and
// expressions once, recording types and symbols; Fences.cpp then runs the
// async-copy typestate over the same AST using what the walk recorded.
// Expression rules live in CheckExpr.cpp, statements and items in Check.cpp.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "sema/Check.h"
#include "sema/Prover.h"
#include "target/Registry.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

namespace kina::sema {

struct MathFunction; // CheckExpr.cpp

using syntax::Expr;
using syntax::ExprId;
using syntax::ExprKind;
using syntax::Item;
using syntax::Module;
using syntax::Stmt;
using syntax::StmtId;
using syntax::StmtKind;

enum class BindingKind : uint8_t { Dim, Param, Result, Let, Shared, Register, LoopVar, DTypeName };

struct Binding {
  BindingKind kind;
  int symbol = -1; ///< index into CheckedProgram::symbolInfos
  Type type;       ///< tensors/tiles; Index values carry their DimExpr
};

/// Facts about the grid the current statement runs in.
struct GridContext {
  bool inBlockGrid = false;
  bool inWarpGrid = false;
  std::vector<DimExpr> blockGrid;
  std::vector<DimExpr> blockIds;
  std::vector<int64_t> warpGrid;
  std::vector<DimExpr> warpIds;
  /// `warpgroup_grid [G]` (warpgroups = G) and its `warpgroup_id` symbol.
  bool inWarpgroupGrid = false;
  int64_t warpgroups = 0;
  DimExpr warpgroupId;
  /// The role being checked (kNone outside one) and the warpgroup ranges
  /// of the roles of the current warpgroup grid so far.
  syntax::StmtId role = syntax::kNone;
  std::vector<std::pair<int64_t, int64_t>> roleRanges;
  /// wgmma statements of the current warpgroup grid, and its first
  /// wgmma_commit / wgmma_wait (which close or retire wgmma groups).
  int wgmmas = 0;
  Span firstGroupOp;
  /// A block holds a warp grid or a warpgroup grid: the first one seen.
  Span warpLevelGrid;
  bool warpLevelIsWarpgroup = false;
  /// `block_grid [...] cluster [...]`: the cluster extents (empty without one)
  /// and `cluster_rank`.
  std::vector<int64_t> cluster;
  DimExpr clusterRank;
  /// The block_grid statement being checked (persistent loops name its axes).
  syntax::StmtId blockGridStmt = syntax::kNone;
};

/// Per-item state while checking one kernel, tile function or host function.
/// Resource sums saturate at UINT64_MAX instead of wrapping below a limit.
inline uint64_t saturatingMul(uint64_t a, uint64_t b) {
  uint64_t out;
  return __builtin_mul_overflow(a, b, &out) ? UINT64_MAX : out;
}
inline uint64_t saturatingAdd(uint64_t a, uint64_t b) {
  uint64_t out;
  return __builtin_add_overflow(a, b, &out) ? UINT64_MAX : out;
}

struct ItemState {
  const Item *item = nullptr;
  int itemIndex = -1;
  std::set<std::string> capabilities;
  std::map<std::string, Span> capabilitySites; ///< first use of each capability
  uint64_t sharedBytes = 0;
  uint64_t registerBytesPerThread = 0;
  /// Each `shared` / `register` declaration and its cost (bytes per block,
  /// or bytes per thread), so resource errors point at the costliest ones.
  struct TileCost {
    std::string name;
    Span span;
    std::string type; ///< "F32 [128, 128]"
    uint64_t bytes = 0;
    bool shared = false;
  };
  std::vector<TileCost> tileCosts;
  unsigned threadsPerBlock = 0;
  /// The kernel is in the block-level form (BlockLevel.h).
  bool blockLevel = false;
  Span lastRequiresEnd; ///< where a new `requires` clause is inserted
  std::string indent = "    ";
  /// The sink and its size when the item's check began: the diagnostics of
  /// this item's own walk are those after it (Coverage.cpp skips kernels
  /// with errors; file-level ones such as duplicate names do not count).
  const DiagnosticSink *sinkAtStart = nullptr;
  size_t diagsAtStart = 0;
};

class Checker {
public:
  Checker(const Module &module, const CheckOptions &options, DiagnosticSink &sink);
  CheckedProgram run();

  // ---- shared helpers (Check.cpp) ----
  const Module &m;
  const CheckOptions &options;
  /// Inside a block-level `block_grid` body (BlockLevel.h).
  bool blockLevelBody = false;
  DiagnosticSink &sink;
  CheckedProgram program;
  SymbolTable &symbols;
  Prover prover;
  const target::TargetInfo *target = nullptr;

  std::vector<std::unordered_map<std::string, Binding>> scopes;
  std::unordered_map<std::string, int> itemsByName;
  std::vector<KernelSummary> itemSummaries; ///< by item index
  std::vector<int> itemCheckState;          ///< 0 unchecked, 1 in progress, 2 done
  std::vector<bool> selected; ///< by item index, with CheckOptions::onlyItems
  GridContext grid;
  ItemState *current = nullptr;
  /// The `a - b` whose left side is being checked when that is an
  /// application (`mul xr -1.0`): WrongArgumentCount explains the minus.
  syntax::ExprId minusAfterApplication = syntax::kNone;
  /// Names written right after a number (`1.0f`): reported as a suffix.
  std::set<syntax::ExprId> literalSuffixes;
  bool inTileSignature = false; ///< symbolic tile extents allowed (tile-function signatures)

  void pushScope() {
    scopes.emplace_back();
    prover.push();
  }
  void popScope() {
    scopes.pop_back();
    prover.pop();
  }
  const Binding *lookup(const std::string &name) const;
  int defineSymbol(const syntax::Ident &name, SymbolKind kind, std::string_view type);
  /// A symbol's printed type, only when the IDE tables are built.
  std::string symbolType(const Type &t) const {
    return options.ideTables ? typeStr(t) : std::string();
  }
  void bind(const syntax::Ident &name, Binding binding);
  void addReference(int symbol, Span span);

  /// Where error() reports; swapped for a scratch sink while a callee's
  /// signature is instantiated at a call site.
  DiagnosticSink *active = nullptr;
  Diagnostic &error(DiagId id, Span span, std::string message) {
    return active->report(id, span, std::move(message));
  }
  std::string str(const DimExpr &e) const { return symbols.str(e); }
  std::string typeStr(const Type &t) const { return printType(t, symbols); }
  void annotate(Span span, const Type &type, bool inlay);

  //===--- Proofs per access (issue 17 part 4; ProofHover.cpp) ------------===//
  /// Where the prover's facts come from: Context::setOrigin indexes this.
  struct FactOrigin {
    std::string text;      ///< Markdown, e.g. "`requires (K mod 16 = 0)`"
    bool atLaunch = false; ///< a `requires` clause: checked by the launch guard, not proved
  };
  std::vector<FactOrigin> factOrigins;
  /// Facts the prover is given while it lives come from `text` (only with
  /// the IDE tables: without them no origin is recorded).
  class Origin {
  public:
    Origin(Checker &c, const std::function<std::string()> &text, bool atLaunch = false);
    ~Origin() { c_.prover.setOrigin(saved_); }
    Origin(const Origin &) = delete;
    Origin &operator=(const Origin &) = delete;

  private:
    Checker &c_;
    int32_t saved_;
  };
  /// How the goals (`e >= 0`, `a <= b` as `b - a >= 0`...) were discharged:
  /// the origins of the facts in scope about their symbols, e.g.
  /// "from `requires (K mod 16 = 0)` (checked at launch) and `0 <= k < K / 16`
  /// (`for k`)"; "by arithmetic" when no fact bears on them.
  std::string dischargedBy(const std::vector<DimExpr> &goals);
  /// Appends a proof paragraph to the hover of the annotation at `span`
  /// (the last one pushed with that span), or adds one of type `type`.
  void annotateProof(Span span, const std::string &markdown, const std::string &type);
  void useCapability(const std::string &name, Span site);
  /// Fix-it that inserts `requires (fact)` after the item's last clause.
  void addRequiresFix(Diagnostic &d, const std::string &fact);

  // ---- items and statements (Check.cpp) ----
  void checkItem(int index);
  void checkSignature(const Item &item, ItemState &state);
  /// The hover text of an item's signature (its parameters must be bound).
  std::string printSignature(const Item &item);
  std::optional<Type> resolveType(syntax::TypeId id, bool isTileContext);
  void checkBlock(const std::vector<StmtId> &body);
  void checkStmt(StmtId id);
  void checkAssign(const Stmt &s);
  void checkCpAsync(const Stmt &s);
  void checkResources(const Item &item, ItemState &state);

  // ---- Hopper: warpgroups, roles, barriers, TMA, wgmma (CheckHopper.cpp) ----
  void checkWarpgroupGrid(StmtId id, const Stmt &s);
  void checkRole(StmtId id, const Stmt &s);
  /// arrive, wait, tma_load, wgmma, wgmma_commit, wgmma_wait, fence_proxy_async.
  void checkHopperStmt(const Stmt &s);
  /// `B[s]`: the barrier's type when `id` names a stage of a barrier ring
  /// provably in range (errors reported otherwise).
  std::optional<BarrierType> checkBarrierStage(ExprId id, const char *what);
  /// A tma_load destination or wgmma operand: like checkExpr, but a shared
  /// tile indexed by fewer indices than its rank keeps the trailing
  /// dimensions whole (`a_s[s]` is stage s of `a_s`).
  Type checkStagedOperand(ExprId id);
  /// Hover text of the grid's waits, arrives, copies and wgmma statements
  /// (TypeAnnotation::markdown), built only with IDE tables.
  void annotateProtocol(const Stmt &grid);
  /// `warpgroup_id` inside `warpgroup_grid`.
  Type checkWarpgroupId(ExprId id, const Expr &e);
  // ---- persistent kernels: TMA stores, warpgroup tile moves, clusters
  // (CheckPersistent.cpp) ----
  /// `block_grid [...] cluster [...]`: extents, divisibility, `cluster_rank`.
  void checkCluster(const Stmt &s);
  /// `cluster_rank` inside a clustered block_grid.
  Type checkClusterRank(ExprId id, const Expr &e);
  /// tma_store, tma_store_commit, tma_store_wait (inside a warpgroup grid).
  void checkTmaStore(const Stmt &s);
  /// What tma_load (`load`) and tma_store share: the shared side is a
  /// swizzle_128b tile of the global side's 16-bit type, the global side a
  /// 2-D box `t[r ..+ R, c ..+ C]` of the shared side's 2-D shape. Reports
  /// the first problem and returns false.
  bool checkTmaBox(const Stmt &s, bool load, const Type &shared, const Type &global);
  // ---- cluster multicast and cluster arrivals (CheckCluster.cpp) ----
  /// CTAs per cluster (1 without a cluster launch).
  int64_t clusterSize() const;
  /// Whether `e` depends on atom `a` (through opaque atoms and quotients).
  bool mentionsAtom(const DimExpr &e, solver::AtomId a) const;
  /// `multicast` / `arrive ... cluster`: a cluster launch and the
  /// capability; false (reported) without a cluster of 2 or more CTAs.
  bool checkClusterClause(const Stmt &s);
  /// The peers' multicast boxes tile the destination stage (obligation 2).
  void checkMulticastDestination(const Stmt &s);
  /// Loops and ifs around cluster operations are cluster-uniform (obligation
  /// 4), over the body of a clustered block_grid.
  void checkClusterUniform(const Stmt &blockGrid);
  /// An assignment that writes a warpgroup tile into a shared stage, or
  /// writes a warpgroup tile; false when it is neither (checkAssign's rules).
  bool checkWarpgroupMove(const Stmt &s);
  /// Register tiles declared inside `warpgroup_grid` may appear only where
  /// this is set (a wgmma accumulator, the value of a store to global).
  bool allowWarpgroupTile = false;
  /// Inside `wait ... round R`, `/` rounds toward minus infinity.
  bool floorDivision = false;
  // ---- masks and ragged edges (CheckMasked.cpp) ----
  /// The Index expression of a masked load or store being checked: its
  /// slices may end past the tensor's extents (checkIndex).
  ExprId maskedIndexExpr = syntax::kNone;
  /// The masked side of an assignment, the index tiles and select: true when
  /// the statement was handled (checkAssign returns).
  bool checkMaskedAssign(const Stmt &s);
  /// `out[...] <- atomic_add v` (CheckAtomics.cpp); false when s is no atomic.
  bool checkAtomicAssign(const Stmt &s);
  /// After checkAssign's rules: the placements and the fill of `masked`.
  /// False when an error was reported (checkAssign stops).
  bool checkMaskedSides(const Stmt &s, const Type &dst, const Type &value);
  /// `cp_async dst <- masked src[...]`: zeros past the edges, no fill value.
  bool checkMaskedCpAsync(const Stmt &s, const Type &src);
  /// `row_index` / `col_index` anywhere but an assignment's whole value.
  Type checkIndexTileName(ExprId id, const Expr &e);
  /// `select (a OP b) x y`.
  Type checkSelect(ExprId id, const Expr &e);
  /// MMA operands (CheckMmaOperands.cpp): the A operand (K0153 for a
  /// transposed shared A), the B operand (`transpose s` of a shared slice
  /// [N, K] types as [K, N] with transposed set), and the element type of
  /// a register A (K0770, fix-it `convert`).
  Type checkMmaA(ExprId id);
  Type checkMmaB(ExprId id, bool &transposed);
  bool checkMmaRegisterA(ExprId id, const Type &a, const Type &b);
  /// int8 `wmma_mma` / `dp4a_mma` operands: A a shared slice, B `transpose s`
  /// (K0154); false after reporting.
  bool checkMmaInt8Operands(const Expr &e, const Type &a, bool transposedB);
  /// The k of an int8 `wmma_mma` is a multiple of 32 (one m16n8k32 step; K0104).
  bool checkMmaInt8K(const Expr &e, const DimExpr &k);
  void checkCapabilities(const Item &item, ItemState &state);

  /// What a tile function's body needs of its own dims beyond its `requires`
  /// (`wmma_mma` on [TM, TN, TK] needs TM mod 16 = 0): proved at every call
  /// site instead of demanded as a clause, as C++ checks a template where it
  /// is instantiated.
  struct ImpliedRequirement {
    DimExpr value;   ///< over the function's dim symbols
    int64_t modulus; ///< value mod modulus = 0
    std::string why; ///< "its `wmma_mma` (k = `TK` must be a multiple of 16)"
    Span span;       ///< where the body needs it
  };
  std::unordered_map<int, std::vector<ImpliedRequirement>> impliedRequirements; ///< by item
  /// Each item's dim symbols by name, to instantiate implied requirements.
  std::unordered_map<int, std::vector<std::pair<std::string, solver::AtomId>>> itemDimAtoms;

  /// Loop variables in scope, innermost last (the fence analysis shifts them).
  std::vector<std::pair<StmtId, DimExpr>> loopVars;
  std::unordered_map<StmtId, DimExpr> loopVarOf; ///< every `for` statement's variable
  std::unordered_map<int, ExprId> letValues;     ///< let symbol -> its value expression
  /// `for v in (lo .. hi step S)` (CheckLoops.cpp). The variable is a symbol
  /// in [lo, hi); `ordinal` is a symbol for the iteration number, which
  /// `v / S` denotes when 0 <= lo < S. A persistent tile loop starts at
  /// `block_id d` and steps by that axis' grid extent: over all blocks it
  /// visits every value of [0, hi) exactly once (Coverage.cpp reads it so).
  struct StridedLoop {
    DimExpr var, start, end, step, ordinal;
    bool persistent = false;
    size_t axis = 0;                     ///< persistent: the block_grid axis d
    DimExpr blockId;                     ///< persistent: `block_id d`
    syntax::StmtId grid = syntax::kNone; ///< persistent: the block_grid
  };
  std::unordered_map<StmtId, StridedLoop> stridedLoops;
  /// `t / n` of a persistent tile variable with n dividing the step G: a
  /// symbol q = floor(t / n) (the tile pair of a cluster), by atom: the
  /// loop statement and n (CheckLoops.cpp).
  std::unordered_map<solver::AtomId, std::pair<StmtId, int64_t>> tilePairs;
  std::optional<DimExpr> tilePair(StmtId loopStmt, const StridedLoop &loop, int64_t n);
  /// Every loop variable's range [start, end), by the variable's atom.
  std::unordered_map<solver::AtomId, std::pair<DimExpr, DimExpr>> loopRanges;
  /// `x / E` and `x mod E` with a dimension-expression divisor E proved >= 1
  /// are fresh symbols (the solver divides by constants only), the same one
  /// for equal operands; their facts (0 <= r < E, 0 <= q, q < A when x < A*E)
  /// are assumed where they are built.
  struct IndexQuotient {
    solver::AtomId atom;
    DimExpr dividend, divisor;
    bool mod = false;
    std::optional<DimExpr> bound; ///< q < bound (quotients only)
  };
  std::vector<IndexQuotient> quotients;
  const IndexQuotient *quotientOf(solver::AtomId atom) const {
    for (const IndexQuotient &q : quotients)
      if (q.atom == atom)
        return &q;
    return nullptr;
  }
  /// The `for` statement (CheckLoops.cpp).
  void checkFor(StmtId id, const Stmt &s);
  /// `a / b`, `a mod b` of index values when they need more than constant
  /// division: a dimension-expression divisor, or a strided loop variable
  /// divided by its step. nullopt: the constant-divisor rule applies.
  std::optional<Type> indexQuotient(ExprId id, const Expr &e, const DimExpr &a, const DimExpr &b);
  /// `floor_div x n` with x < E (x's loop range ends at E, or x = y mod E)
  /// and E provably a multiple of n: assumes q < E / n, the integer rounding
  /// the solver's linear facts lose (CheckLoops.cpp).
  void boundFloorDiv(const DimExpr &x, int64_t n, const DimExpr &q);
  /// Proves e >= 1 or reports `id` at `span` with a `requires` fix-it.
  bool requirePositive(const DimExpr &e, Span span, DiagId id, const std::string &what);

  /// Every `block_grid`/`warp_grid` statement's id symbols and extents, so the
  /// passes that run after the walk (Analysis.h) can re-assume their ranges.
  struct GridIds {
    std::vector<DimExpr> ids;
    std::vector<DimExpr> extents;
    bool warps = false;
    /// First values of the ids (0 when empty): a `role` narrows
    /// `warpgroup_id` to [first, last + 1).
    std::vector<DimExpr> starts;
  };
  std::unordered_map<StmtId, GridIds> gridOf;

  /// The type recorded for an expression (Error when none was).
  const Type &typeOf(ExprId id) const;
  /// Forgets the expression types of the items checked so far when nobody
  /// will read them (no IDE tables): the next item reuses their memory.
  void dropExprTypes();
  /// Without IDE tables, expression types live in pages of kTypePage
  /// instead of program.exprTypes (one Type per expression of the module):
  /// a page is taken on first use and cleared and given back after each
  /// top-level item, so a few pages serve the whole file.
  static constexpr size_t kTypePage = 256;
  std::vector<std::unique_ptr<Type[]>> typePages; ///< by ExprId / kTypePage
  std::vector<size_t> usedTypePages;
  std::vector<std::unique_ptr<Type[]>> spareTypePages; ///< every slot Error
  std::vector<ExprId> typedExprs; ///< slots written since the last drop

  Type resolveTypeQuiet(syntax::TypeId id);
  bool sameType(const Type &a, const Type &b) const;
  void checkCopyAlignment(const Stmt &s, const Type &src);
  std::optional<DimExpr> exprValueOrNull(ExprId id) const;

  // ---- expressions (CheckExpr.cpp) ----
  Type checkExpr(ExprId id);
  Type checkIndex(ExprId id, const Expr &e);
  Type checkBinary(ExprId id, const Expr &e);
  Type checkApplication(ExprId id, const Expr &e);
  /// The math builtins (he; docs/math.md).
  Type checkMath(ExprId id, const Expr &e, const struct MathFunction &mf);
  /// Host-level activations, normalisations and row-broadcast binaries
  /// (host, CheckHost.cpp); nullopt when `e` is none of them.
  std::optional<Type> checkHostOp(ExprId id, const Expr &e);
  Type checkHostOpTyped(const Expr &e);
  /// Hover: the op's type and what pass A runs it on (CheckHost.cpp).
  void annotateHostOp(const Expr &e, const Type &r);
  /// An elementwise op whose first operand is a warpgroup tile (he).
  Type checkWarpgroupElementwise(const Expr &e, const std::string &f, const Type &x, const Type *y);
  /// Broadcasting and reductions of per-warp tiles (bcast; CheckBroadcast.cpp).
  Type checkBroadcastSlice(const Expr &e, const std::string &f, const Type &x, const Type &y);
  Type checkColumnReduction(const Expr &e, const std::string &f, const Type &x);
  Type checkBlockReduction(ExprId id, const Expr &e);
  Type checkCall(ExprId id, const Expr &e, int calleeItem);
  // ---- devices, meshes and sharding (CheckMesh.cpp, issue 19) ----
  /// The device index and sharding of type `t` into `tt` (K0443, K0444).
  bool resolveMesh(const syntax::TypeRef &t, TensorType &tt, bool isDeviceContext);
  /// The device and mesh rules of host-level operation `e`, whose operands
  /// passed the placement, shape and dtype checks and whose result is `r`:
  /// sets r's device and sharding, or reports K0440-K0442.
  Type meshRules(const Expr &e, Type r);
  /// `all_reduce x`, `all_gather x`, `reduce_scatter x` (K0445).
  Type checkCollective(ExprId id, const Expr &e);
  /// A returned value: partial sums are all-reduced first.
  Type reducedForReturn(Type t);
  /// `host`, `cuda:global(1)`, `Sharded(dim=1, mesh=[0, 1])`.
  std::string placeStr(const TensorType &t) const;
  /// Whether tile function `from` calls item `to`, directly or through other
  /// tile functions (on the syntax: independent of checking order).
  bool tileFunctionReaches(int from, int to);
  std::vector<std::vector<int>> callGraph; ///< tile-function callees by item, built lazily
  Type record(ExprId id, Type t);
  /// An Index-typed subexpression's symbolic value, or nullopt after an error.
  std::optional<DimExpr> indexValue(ExprId id);
  std::optional<int64_t> constantIndex(ExprId id, const char *what);
  /// K0708 (with a `convert` fix-it) when `id`, of type `t`, is a
  /// non-constant index value used where a scalar of `want` is expected.
  bool requireScalar(ExprId id, const Type &t, DType want);
  /// A scalar operand of an op on `tile` elements (K0708 for an index; K0701
  /// for a typed scalar of another dtype or a float literal on integers).
  /// `what` reads "`add` computes on".
  bool requireScalarOperand(ExprId id, const Type &t, DType tile, const std::string &what);
  /// K0701 when the integer constant v (a scalar of element type `want`)
  /// is outside that type's range.
  bool integerConstantFits(ExprId id, int64_t v, DType want);
  bool isLiteralScalar(ExprId id) const;
  /// Proves `e` exactly divisible by n or reports K0201 at `span`.
  bool requireExactDivision(const DimExpr &e, int64_t n, Span span, const std::string &what);
};

/// The async-copy fence typestate over a checked kernel (Fences.cpp).
/// Returns the spans of the reads it reported.
std::vector<Span> checkFences(Checker &checker, const Item &item);
/// Reads of shared tiles that nothing has written yet (SharedInit.cpp);
/// reads at `skip` (already reported by the typestate) are not reported.
void checkSharedInit(Checker &checker, const Item &item, std::vector<Span> skip);
/// `block_sync` and `cp_async` under warp-dependent control (Divergence.cpp).
void checkDivergence(Checker &checker, const Item &item);
/// Broadcasting (CheckBroadcast.cpp): y is an [R, 1] column or a [1, C] row
/// of the 2-D shape x; `block_sum`/`block_max` and whether an expression or
/// a statement's value or target evaluates one.
bool isBroadcastOf(const std::vector<DimExpr> &y, const std::vector<DimExpr> &x);
bool isBlockReductionName(const std::string &f);
bool exprHasBlockReduction(const syntax::Module &m, syntax::ExprId id);
bool stmtHasBlockReduction(const syntax::Module &m, const syntax::Stmt &s);
/// Reads of register tiles before anything is assigned to them (RegisterInit.cpp).
void checkRegisterInit(Checker &checker, const Item &item);
/// 16-byte alignment of cp.async destinations and ldmatrix operands
/// against the shared layout codegen uses (Alignment.cpp).
void checkSharedAlignment(Checker &checker, const Item &item);
/// The union of the result stores covers the result, and no two warps or
/// blocks store different values into one element (Coverage.cpp).
void checkResultCoverage(Checker &checker, const Item &item);

/// The Hopper barrier / TMA / wgmma protocol of every warpgroup_grid and
/// the register budgets of its roles (ProtocolExtract.cpp, Protocol.h).
void checkProtocols(Checker &checker, const Item &item);

/// What code generation cannot lower (target/Lowerable.h), reported at the
/// user's span: element types, register tile shapes (declared and of every
/// tile-valued expression), transposes, tile ranks and slicing, `fill` of
/// shared tiles, `return` placement, instructions the target lacks
/// (CheckLowerable.cpp).
void checkLowerable(Checker &checker, const Item &item);
/// The part of the lowerability judgement about wgmma groups in flight
/// across loop back edges (K0111), run after the protocol proofs.
void checkWgmmaLoops(Checker &checker, const Item &item);

/// The base name of `x`, `x[...]`, `(x)`, or nullptr.
const Expr *baseNameOf(const Module &m, ExprId id);

} // namespace kina::sema
