//===- Analysis.h - IDE features as plain data over the query core -*- C++ -*-===//
//
// The kina_ide-style API the language server binds to (clangd's ClangdServer
// + feature functions, rust-analyzer's `ide` crate). Everything here speaks
// Kina terms: URIs are opaque keys, positions are byte offsets and kina::Span
// in the file's current text, diagnostics are kina::Diagnostic. No JSON, no
// LSP names, no UTF-16: the server converts (Server.cpp, Protocol.h).
//
// Layers under it: kina_query (inputs and memoized queries), kina_diag; the
// compiler core (kina::syntax::parse, kina::sema::check) is wired in as it
// lands, feature by feature (each TODO below names the function it will call).
// Until then the features that need no checker work for real from a lexical
// scan (LexicalScan.h): folding ranges, document symbols, semantic tokens of
// keywords/literals/comments, keyword/dtype/placement completion, code lenses
// on kernels, bracket diagnostics with a fix-it (hence code actions).
//
// Threading: Analysis's mutators (setFile, closeFile, setTarget) are called by
// ONE writer thread (the server's main thread). Readers call snapshot() on any
// thread and use the AnalysisSnapshot on that thread only. Every snapshot
// method may throw kina::query::Cancelled: when the snapshot's token was
// cancelled, or when the writer changed an input meanwhile (the caller then
// retries on a new snapshot or drops the result).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Diagnostic.h"
#include "diag/Source.h"
#include "query/Cancellation.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kina::lsp {

struct AnalysisOptions {
  /// The target used when the client configures none (`kina.target`).
  std::string defaultTarget = "sm_80";
  /// Keep a log of query executions (tests; see takeQueryExecutions).
  bool recordQueryExecutions = false;
};

/// A span in some file.
struct FileSpan {
  std::string uri;
  Span span;
};

struct HoverInfo {
  Span span;            ///< what the hover is about
  std::string markdown; ///< rendered contents
};

struct InlayHintInfo {
  uint32_t offset; ///< the hint is shown after this byte
  std::string label;
  bool isType = true; ///< otherwise a parameter-name hint
};

/// Token types, in the order of the legend the server advertises.
enum class SemanticTokenType : uint32_t {
  Keyword,
  Type,
  Function,
  Variable,
  Parameter,
  Number,
  Comment,
  Operator,
  EnumMember, ///< placements and dtypes
  Macro,      ///< primitive ops (cp_async, block_sync, ...)
};
enum SemanticTokenModifier : uint32_t {
  ModDeclaration = 1u << 0,
  ModReadonly = 1u << 1,
  ModDefaultLibrary = 1u << 2,
};
struct SemanticToken {
  Span span; ///< never spans a line break
  SemanticTokenType type;
  uint32_t modifiers = 0;
  bool operator==(const SemanticToken &) const = default;
};

enum class SymbolCategory { Kernel, TileFunction, HostFunction, Variable, SharedTile, RegisterTile };
struct SymbolInfo {
  std::string name;
  std::string detail;
  SymbolCategory category;
  Span span;      ///< the whole item
  Span selection; ///< the name
  std::vector<SymbolInfo> children;
  bool operator==(const SymbolInfo &) const = default;
};

struct FoldInfo {
  Span span;
  bool isComment = false;
  bool operator==(const FoldInfo &) const = default;
};

enum class CompletionCategory { Keyword, PrimitiveOp, DType, Placement, Capability, Name };
struct CompletionEntry {
  std::string label;
  CompletionCategory category;
  std::string detail;
};

struct SignatureInfo {
  std::string label;
  std::vector<std::string> parameters; ///< substrings of label
  std::string documentation;
  uint32_t activeParameter = 0;
};

struct RenameResult {
  std::vector<std::pair<std::string, FixIt>> edits; ///< uri, edit
  std::string error;                                ///< non-empty: refused, and why
};

/// A quick fix built from one diagnostic's fix-it.
struct QuickFix {
  std::string title;
  Diagnostic diagnostic; ///< the diagnostic it fixes
  std::vector<FixIt> edits;
};

/// A kernel, for code lenses and kernel-scoped requests.
struct KernelInfo {
  std::string name;
  Span span;     ///< whole item
  Span nameSpan; ///< the name
};

enum class ArtifactKind { Ptx, Sass, TileIR, RegisterReport };

/// A generated artifact, or why there is none.
struct ArtifactResult {
  bool ok = false;
  std::string kernel;
  std::string target;
  std::string text;  ///< the artifact when ok
  std::string error; ///< the reason when !ok
};

struct RunResult {
  bool ok = false;
  std::string output; ///< e.g. timing and correctness summary
  std::string error;
};

class AnalysisSnapshot;

