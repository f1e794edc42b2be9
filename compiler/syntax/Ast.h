//===- Ast.h - The Kina abstract syntax tree --------------------*- C++ -*-===//
//
// The AST is lowered from tree-sitter's CST (grammar/grammar.js is the one
// syntax definition). Nodes live in arenas owned by a Module and refer to each
// other by index, so a 50,000-line file lowers without per-node allocation
// churn. Every node keeps its exact byte span. Nodes that the parser could not
// build are represented as Error expressions/statements so later layers can
// keep going and report every independent problem.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Source.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kina::syntax {

using ExprId = uint32_t;
using StmtId = uint32_t;
constexpr uint32_t kNone = UINT32_MAX;

struct Ident {
  std::string name;
  Span span;
  bool valid() const { return !name.empty(); }
};

enum class ExprKind : uint8_t {
  Name,        ///< identifier
  Integer,     ///< 128
  Float,       ///< 0.0
  Paren,       ///< ( e )
  Index,       ///< base[i, j]  (children: base, indices...)
  Slice,       ///< start ..+ length (only inside Index)
  Application, ///< f x y (name = f, children: arguments)
  Negate,      ///< -e
  Binary,      ///< a op b
  Error,       ///< unparsable expression
};

enum class BinaryOp : uint8_t { Add, Sub, Mul, Div, Mod, Eq, Ne, Lt, Le, Gt, Ge };

const char *binaryOpSpelling(BinaryOp op);

struct Expr {
  ExprKind kind = ExprKind::Error;
  BinaryOp op = BinaryOp::Add;
  Span span;
  Ident name;            ///< Name and Application (function name)
  int64_t intValue = 0;  ///< Integer
  double floatValue = 0; ///< Float
  std::vector<ExprId> children;
};

enum class StmtKind : uint8_t {
  BlockGrid, ///< block_grid [shape] [cluster [shape]] { body }
  WarpGrid,  ///< warp_grid [shape] { body }
  Let,       ///< let name = value in
  Shared,    ///< shared name : type
  Register,  ///< register name : type
  For,       ///< for name in (start .. end [step s]) { body }
  If,        ///< if cond { body } else { elseBody }
  CpAsync,   ///< cp_async target <- value
  Commit,    ///< cp_async_commit
  WaitAll,   ///< cp_async_wait_all
  WaitGroup, ///< cp_async_wait_group count
  BlockSync, ///< block_sync
  Assign,    ///< target <- value
  Return,    ///< return value
  // Hopper (sm_90a): warpgroups, roles, mbarriers, TMA, wgmma.
  WarpgroupGrid,   ///< warpgroup_grid [G] { body }
  Role,            ///< role name (warpgroup first [.. last]) [registers R] { body }
  Arrive,          ///< arrive barrier [expect_tx bytes | cluster]
  Wait,            ///< wait barrier round round
  TmaLoad,         ///< tma_load target <- value [multicast] completes barrier
  TmaStore,        ///< tma_store target <- value
  TmaStoreCommit,  ///< tma_store_commit
  TmaStoreWait,    ///< tma_store_wait count
  Wgmma,           ///< target <- wgmma value a b [zero_when (cond)]
  WgmmaCommit,     ///< wgmma_commit
  WgmmaWait,       ///< wgmma_wait count
  FenceProxyAsync, ///< fence_proxy_async
  Error,
};

enum class PlacementKind : uint8_t { None, Host, Global, Shared, Register };

struct Placement {
  PlacementKind kind = PlacementKind::None;
  Span span;
  ExprId device = kNone; ///< cuda:global(d)
};

enum class TypeKind : uint8_t { Tensor, Tile, Scalar, Barrier, Error };

enum class ShardingKind : uint8_t { None, Sharded, Replicated };

/// `Sharded(dim=1, mesh=[0, 1])` / `Replicated(mesh=[0, 1])` (issue 19).
struct ShardingRef {
  ShardingKind kind = ShardingKind::None;
  Span span;
  ExprId dim = kNone;       ///< Sharded: the integer literal
  std::vector<ExprId> mesh; ///< the device integer literals
  Span meshSpan;
};

struct TypeRef {
  TypeKind kind = TypeKind::Error;
  Span span;
  Ident dtype;
  std::vector<ExprId> shape;
  Span shapeSpan;
  ShardingRef sharding; ///< Tensor: issue 19's sharding refinement
  Placement placement;
  Ident layout;            ///< Tile: `layout=swizzle_128b` (empty when absent)
  ExprId stages = kNone;   ///< Barrier[stages, arrivals=A]
  ExprId arrivals = kNone; ///< Barrier
};

using TypeId = uint32_t;

