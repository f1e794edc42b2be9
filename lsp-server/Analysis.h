//===- Analysis.h - IDE features as plain data over the query core -*- C++ -*-===//
//
// The kina_ide-style API the language server binds to (clangd's ClangdServer
// + feature functions, rust-analyzer's `ide` crate). Everything here speaks
// Kina terms: URIs are opaque keys, positions are byte offsets and kina::Span
// in the file's current text, diagnostics are kina::Diagnostic. No JSON, no
// LSP names, no UTF-16: the server converts (Server.cpp, Protocol.h).
//
// Layers under it: kina_query (inputs and memoized queries), kina_diag, and,
// when they are part of the build, kina_sema (checked item by item,
// ItemCheck.h) and kina_lower + kina_codegen + kina_target (artifacts,
// Artifacts.h). Features that need no checker come from a lexical scan
// (LexicalScan.h): folding ranges, document symbols, semantic tokens of
// keywords/literals/comments, code lenses on kernels.
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
#include "target/LineMap.h"
#include "target/Registry.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kina::lsp {

struct AnalysisOptions {
  /// The target used when the client configures none (`kina.target`).
  std::string defaultTarget = std::string(target::defaultTargetName());
  /// Keep a log of query executions (tests; see takeQueryExecutions).
  bool recordQueryExecutions = false;
  /// The `kina` driver for kina/run (`kina.path`); empty: search (KernelRun.h).
  std::string kinaPath;
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
  std::string text;    ///< the artifact when ok
  std::string error;   ///< the reason when !ok
  std::string json;    ///< RegisterReport: kina::target::resourceReportToJson, one line
  std::string summary; ///< RegisterReport: registers, spills, occupancy in one paragraph
  size_t bytes() const { return text.size() + json.size() + summary.size() + error.size(); }
};

/// What `kina run` did (the run happened; `error` is empty) or why it could
/// not start (`error`).
struct RunResult {
  bool ok = false;       ///< the driver ran to its end (whatever its verdict)
  int exitCode = -1;     ///< 0 passed, 77 skipped (no CUDA device), else failed
  std::string status;    ///< "passed", "skipped" or "failed"
  std::string output;    ///< the driver's stdout + stderr
  std::string command;   ///< the command line that ran
  std::map<std::string, int64_t> dims; ///< the dimension values used
  std::string error;
};

/// kina/linesAt: the instructions of the statement under the cursor in the
/// cached PTX and SASS of its kernel (LineViews.h); nothing is built.
struct LinesAtResult {
  std::string kernel; ///< empty: the cursor is in no kernel
  std::string target;
  uint32_t first = 0, last = 0; ///< the statement's Kina lines, 1-based; 0: none
  bool ptxCached = false, sassCached = false;
  std::vector<uint32_t> ptxLines;  ///< 1-based lines of the kina/ptx text
  std::vector<uint32_t> sassLines; ///< 1-based lines of the kina/sass text
  uint32_t ptxFocus = 0, sassFocus = 0; ///< where a view scrolls (LineViews.h focusLine); 0: none
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
  /// Sets `kina.backend`: "ptx" (the default) or "tileir", as `kina check
  /// --backend`. The caller validates the name (fromJSON(KinaSettings)).
  void setBackend(const std::string &backend);
  /// Sets `kina.path` (empty: search for the driver).
  void setKinaPath(const std::string &path);
  /// Returns freed heap memory to the system (after a burst of analyses).
  static void trimMemory();
  /// Cached per-item check results of `uri` (tests, memory accounting).
  size_t cachedItemResults(const std::string &uri);

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
  std::string backend();

  /// Every diagnostic of the file, sorted: equal to kina::sema::analyze's
  /// (parse + check), computed item by item (ItemCheck.h) when kina_sema is
  /// built, else the interim lexical bracket checks.
  std::vector<Diagnostic> diagnostics(const std::string &uri);
  /// The same, shared with the analysis (no copy; never null).
  std::shared_ptr<const std::vector<Diagnostic>> sharedDiagnostics(const std::string &uri);
  /// How many items the last check of `uri` re-checked and reused.
  std::pair<unsigned, unsigned> itemCheckCounts(const std::string &uri);