/// The analysis database. Owns the query engine; see the file comment for
/// the threading contract.
class Analysis {
public:
  explicit Analysis(AnalysisOptions options = {});
  ~Analysis();
  Analysis(const Analysis &) = delete;
  Analysis &operator=(const Analysis &) = delete;

  // ---- writer (one thread) ----
  /// Sets a document's text and version; cancels in-flight reads.
  void setFile(const std::string &uri, std::shared_ptr<const SourceFile> file, int64_t version);
  /// Forgets a document and drops its memoized values.
  void closeFile(const std::string &uri);
  /// Sets `kina.target` (empty: back to the default).
  void setTarget(const std::string &target);

  // ---- readers (any thread) ----
  std::unique_ptr<AnalysisSnapshot> snapshot(query::CancellationToken token = {});

  /// "query(key)" per execution since the last call, when
  /// AnalysisOptions::recordQueryExecutions is set (for tests).
  std::vector<std::string> takeQueryExecutions();

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

/// A consistent view at one revision. All methods may throw query::Cancelled.
/// Methods on a URI that is not open return empty results.
class AnalysisSnapshot {
public:
  ~AnalysisSnapshot();

  std::shared_ptr<const SourceFile> file(const std::string &uri);
  std::optional<int64_t> version(const std::string &uri);
  std::string target();

  /// Every diagnostic of the file, sorted: kina::sema::analyze's (parse +
  /// check) when kina_sema is built, else the interim lexical bracket checks.
  /// TODO(kina::sema per-item API): per-kernel check queries.
  std::vector<Diagnostic> diagnostics(const std::string &uri);

  /// With kina_sema: on a kernel name its signature, capabilities and
  /// resource estimates; on a symbol its type; on any expression the
  /// innermost annotated type (placement, tile shape included). Then the
  /// catalogue entry of a diagnostic under the cursor. TODO(kina::codegen,
  /// kina::target): register report and a PTX excerpt on kernel names.
  std::optional<HoverInfo> hover(const std::string &uri, uint32_t offset);

  /// Inferred tile shapes of slices, MMA results and `let` bindings
  /// (kina::sema annotations with `inlay`), placed after the expression.
  std::vector<InlayHintInfo> inlayHints(const std::string &uri, Span range);

  /// Sorted, non-overlapping tokens. Today lexical (keywords, numbers,
  /// comments, operators, primitive ops, dtypes, placements, item names).
  /// TODO(kina::sema::check → symbol kinds of identifiers).
  std::vector<SemanticToken> semanticTokens(const std::string &uri);

  /// From kina::sema's symbol table (same file; TODO: cross-file once Kina
  /// has imports).
  std::vector<FileSpan> definition(const std::string &uri, uint32_t offset);
  std::vector<FileSpan> references(const std::string &uri, uint32_t offset,
                                   bool includeDeclaration);
  RenameResult rename(const std::string &uri, uint32_t offset, const std::string &newName);

  /// Items and their shared/register declarations (lexical today;
  /// TODO(kina::syntax::parse → Module items)).
  std::vector<SymbolInfo> documentSymbols(const std::string &uri);
  /// Multi-line bracket blocks and comment runs.
  std::vector<FoldInfo> foldingRanges(const std::string &uri);

  /// Keywords, primitive ops, dtypes, placements. TODO(kina::sema names in
  /// scope; kina::target capabilities valid for target()).
  std::vector<CompletionEntry> completion(const std::string &uri, uint32_t offset);
  /// TODO(kina::sema builtin signatures of primitive ops and tile functions).
  std::optional<SignatureInfo> signatureHelp(const std::string &uri, uint32_t offset);

  /// Fix-its of the diagnostics that overlap `range`.
  std::vector<QuickFix> quickFixes(const std::string &uri, Span range);

  /// The kernels of the file (for code lenses).
  std::vector<KernelInfo> kernels(const std::string &uri);
  /// The kernel whose item contains `offset`, if any.
  std::optional<KernelInfo> kernelAt(const std::string &uri, uint32_t offset);

  /// TODO(kina::codegen::emitPtx / nvdisasm / Tile IR writer /
  /// kina::target register report), cached in a query::ArtifactCache by
  /// (content hash, target, kind). Today: ok=false with the reason.
  ArtifactResult artifact(const std::string &uri, const std::string &kernel, ArtifactKind kind,
                          const std::string &target);

  /// Builds and runs `kernel` (explicit request only). `progress` receives
  /// human-readable steps; the token of the snapshot cancels it.
  /// TODO(kina::runtime launch + CPU reference check). Today: ok=false.
  RunResult run(const std::string &uri, const std::string &kernel, const std::string &target,
                const std::function<void(const std::string &)> &progress);

private:
  std::optional<HoverInfo> semanticHover(const std::string &uri, uint32_t offset);
  friend class Analysis;
  struct State;
  explicit AnalysisSnapshot(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

} // namespace kina::lsp
