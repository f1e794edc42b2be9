//===- Check.h - The Kina type checker --------------------------*- C++ -*-===//
//
// Checks a parsed Module: names, shapes, divisibility, bounds (through the
// refinement solver), placement, capabilities (through the target registry),
// dtypes, effects, resources and async-copy fence typestate. It reports every
// independent error and records, for the IDE, the inferred type of every
// expression and every symbol's definition and uses.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Diagnostic.h"
#include "sema/Types.h"
#include "syntax/Ast.h"
#include "target/Registry.h"

#include <memory>
#include <string>
#include <vector>

namespace kina::sema {

/// What the IDE shows for one expression or binding.
struct TypeAnnotation {
  Span span;
  std::string type;  ///< printed type, e.g. `Tile[F32, [64, 64], on=cuda:register]`
  std::string shape; ///< printed shape for inlay hints, e.g. `[64, 16]`; may be empty
  bool inlay = false; ///< slices, MMA results and `let` bindings get inlay hints
  /// When set, hover shows this (Markdown) instead of the type: what a
  /// Hopper wait, arrive, tma_load or wgmma covers (CheckHopper.cpp).
  std::string markdown;
  bool proof = false; ///< carries a proof paragraph (CheckOptions::proofTables)
};

enum class SymbolKind : uint8_t { Item, Dim, Param, Result, Let, Shared, Register, LoopVar };

struct SymbolInfo {
  std::string name;
  SymbolKind kind;
  Span definition;
  std::vector<Span> references;
  std::string type;    ///< printed type
  int item = -1;       ///< owning item index (-1 for items themselves)
};

/// Per-kernel facts the backends and the IDE use.
struct KernelSummary {
  int item = -1;
  std::string name;
  std::vector<std::string> capabilities; ///< inferred, transitively
  std::vector<std::string> requiredCapabilities; ///< declared in `requires capability`
  std::string declaredTarget;
  uint64_t sharedBytes = 0;
  unsigned threadsPerBlock = 0;
  unsigned registerEstimate = 0;
  std::string signature; ///< printed signature for hover
};

struct CheckOptions {
  std::string target = std::string(target::defaultTargetName());
  /// "ptx" or "tileir": the block-level form's register B operand of
  /// `wmma_mma` is the Tile IR backend's (its mmaf takes values).
  std::string backend = "ptx";
  /// When non-empty, only these items (indices into Module::items) are
  /// checked and reported; their callees are still checked for capabilities
  /// but report nothing. The language server re-checks only edited kernels.
  std::vector<int> onlyItems;
  std::string_view sourceText; ///< for fix-its that keep the indentation
  /// Build what only the IDE reads: annotations, symbols' printed types and
  /// references, kernel signatures. Diagnostics do not depend on it.
  bool ideTables = true;
  /// Per-access proof hovers (ProofHover.cpp): each slice, index, exact
  /// division and cp.async wait gets the obligation it proved and the facts
  /// that discharged it (TypeAnnotation::proof). Off while typing: kina-lsp
  /// re-checks the one hovered item with it (the typing benchmark's memory
  /// and latency stay those of the checker without them).
  bool proofTables = false;
  /// Keep every expression's type in CheckedProgram::exprTypes (the lowering
  /// reads it). When false, types live in pages recycled item by item, as
  /// without ideTables: kina-lsp's item checks, where a table of one Type per
  /// expression of a 50,000-line module cost most of a keystroke.
  bool exprTypeTable = true;
  /// Report file-level diagnostics (duplicate item names). Of several
  /// checks that share out a file's items, exactly one reports them.
  bool fileDiagnostics = true;
};

/// The typed program: the AST plus side tables indexed by ExprId.
struct CheckedProgram {
  std::shared_ptr<SymbolTable> symbols;
  std::vector<Type> exprTypes;        ///< by ExprId
  std::vector<int> exprSymbol;        ///< by ExprId: index into `symbolInfos` or -1
  std::vector<SymbolInfo> symbolInfos;
  std::vector<TypeAnnotation> annotations;
  std::vector<KernelSummary> kernels;
  /// The `for` statements whose start < end the checker proved (the body
  /// runs at least once), for the lowering (ir::ForOp::runsAtLeastOnce).
  std::vector<syntax::StmtId> loopsThatRun;
};

CheckedProgram check(const syntax::Module &module, const CheckOptions &options,
                     DiagnosticSink &sink);

} // namespace kina::sema