struct Stmt {
  StmtKind kind = StmtKind::Error;
  Span span;
  Span keywordSpan;
  Ident name;          ///< Let, Shared, Register, For, Role
  TypeId type = kNone; ///< Shared, Register
  /// Assign, CpAsync, TmaLoad and TmaStore (destination), Wgmma (accumulator).
  ExprId target = kNone;
  /// Let, Assign, CpAsync, Return, If (condition), For (start), TmaLoad and
  /// TmaStore (source), Wgmma (the accumulator operand after `wgmma`).
  ExprId value = kNone;
  ExprId end = kNone;  ///< For (end)
  ExprId step = kNone; ///< For (`step s`; kNone for a unit step)
  int64_t count = 0;   ///< WaitGroup, WgmmaWait, TmaStoreWait, Role (registers; 0 = none)
  Span countSpan;      ///< WaitGroup, WgmmaWait, TmaStoreWait, Role (the registers integer)
  /// WgmmaWait, TmaStoreWait, Role: the count written as a tune parameter
  /// (`registers CREGS`); instantiation sets `count` (syntax/TuneParams.h).
  Ident countParam;
  /// Arrive, Wait, TmaLoad: the barrier stage `B[s]` (an Index expression, or
  /// a Name when the stage is missing).
  ExprId barrier = kNone;
  ExprId round = kNone;    ///< Wait
  ExprId expectTx = kNone; ///< Arrive (`expect_tx bytes`; kNone for a plain arrive)
  /// TmaLoad `multicast` (the box lands in every CTA of the cluster), Arrive
  /// `cluster` (one arrival on the stage in every CTA of the cluster); the
  /// keyword's span, empty when absent.
  bool multicast = false;
  bool clusterArrive = false;
  Span clauseSpan;
  ExprId first = kNone;      ///< Role: first warpgroup
  ExprId last = kNone;       ///< Role: last warpgroup (kNone for `(warpgroup i)`)
  ExprId operandA = kNone;   ///< Wgmma
  ExprId operandB = kNone;   ///< Wgmma
  ExprId zeroWhen = kNone;   ///< Wgmma (`zero_when (cond)`, a Paren; kNone when absent)
  std::vector<ExprId> shape; ///< BlockGrid, WarpGrid, WarpgroupGrid
  Span shapeSpan;
  /// BlockGrid: `cluster [C0, C1]` (empty when absent; clusterSpan then empty).
  std::vector<ExprId> cluster;
  Span clusterSpan;
  std::vector<StmtId> body; ///< grids, For, If, Role
  std::vector<StmtId> elseBody;
  bool hasElse = false;
  Span bodySpan;
  /// Assign (masks and ragged edges): `masked t[...] <- v` (targetMasked) and
  /// `x <- masked t[...] fill V` (valueMasked); target/value stay the Index
  /// expressions, so passes that do not care about the mask see a plain
  /// store/load. maskedSpan is the `masked` keyword; fill the fill value
  /// (kNone when absent), on either side as written.
  bool targetMasked = false;
  bool valueMasked = false;
  Span maskedSpan;
  ExprId fill = kNone;
};

struct Requirement {
  Span span;
  bool isCapability = false;
  ExprId condition = kNone;        ///< requires ( condition )
  Ident target;                    ///< requires capability(target, caps...)
  std::vector<Ident> capabilities;
};

struct Param {
  Span span;
  Ident name;
  bool isMutable = false;
  Span mutSpan;
  TypeId type = kNone;
};

/// `tune BM in {64, 128, 256} = 128` in a kernel header (issue 15): a
/// compile-time integer with its candidate values and its default. The
/// parsed module keeps the names; syntax/Tune.h instantiates an item at a
/// point (each use becomes an Integer, constant arithmetic folded).
struct TuneParam {
  Span span;
  Ident name;
  std::vector<int64_t> values;
  std::vector<Span> valueSpans;
  int64_t defaultValue = 0;
  Span defaultSpan; ///< empty when the parse lost the default
};

enum class ItemKind : uint8_t { Kernel, TileFunction, HostFunction };

struct Item {
  ItemKind kind = ItemKind::Kernel;
  Span span;
  Span keywordSpan;
  Ident name;
  std::vector<Ident> dims;
  Span dimsSpan;
  std::vector<Requirement> requirements;
  std::vector<Param> params;
  TypeId result = kNone;
  Ident resultName;   ///< `: (c : Tensor[...])`; empty for an unnamed result
  Span resultSpan;
  std::vector<StmtId> body;
  Span bodySpan;
  std::vector<TuneParam> tuneParams; ///< kernels only; empty: no lattice
};

/// One parsed file. Arenas own every node; ids index into them.
struct Module {
  std::vector<Item> items;
  std::vector<Expr> exprs;
  std::vector<Stmt> stmts;
  std::vector<TypeRef> types;
  /// Some statement writes its count as a name (Stmt::countParam).
  bool anyCountParam = false;

  const Expr &expr(ExprId id) const { return exprs[id]; }
  const Stmt &stmt(StmtId id) const { return stmts[id]; }
  const TypeRef &type(TypeId id) const { return types[id]; }
};

/// Renders an expression back to canonical Kina text (`block_m * 128 + 64`).
std::string printExpr(const Module &module, ExprId id);

} // namespace kina::syntax