  /// With kina_sema: on a kernel name its signature, capabilities and
  /// resource estimates, plus registers/spills/occupancy and a PTX excerpt
  /// when those artifacts are already cached (hover never builds: it says
  /// to run "Register report" / "Show PTX" instead); on a symbol its type;
  /// on any expression the innermost annotated type (placement, tile shape
  /// included). Then the catalogue entry of a diagnostic under the cursor.
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

  /// Inside `requires capability(`: target names first, then the
  /// capabilities target() has (kina::target registry). Elsewhere: names in
  /// scope at `offset` (kina::sema symbols of the enclosing item defined
  /// before it, and the file's items), keywords, primitive ops, dtypes,
  /// placements.
  std::vector<CompletionEntry> completion(const std::string &uri, uint32_t offset);
  /// The primitive op or item applied around `offset` (Signatures.h).
  std::optional<SignatureInfo> signatureHelp(const std::string &uri, uint32_t offset);

  /// Fix-its of the diagnostics that overlap `range`.
  std::vector<QuickFix> quickFixes(const std::string &uri, Span range);

  /// The kernels of the file (for code lenses).
  std::vector<KernelInfo> kernels(const std::string &uri);
  /// The kernel whose item contains `offset`, if any.
  std::optional<KernelInfo> kernelAt(const std::string &uri, uint32_t offset);

  /// Tile IR, PTX, SASS or the register report of `kernel` for `target`
  /// (empty: target()), built in process (Artifacts.h) on this call only and
  /// cached in a query::ArtifactCache by (content hash of the file, target,
  /// kind + kernel). Blocks for the build (seconds) on a miss.
  ArtifactResult artifact(const std::string &uri, const std::string &kernel, ArtifactKind kind,
                          const std::string &target);

  /// Runs `kernel` with `kina run --check` as a child process (KernelRun.h)
  /// on this buffer's text (explicit request only). `dims` override the
  /// defaults (each dimension: the least common multiple of its `requires
  /// (D mod n = 0)` moduli, scaled up to at least 1024). `progress` gets the
  /// steps and the driver's output lines. The snapshot's token kills the
  /// child and then throws query::Cancelled; edits meanwhile do not.
  RunResult run(const std::string &uri, const std::string &kernel, const std::string &target,
                const std::map<std::string, int64_t> &dims,
                const std::function<void(const std::string &)> &progress);

  /// The remarks (K0850, K0851) of the cached cubin builds of the file's
  /// kernels for the configured target, for this exact text; empty when
  /// none was built (Register report / Show SASS build one).
  std::vector<Diagnostic> buildRemarks(const std::string &uri);
  /// The statement under the cursor and its lines in the cached listings.
  LinesAtResult linesAt(const std::string &uri, uint32_t offset);
  /// The Kina line (1-based) of the instruction on 1-based `listingLine` of
  /// the cached PTX or SASS of `kernel`; nullopt when uncached or unmapped.
  std::optional<uint32_t> sourceLineOf(const std::string &uri, const std::string &kernel,
                                       ArtifactKind kind, uint32_t listingLine);

private:
  std::optional<HoverInfo> semanticHover(const std::string &uri, uint32_t offset);
  /// The PTX/SASS of the statement under the cursor, from the cache only.
  std::string statementCode(const std::string &uri, uint32_t offset, Span &line);
  /// The line map of a cached PTX/SASS artifact (itself cached); null if uncached.
  std::shared_ptr<const target::LineMap>
  cachedLineMap(const std::string &uri, const std::string &kernel, ArtifactKind kind);
  /// Registers/spills/occupancy and a PTX excerpt of `kernel`, from the
  /// artifact cache only (markdown; a hint to compute them when absent).
  std::string builtKernelFacts(const std::string &uri, const std::string &kernel);
  friend class Analysis;
  struct State;
  explicit AnalysisSnapshot(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

} // namespace kina::lsp
