//===- Analysis.cpp - IDE features over the query core --------------------===//
//
// The analysis database: inputs (file text, version, target) and derived
// queries (lexical summary, diagnostics) in kina_query, and one function per
// feature reading them through a snapshot. See Analysis.h for the contract.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"

#include "Artifacts.h"
#include "ItemCheck.h"
#include "KernelRun.h"
#include "LexicalScan.h"
#include "LineViews.h"
#include "Signatures.h"
#include "query/ArtifactCache.h"
#include "query/Query.h"
#ifdef KINA_LSP_WITH_SEMA
#include "sema/Frontend.h"
#include "target/Registry.h"
#ifdef KINA_LSP_WITH_CODEGEN
#include "tileir/CheckFile.h"
#endif
#endif

#include <algorithm>
#include <cctype>
#include <malloc.h>
#include <map>
#include <mutex>
#include <numeric>
#include <set>

namespace kina::lsp {

namespace {

/// A file's text as a query input; equal when the text is equal (so a
/// didChange that restores the text re-executes nothing downstream).
struct FileText {
  std::shared_ptr<const SourceFile> file;
  bool operator==(const FileText &o) const {
    return file == o.file || (file && o.file && file->text() == o.file->text());
  }
};

/// Sorted; shared with the checked file (a large file's diagnostics are
/// not copied per keystroke). Equal when the diagnostics are.
struct DiagnosticList {
  std::shared_ptr<const std::vector<Diagnostic>> diags;
  bool operator==(const DiagnosticList &o) const {
    return diags == o.diags || (diags && o.diags && sameDiagnostics(*diags, *o.diags));
  }
};

const std::string kTargetKey = "target";
const std::string kBackendKey = "backend";

#ifdef KINA_LSP_WITH_SEMA
/// The parsed and checked file. Compared by identity: a re-execution counts
/// as a change (CheckedFile has no equality).
struct FrontendResult {
  std::shared_ptr<const CheckedFile> checked;
  /// kina.backend = "tileir": what the Tile IR half of the check adds
  /// (tileir/CheckFile.h), as `kina check --backend=tileir` does.
  std::shared_ptr<const std::vector<Diagnostic>> backendDiagnostics;
  bool operator==(const FrontendResult &o) const {
    return checked == o.checked && backendDiagnostics == o.backendDiagnostics;
  }
};
#endif

/// The artifact-cache kind of an artifact of `kernel`.
std::string artifactKindKey(ArtifactKind kind, const std::string &kernel) {
  static const char *names[] = {"ptx", "sass", "tileir", "registers"};
  return std::string(names[static_cast<int>(kind)]) + ":" + kernel;
}

bool spansOverlap(Span a, Span b) {
  if (a.empty() || b.empty())
    return a.begin <= b.end && b.begin <= a.end;
  return a.begin < b.end && b.begin < a.end;
}

} // namespace

struct Analysis::Impl {
  explicit Impl(AnalysisOptions options) : options(std::move(options)) {}

  AnalysisOptions options;
  query::Database db;
  query::Input<std::string, FileText> text{db, "fileText"};
  query::Input<std::string, int64_t> version{db, "fileVersion"};
  query::Input<std::string, std::string> target{db, "target"};
  query::Input<std::string, std::string> backend{db, "backend"};

  // Lexical facts, item by item (rust-analyzer's pattern): the file is cut
  // into top-level segments; a projection query per segment cuts off when
  // that segment's text is unchanged, so an edit inside one kernel re-scans
  // only that kernel. TODO(kina::syntax::parse): the same shape for
  // parse(uri) → item signatures → per-kernel check(kernel).
  query::Query<std::string, std::vector<Segment>> segments{
      db, "segments", [this](query::QueryContext &ctx, const std::string &uri) {
        auto t = ctx.get(text, uri);
        return t ? splitItems(t->file->text()) : std::vector<Segment>{};
      }};
  using SegmentKey = std::pair<std::string, uint32_t>;
  /// The text of segment i, plus whether it ends the file.
  query::Query<SegmentKey, std::pair<std::string, bool>> segmentText{
      db, "segmentText", [this](query::QueryContext &ctx, const SegmentKey &k) {
        auto all = ctx.get(segments, k.first);
        if (k.second >= all->size())
          return std::pair<std::string, bool>{};
        return std::pair<std::string, bool>{(*all)[k.second].text, k.second + 1 == all->size()};
      }};
  /// Segment-relative lexical summary.
  query::Query<SegmentKey, LexicalSummary> segmentScan{
      db, "segmentScan", [this](query::QueryContext &ctx, const SegmentKey &k) {
        auto t = ctx.get(segmentText, k);
        return scanLexically(SourceFile(k.first, t->first), t->second);
      }};
  /// The whole file's summary: the segments' summaries, shifted.
  query::Query<std::string, LexicalSummary> lexical{
      db, "lexical", [this](query::QueryContext &ctx, const std::string &uri) {
        LexicalSummary out;
        auto segs = ctx.get(segments, uri);
        for (uint32_t i = 0; i < segs->size(); ++i)
          appendShifted(out, *ctx.get(segmentScan, SegmentKey{uri, i}), (*segs)[i].begin);
        return out;
      }};

#ifdef KINA_LSP_WITH_SEMA
  /// Per-file caches of item check results (ItemCheck.h), outside the
  /// revision-based memo tables: they survive edits by design.
  std::mutex itemCachesMutex;
  std::map<std::string, std::shared_ptr<ItemCheckCache>> itemCaches;
  std::shared_ptr<ItemCheckCache> itemCache(const std::string &uri) {
    std::lock_guard<std::mutex> lock(itemCachesMutex);
    auto &c = itemCaches[uri];
    if (!c)
      c = std::make_shared<ItemCheckCache>();
    return c;
  }

  /// The file parsed whole and checked item by item: only the items whose
  /// text (or whose callees' text) changed are re-checked (ItemCheck.h).
  query::Query<std::string, FrontendResult> frontend{
      db, "frontend", [this](query::QueryContext &ctx, const std::string &uri) {
        auto t = ctx.get(text, uri);
        if (!t)
          return FrontendResult{};
        auto tg = ctx.get(target, kTargetKey);
        auto be = ctx.get(backend, kBackendKey);
        const std::string tgName = tg ? *tg : options.defaultTarget;
        const std::string beName = be ? *be : std::string("ptx");
        FrontendResult r{itemCache(uri)->check(t->file, tgName, beName), nullptr};
        if (beName == "tileir")
          r.backendDiagnostics = tileIrDiagnostics(*t->file, tgName, *r.checked);
        return r;
      }};

  /// The Tile IR half of `kina check --backend=tileir` on a file sema
  /// accepted: the file analysed whole for the program, then every kernel
  /// lowered to bytecode at the version tileiras would be asked for (one
  /// probe per target, kept: a keystroke must not start a process).
  std::shared_ptr<const std::vector<Diagnostic>>
  tileIrDiagnostics(const SourceFile &file, const std::string &target, const CheckedFile &checked) {
    auto out = std::make_shared<std::vector<Diagnostic>>();
#ifdef KINA_LSP_WITH_CODEGEN
    for (const Diagnostic &d : checked.diagnostics)
      if (d.severity() == Severity::Error)
        return out;
    sema::FrontendOptions fe;
    fe.target = target;
    fe.backend = "tileir";
    sema::Analysis analysis = sema::analyze(file, fe);
    std::optional<tileir::CheckVersion> version;
    if (auto t = tileir::parseTarget(target)) {
      std::lock_guard<std::mutex> lock(tileIrVersionsMutex);
      auto it = tileIrVersions.find(target);
      if (it == tileIrVersions.end())
        it = tileIrVersions.emplace(target, tileir::versionForCheck(*t)).first;
      version = it->second;
    }
    tileir::checkFileForTileIr(analysis, target, analysis.diagnostics, version);
    // What sema already reported is in `checked`; keep the Tile IR half.
    for (const Diagnostic &d : analysis.diagnostics) {
      const std::string_view code = d.info().code;
      if (code == "K1122" || code == "K1124" || code == "K1125")
        out->push_back(d);
    }
#else
    (void)file, (void)target, (void)checked;
#endif
    return out;
  }
  std::mutex tileIrVersionsMutex;
#ifdef KINA_LSP_WITH_CODEGEN
  std::map<std::string, std::optional<tileir::CheckVersion>> tileIrVersions;
#endif
#endif

  std::mutex kinaPathMutex;
  std::string kinaPath;

#ifdef KINA_LSP_WITH_CODEGEN
  // Artifacts, only on request, by (content hash, target, kind:kernel).
  query::ArtifactCache<KernelBuild> cubins{16, 64u << 20};
  query::ArtifactCache<ArtifactResult> artifacts{128, 64u << 20};
  // Line maps of cached PTX/SASS (LineViews.h), by the artifact's key + "-lines".
  query::ArtifactCache<target::LineMap> lineMaps{64, 32u << 20};
#endif

  /// All diagnostics of one file, sorted: the compiler's (parse + check)
  /// when kina_sema is linked in, else the interim lexical bracket checks.
  query::Query<std::string, DiagnosticList> diagnostics{
      db, "diagnostics", [this](query::QueryContext &ctx, const std::string &uri) {
#ifdef KINA_LSP_WITH_SEMA
        auto fe = ctx.get(frontend, uri);
        if (fe->checked && fe->backendDiagnostics && !fe->backendDiagnostics->empty()) {
          auto all = std::make_shared<std::vector<Diagnostic>>(fe->checked->diagnostics);
          all->insert(all->end(), fe->backendDiagnostics->begin(), fe->backendDiagnostics->end());
          sortDiagnostics(*all);
          return DiagnosticList{std::move(all)};
        }
        if (fe->checked) // sorted by ItemCheckCache::check
          return DiagnosticList{std::shared_ptr<const std::vector<Diagnostic>>(
              fe->checked, &fe->checked->diagnostics)};
        return DiagnosticList{std::make_shared<const std::vector<Diagnostic>>()};
#else
        auto all = std::make_shared<std::vector<Diagnostic>>(ctx.get(lexical, uri)->diagnostics);
        sortDiagnostics(*all);
        return DiagnosticList{std::move(all)};
#endif
      }};
};

struct AnalysisSnapshot::State {
  Analysis::Impl &impl;
  std::unique_ptr<query::Snapshot> snap;
  query::CancellationToken token; ///< the request's own (not revision changes)
};

Analysis::Analysis(AnalysisOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  impl_->db.setRecordExecutions(impl_->options.recordQueryExecutions);
  impl_->kinaPath = impl_->options.kinaPath;
}

void Analysis::setKinaPath(const std::string &path) {
  std::lock_guard<std::mutex> lock(impl_->kinaPathMutex);
  impl_->kinaPath = path;
}

void Analysis::trimMemory() { ::malloc_trim(0); }

size_t Analysis::cachedItemResults(const std::string &uri) {
#ifdef KINA_LSP_WITH_SEMA
  std::lock_guard<std::mutex> lock(impl_->itemCachesMutex);
  auto it = impl_->itemCaches.find(uri);
  return it == impl_->itemCaches.end() ? 0 : it->second->size();
#else
  (void)uri;
  return 0;
#endif
}

std::vector<std::string> Analysis::takeQueryExecutions() { return impl_->db.takeExecutions(); }
Analysis::~Analysis() = default;

void Analysis::setFile(const std::string &uri, std::shared_ptr<const SourceFile> file,
                       int64_t version) {
  // One revision bump (one cancellation of readers) per keystroke.
  impl_->db.write([&](query::Revision) {
    bool textChanged = impl_->text.set(uri, FileText{std::move(file)});
    bool versionChanged = impl_->version.set(uri, version);
    return textChanged || versionChanged;
  });
}

void Analysis::closeFile(const std::string &uri) {
  uint32_t segmentCount = 0;
  try {
    auto snap = impl_->db.snapshot();
    segmentCount = static_cast<uint32_t>(snap->get(impl_->segments, uri)->size());
  } catch (const query::Cancelled &) {
  }
  for (uint32_t i = 0; i < segmentCount; ++i) {
    impl_->segmentText.evict({uri, i});
    impl_->segmentScan.evict({uri, i});
  }
  impl_->db.write([&](query::Revision) {
    bool a = impl_->text.remove(uri);
    bool b = impl_->version.remove(uri);
    return a || b;
  });
  impl_->segments.evict(uri);
  impl_->lexical.evict(uri);
  impl_->diagnostics.evict(uri);
#ifdef KINA_LSP_WITH_SEMA
  impl_->frontend.evict(uri);
  std::lock_guard<std::mutex> lock(impl_->itemCachesMutex);
  impl_->itemCaches.erase(uri);
#endif
}

void Analysis::setTarget(const std::string &target) {
  impl_->target.set(kTargetKey, target.empty() ? impl_->options.defaultTarget : target);
}

void Analysis::setBackend(const std::string &backend) {
  impl_->backend.set(kBackendKey, backend.empty() ? std::string("ptx") : backend);
}

std::unique_ptr<AnalysisSnapshot> Analysis::snapshot(query::CancellationToken token) {
  auto state = std::make_unique<AnalysisSnapshot::State>(
      AnalysisSnapshot::State{*impl_, impl_->db.snapshot(token), token});
  return std::unique_ptr<AnalysisSnapshot>(new AnalysisSnapshot(std::move(state)));
}

AnalysisSnapshot::AnalysisSnapshot(std::unique_ptr<State> state) : state_(std::move(state)) {}
AnalysisSnapshot::~AnalysisSnapshot() = default;

std::shared_ptr<const SourceFile> AnalysisSnapshot::file(const std::string &uri) {
  auto t = state_->snap->get(state_->impl.text, uri);
  return t ? t->file : nullptr;
}

std::optional<int64_t> AnalysisSnapshot::version(const std::string &uri) {
  auto v = state_->snap->get(state_->impl.version, uri);
  return v ? std::optional<int64_t>(*v) : std::nullopt;
}

std::string AnalysisSnapshot::target() {
  auto t = state_->snap->get(state_->impl.target, kTargetKey);
  return t ? *t : state_->impl.options.defaultTarget;
}

std::string AnalysisSnapshot::backend() {
  auto b = state_->snap->get(state_->impl.backend, kBackendKey);
  return b ? *b : std::string("ptx");
}

std::vector<Diagnostic> AnalysisSnapshot::diagnostics(const std::string &uri) {
  return *sharedDiagnostics(uri);
}

std::shared_ptr<const std::vector<Diagnostic>>
AnalysisSnapshot::sharedDiagnostics(const std::string &uri) {
  return state_->snap->get(state_->impl.diagnostics, uri)->diags;
}

std::pair<unsigned, unsigned> AnalysisSnapshot::itemCheckCounts(const std::string &uri) {
#ifdef KINA_LSP_WITH_SEMA
  auto fe = state_->snap->get(state_->impl.frontend, uri);
  if (fe->checked)
    return {fe->checked->itemsChecked, fe->checked->itemsReused};
#else
  (void)uri;
#endif
  return {0, 0};
}

namespace {
bool spanHas(Span s, uint32_t offset) { return s.begin <= offset && offset <= s.end && !s.empty(); }

#ifdef KINA_LSP_WITH_SEMA
/// The proof hover at `offset` (issue 17 part 4): the item under the cursor
/// checked again with sema's proof tables, which the keystroke checks leave
/// off (they cost memory and time on every item of a file); the innermost
/// proof annotation there. One item's check: a few milliseconds.
std::optional<sema::TypeAnnotation> proofAt(const CheckedFile &p, const std::string &target,
                                            uint32_t offset) {
  const syntax::Module &m = p.module();
  int item = -1;
  for (size_t i = 0; i < m.items.size(); ++i)
    if (spanHas(m.items[i].span, offset))
      item = static_cast<int>(i);
  if (item < 0)
    return std::nullopt;
  sema::CheckOptions co;
  co.target = target;
  co.onlyItems = {item};
  co.exprTypeTable = false;
  co.fileDiagnostics = false;
  co.proofTables = true;
  DiagnosticSink scratch;
  sema::CheckedProgram prog = sema::check(m, co, scratch);
  const sema::TypeAnnotation *best = nullptr;
  for (const sema::TypeAnnotation &a : prog.annotations)
    if (a.proof && spanHas(a.span, offset) &&
        (!best || a.span.end - a.span.begin < best->span.end - best->span.begin))
      best = &a;
  if (!best)
    return std::nullopt;
  return *best;
}
#endif
} // namespace

std::optional<HoverInfo> AnalysisSnapshot::hover(const std::string &uri, uint32_t offset) {
  // What the code is (semanticHover), then the diagnostic under the cursor.
  std::optional<HoverInfo> info = semanticHover(uri, offset);
  Span line;
  if (std::string code = statementCode(uri, offset, line); !code.empty()) {
    if (info)
      info->markdown += "\n\n---\n\n" + code;
    else
      info = HoverInfo{line, code};
  }
  for (const Diagnostic &d : diagnostics(uri)) {
    Span s = d.span;
    if (s.begin <= offset && (offset < s.end || (s.empty() && offset == s.begin))) {
      const DiagInfo &di = d.info();
      std::string md = "**" + std::string(di.code) + "** " + std::string(di.title) + " (" +
                       std::string(diagClassName(di.diagClass)) + ")\n\n" + d.message +
                       "\n\n" + std::string(di.help);
      if (info)
        info->markdown += "\n\n---\n\n" + md;
      else
        info = HoverInfo{s.empty() ? Span{s.begin, s.begin + 1} : s, md};
      break;
    }
  }
  return info;
}

std::optional<HoverInfo> AnalysisSnapshot::semanticHover(const std::string &uri,
                                                         uint32_t offset) {
#ifdef KINA_LSP_WITH_SEMA
  auto fe = state_->snap->get(state_->impl.frontend, uri);
  if (!fe->checked)
    return std::nullopt;
  const CheckedFile &p = *fe->checked;
  // A kernel name: signature, capabilities and resources.
  for (const KernelInfo &k : kernels(uri)) {
    if (!spanHas(k.nameSpan, offset))
      continue;
    for (const sema::KernelSummary &ks : p.kernels()) {
      if (ks.name != k.name)
        continue;
      std::string md = "```kina\n" + ks.signature + "\n```\n";
      std::string caps;
      for (const auto &c : ks.capabilities)
        caps += (caps.empty() ? "" : ", ") + ("`" + c + "`");
      if (!caps.empty())
        md += "\ncapabilities: " + caps + "\n";
      md += "\ntarget: " + target() + "; shared memory: " + std::to_string(ks.sharedBytes) +
            " bytes; threads per block: " + std::to_string(ks.threadsPerBlock) +
            "; registers (estimate): " + std::to_string(ks.registerEstimate) + "\n";
      md += builtKernelFacts(uri, ks.name);
      return HoverInfo{k.nameSpan, md};
    }
  }
  // A symbol (definition or use): its type.
  for (const sema::SymbolInfo &sym : p.symbols()) {
    bool hit = spanHas(sym.definition, offset);
    for (Span r : sym.references)
      hit |= spanHas(r, offset);
    if (hit && !sym.type.empty())
      return HoverInfo{sym.definition, "```kina\n" + sym.name + " : " + sym.type + "\n```"};
  }
  // Any other expression: the innermost annotated one.
  const sema::TypeAnnotation *best = nullptr;
  for (const sema::TypeAnnotation &a : p.annotations())
    if (spanHas(a.span, offset) && !a.type.empty() &&
        (!best || a.span.end - a.span.begin < best->span.end - best->span.begin))
      best = &a;
  // A slice, index, division or wait: its proof, when it lies inside the
  // annotated expression (a division inside a slice) or nothing else is.
  if (auto proof = proofAt(p, target(), offset);
      proof &&
      (!best || (best->span.begin <= proof->span.begin && proof->span.end <= best->span.end)))
    return HoverInfo{proof->span, proof->markdown};
  if (best && !best->markdown.empty())
    return HoverInfo{best->span, best->markdown};
  if (best)
    return HoverInfo{best->span, "```kina\n" + best->type + "\n```"};
#endif
  return std::nullopt;
}

std::vector<InlayHintInfo> AnalysisSnapshot::inlayHints(const std::string &uri, Span range) {
  std::vector<InlayHintInfo> out;
#ifdef KINA_LSP_WITH_SEMA
  // Inferred tile shapes on slices, MMA results and `let` bindings.
  auto fe = state_->snap->get(state_->impl.frontend, uri);
  if (fe->checked)
    for (const sema::TypeAnnotation &a : fe->checked->annotations())
      if (a.inlay && !a.shape.empty() && range.begin <= a.span.end && a.span.end <= range.end)
        out.push_back({a.span.end, a.shape, true});
#else
  (void)file(uri);
#endif
  return out;
}

std::vector<SemanticToken> AnalysisSnapshot::semanticTokens(const std::string &uri) {
  return state_->snap->get(state_->impl.lexical, uri)->tokens;
}

#ifdef KINA_LSP_WITH_SEMA
namespace {
const sema::SymbolInfo *symbolAt(const CheckedFile &p, uint32_t offset) {
  for (const sema::SymbolInfo &sym : p.symbols()) {
    if (spanHas(sym.definition, offset))
      return &sym;
    for (Span r : sym.references)
      if (spanHas(r, offset))
        return &sym;
  }
  return nullptr;
}
} // namespace
#endif

std::vector<FileSpan> AnalysisSnapshot::definition(const std::string &uri, uint32_t offset) {
#ifdef KINA_LSP_WITH_SEMA
  auto fe = state_->snap->get(state_->impl.frontend, uri);
  if (fe->checked)
    if (const auto *sym = symbolAt(*fe->checked, offset))
      return {FileSpan{uri, sym->definition}};
#else
  (void)file(uri);
#endif
  return {};
}

std::vector<FileSpan> AnalysisSnapshot::references(const std::string &uri, uint32_t offset,
                                                   bool includeDeclaration) {
  std::vector<FileSpan> out;
#ifdef KINA_LSP_WITH_SEMA
  auto fe = state_->snap->get(state_->impl.frontend, uri);
  if (fe->checked)
    if (const auto *sym = symbolAt(*fe->checked, offset)) {
      if (includeDeclaration)
        out.push_back({uri, sym->definition});
      for (Span r : sym->references)
        out.push_back({uri, r});
    }
#else
  (void)file(uri);
#endif
  return out;
}

RenameResult AnalysisSnapshot::rename(const std::string &uri, uint32_t offset,
                                      const std::string &newName) {
  RenameResult r;
#ifdef KINA_LSP_WITH_SEMA
  bool ident = !newName.empty() && (std::isalpha(static_cast<unsigned char>(newName[0])) ||
                                    newName[0] == '_');
  for (char c : newName)
    ident &= std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  if (!ident) {
    r.error = "`" + newName + "` is not an identifier";
    return r;
  }
  for (const auto &w : kinaKeywords())
    if (w == newName) {
      r.error = "`" + newName + "` is a keyword";
      return r;
    }
  // TODO(kina::sema): refuse names that collide with another symbol in scope.
  for (const FileSpan &s : references(uri, offset, /*includeDeclaration=*/true))
    r.edits.push_back({s.uri, FixIt{s.span, newName, "rename"}});
  if (r.edits.empty())
    r.error = "there is no symbol to rename here";
#else
  r.error = "rename needs the checker's symbol table, which this kina-lsp does not have yet";
#endif
  return r;
}

std::vector<SymbolInfo> AnalysisSnapshot::documentSymbols(const std::string &uri) {
  return state_->snap->get(state_->impl.lexical, uri)->symbols;
}

std::vector<FoldInfo> AnalysisSnapshot::foldingRanges(const std::string &uri) {
  return state_->snap->get(state_->impl.lexical, uri)->folds;
}

namespace {
/// Inside `requires capability(...)` before the cursor: the argument index
/// (0 = the target), else -1.
int capabilityArgument(const std::string &s, uint32_t offset) {
  size_t lineStart = s.rfind('\n', offset == 0 ? 0 : offset - 1);
  lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
  std::string line = s.substr(lineStart, offset - lineStart);
  size_t open = line.rfind("capability");
  if (open == std::string::npos)
    return -1;
  size_t paren = line.find('(', open);
  if (paren == std::string::npos || line.find(')', paren) != std::string::npos)
    return -1;
  for (size_t i = open + 10; i < paren; ++i)
    if (!std::isspace(static_cast<unsigned char>(line[i])))
      return -1;
  return static_cast<int>(std::count(line.begin() + paren, line.end(), ','));
}
} // namespace

std::vector<CompletionEntry> AnalysisSnapshot::completion(const std::string &uri,
                                                          uint32_t offset) {
  auto f = file(uri);
  if (!f)
    return {};
  // No completion inside a comment.
  for (const SemanticToken &t : semanticTokens(uri))
    if (t.type == SemanticTokenType::Comment && t.span.begin < offset && offset <= t.span.end)
      return {};
  const std::string &s = f->text();
  offset = std::min<uint32_t>(offset, s.size());
  uint32_t b = offset;
  while (b > 0 && (std::isalnum(static_cast<unsigned char>(s[b - 1])) || s[b - 1] == '_'))
    --b;
  std::string prefix = s.substr(b, offset - b);
  std::vector<CompletionEntry> out;
  auto matches = [&](std::string_view w) { return w.compare(0, prefix.size(), prefix) == 0; };
  auto add = [&](const std::vector<std::string> &words, CompletionCategory cat,
                 const std::string &detail) {
    for (const auto &w : words)
      if (matches(w))
        out.push_back({w, cat, detail});
  };
#ifdef KINA_LSP_WITH_SEMA
  // `requires capability(<target>, <capability>, ...)`: the registry's words.
  if (int arg = capabilityArgument(s, offset); arg >= 0) {
    if (arg == 0) {
      for (const target::TargetInfo &t : target::allTargets())
        if (matches(t.name))
          out.push_back({std::string(t.name), CompletionCategory::Capability,
                         "target: " + std::string(t.description)});
      return out;
    }
    std::string tg = target();
    if (const target::TargetInfo *t = target::lookupTarget(tg))
      for (target::CapabilityId c : target::capabilitiesOf(t->id)) {
        const target::CapabilityInfo &ci = target::capabilityInfo(c);
        if (matches(ci.name))
          out.push_back({std::string(ci.name), CompletionCategory::Capability,
                         std::string(ci.description) + " (" + tg + ")"});
      }
    return out;
  }
  // Names in scope: the enclosing item's symbols defined before the cursor,
  // then the file's items.
  auto fe = state_->snap->get(state_->impl.frontend, uri);
  if (fe->checked) {
    int item = -1;
    const auto &items = fe->checked->module().items;
    for (size_t i = 0; i < items.size(); ++i)
      if (items[i].span.begin <= offset && offset <= items[i].span.end)
        item = static_cast<int>(i);
    std::set<std::string> seen;
    for (const sema::SymbolInfo &sym : fe->checked->symbols()) {
      bool inScope = sym.kind == sema::SymbolKind::Item ||
                     (item >= 0 && sym.item == item && sym.definition.end <= b);
      if (!inScope || !matches(sym.name) || sym.name == prefix || !seen.insert(sym.name).second)
        continue;
      std::string detail = sym.type;
      if (sym.kind == sema::SymbolKind::Item)
        for (const auto &it : items)
          if (it.name.name == sym.name)
            detail = it.kind == syntax::ItemKind::Kernel         ? "kernel"
                     : it.kind == syntax::ItemKind::TileFunction ? "tile function"
                                                                 : "host function";
      out.push_back({sym.name, CompletionCategory::Name, detail});
    }
  }
#endif
  add(kinaKeywords(), CompletionCategory::Keyword, "keyword");
  add(kinaPrimitiveOps(), CompletionCategory::PrimitiveOp, "primitive op");
  for (const OpSignature &op : primitiveOpSignatures())
    if (matches(op.name) &&
        std::none_of(out.begin(), out.end(), [&](const CompletionEntry &e) { return e.label == op.name; }))
      out.push_back({op.name, CompletionCategory::PrimitiveOp, "primitive op"});
  add(kinaDTypes(), CompletionCategory::DType, "dtype");
  add(kinaPlacements(), CompletionCategory::Placement, "placement");
  return out;
}

std::optional<SignatureInfo> AnalysisSnapshot::signatureHelp(const std::string &uri,
                                                             uint32_t offset) {
  auto f = file(uri);
  if (!f)
    return std::nullopt;
  const syntax::Module *module = nullptr;
#ifdef KINA_LSP_WITH_SEMA
  auto fe = state_->snap->get(state_->impl.frontend, uri);
  if (fe->checked)
    module = &fe->checked->module();
#endif
  return signatureAt(f->text(), module, offset);
}

std::vector<QuickFix> AnalysisSnapshot::quickFixes(const std::string &uri, Span range) {
  std::vector<QuickFix> out;
  for (const Diagnostic &d : diagnostics(uri)) {
    if (!spansOverlap(d.span, range))
      continue;
    for (const FixIt &fix : d.fixits)
      out.push_back({fix.title, d, {fix}});
  }
  return out;
}

std::vector<KernelInfo> AnalysisSnapshot::kernels(const std::string &uri) {
  return state_->snap->get(state_->impl.lexical, uri)->kernels;
}

std::optional<KernelInfo> AnalysisSnapshot::kernelAt(const std::string &uri, uint32_t offset) {
  for (const KernelInfo &k : kernels(uri))
    if (k.span.begin <= offset && offset <= k.span.end)
      return k;
  return std::nullopt;
}

std::string AnalysisSnapshot::builtKernelFacts(const std::string &uri, const std::string &kernel) {
#ifdef KINA_LSP_WITH_CODEGEN
  auto f = file(uri);
  if (!f)
    return "";
  uint64_t hash = query::contentHash(f->text());
  std::string tg = target();
  std::string md;
  auto report = state_->impl.artifacts.lookup(
      {hash, tg, artifactKindKey(ArtifactKind::RegisterReport, kernel)});
  if (report && !report->summary.empty())
    md += "\n" + report->summary + " (ptxas, " + tg + ")\n";
  else
    md += "\n_Registers, spills and occupancy: run **Register report** to compute them._\n";
  auto ptx = state_->impl.artifacts.lookup({hash, tg, artifactKindKey(ArtifactKind::Ptx, kernel)});
  if (ptx && ptx->ok) {
    std::string excerpt = ptxExcerpt(ptx->text, 12);
    if (!excerpt.empty())
      md += "\n```ptx\n" + excerpt + "\n...\n```\n";
  }
  return md;
#else
  (void)uri;
  (void)kernel;
  return "";
#endif
}

std::shared_ptr<const target::LineMap> AnalysisSnapshot::cachedLineMap(const std::string &uri,
                                                                       const std::string &kernel,
                                                                       ArtifactKind kind) {
#ifdef KINA_LSP_WITH_CODEGEN
  auto f = file(uri);
  if (!f)
    return nullptr;
  const query::ArtifactKey key{query::contentHash(f->text()), target(),
                               artifactKindKey(kind, kernel)};
  auto listing = state_->impl.artifacts.lookup(key);
  if (!listing || !listing->ok)
    return nullptr;
  query::ArtifactKey mapKey = key;
  mapKey.kind += "-lines";
  return state_->impl.lineMaps.getOrCompute(
      mapKey,
      [&] {
        return kind == ArtifactKind::Sass ? target::mapSassLines(listing->text)
                                          : target::mapPtxLines(listing->text);
      },
      [](const target::LineMap &m) {
        size_t b = sizeof m;
        for (const auto &i : m.instructions)
          b += sizeof i + i.text.size() + i.file.size() + i.function.size();
        return b;
      });
#else
  (void)uri;
  (void)kernel;
  (void)kind;
  return nullptr;
#endif
}

std::string AnalysisSnapshot::statementCode(const std::string &uri, uint32_t offset, Span &line) {
#ifdef KINA_LSP_WITH_CODEGEN
  auto k = kernelAt(uri, offset);
  if (!k || spanHas(k->nameSpan, offset))
    return ""; // the kernel name has its own hover (builtKernelFacts)
  auto ptx = cachedLineMap(uri, k->name, ArtifactKind::Ptx);
  auto sass = cachedLineMap(uri, k->name, ArtifactKind::Sass);
  if (!ptx && !sass)
    return "";
  static const target::LineMap none;
  const target::LineMap &p = ptx ? *ptx : none;
  std::vector<uint32_t> mapped = p.sourceLines();
  if (sass) {
    std::vector<uint32_t> more = sass->sourceLines();
    mapped.insert(mapped.end(), more.begin(), more.end());
    std::sort(mapped.begin(), mapped.end());
    mapped.erase(std::unique(mapped.begin(), mapped.end()), mapped.end());
  }
  auto f = file(uri);
  auto st = statementAt(*f, offset, mapped);
  if (!st)
    return "";
  uint32_t b = f->offsetOfUtf16({st->first - 1, 0});
  uint32_t e = f->offsetOfUtf16({st->last - 1, UINT32_MAX});
  line = Span{b, std::max(e, b + 1)};
  return statementCodeMarkdown(p, sass.get(), *st, target());
#else
  (void)uri;
  (void)offset;
  (void)line;
  return "";
#endif
}

std::vector<Diagnostic> AnalysisSnapshot::buildRemarks(const std::string &uri) {
  std::vector<Diagnostic> out;
#ifdef KINA_LSP_WITH_CODEGEN
  auto f = file(uri);
  if (!f)
    return out;
  const uint64_t hash = query::contentHash(f->text());
  for (const KernelInfo &k : kernels(uri))
    if (auto b = state_->impl.cubins.lookup({hash, target(), "cubin:" + k.name}))
      out.insert(out.end(), b->remarks.begin(), b->remarks.end());
#else
  (void)uri;
#endif
  return out;
}

LinesAtResult AnalysisSnapshot::linesAt(const std::string &uri, uint32_t offset) {
  LinesAtResult r;
  r.target = target();
#ifdef KINA_LSP_WITH_CODEGEN
  auto k = kernelAt(uri, offset);
  if (!k)
    return r;
  r.kernel = k->name;
  auto ptx = cachedLineMap(uri, k->name, ArtifactKind::Ptx);
  auto sass = cachedLineMap(uri, k->name, ArtifactKind::Sass);
  r.ptxCached = ptx != nullptr;
  r.sassCached = sass != nullptr;
  std::vector<uint32_t> mapped;
  for (const auto &m : {ptx, sass})
    if (m)
      for (uint32_t l : m->sourceLines())
        mapped.push_back(l);
  std::sort(mapped.begin(), mapped.end());
  mapped.erase(std::unique(mapped.begin(), mapped.end()), mapped.end());
  auto st = statementAt(*file(uri), offset, mapped);
  if (!st)
    return r;
  r.first = st->first;
  r.last = st->last;
  if (ptx)
    r.ptxLines = listingLinesOf(*ptx, *st);
  if (sass)
    r.sassLines = listingLinesOf(*sass, *st);
  r.ptxFocus = focusLine(r.ptxLines);
  r.sassFocus = focusLine(r.sassLines);
#else
  (void)offset;
#endif
  return r;
}

std::optional<uint32_t> AnalysisSnapshot::sourceLineOf(const std::string &uri,
                                                       const std::string &kernel, ArtifactKind kind,
                                                       uint32_t listingLine) {
#ifdef KINA_LSP_WITH_CODEGEN
  auto m = cachedLineMap(uri, kernel, kind);
  if (!m)
    return std::nullopt;
  // The instruction on the line, else the next one below it (a label or a
  // directive line belongs to what follows).
  for (const target::MappedInstruction &i : m->instructions)
    if (std::max(i.listingLine, i.listingEnd) >= listingLine && i.sourceLine)
      return i.sourceLine;
  return std::nullopt;
#else
  (void)uri;
  (void)kernel;
  (void)kind;
  (void)listingLine;
  return std::nullopt;
#endif
}

ArtifactResult AnalysisSnapshot::artifact(const std::string &uri, const std::string &kernel,
                                          ArtifactKind kind, const std::string &target) {
  ArtifactResult r;
  r.kernel = kernel;
  r.target = target.empty() ? this->target() : target;
  auto ks = kernels(uri);
  if (std::none_of(ks.begin(), ks.end(), [&](const KernelInfo &k) { return k.name == kernel; })) {
    r.error = "no kernel named `" + kernel + "` in this file";
    return r;
  }
#ifdef KINA_LSP_WITH_CODEGEN
  auto f = file(uri);
  const uint64_t hash = query::contentHash(f->text());
  const query::ArtifactKey key{hash, r.target, artifactKindKey(kind, kernel)};
  Analysis::Impl &impl = state_->impl;
  if (auto hit = impl.artifacts.lookup(key))
    return *hit;
  // The checker's verdict is already known for the configured target: a
  // file with errors is refused without building anything.
  if (r.target == this->target())
    for (const Diagnostic &d : diagnostics(uri))
      if (d.severity() == Severity::Error) {
        r.error = "`" + kernel + "` cannot be built for " + r.target + ": the file has errors (" +
                  std::string(d.info().code) + ": " + d.message + ")";
        return r;
      }
  state_->snap->context().checkCancelled();
  switch (kind) {
  case ArtifactKind::TileIR:
  case ArtifactKind::Ptx: {
    KernelBuild b = buildKernel(*f, kernel, r.target,
                                kind == ArtifactKind::Ptx ? BuildStage::PTX : BuildStage::TileIR);
    r.ok = b.ok;
    r.error = b.error;
    r.text = kind == ArtifactKind::Ptx ? b.ptx : b.tileIR;
    break;
  }
  case ArtifactKind::Sass:
  case ArtifactKind::RegisterReport: {
    const query::ArtifactKey cubinKey{hash, r.target, "cubin:" + kernel};
    auto build = impl.cubins.lookup(cubinKey);
    if (!build) {
      auto b = std::make_shared<const KernelBuild>(
          buildKernel(*f, kernel, r.target, BuildStage::Cubin));
      if (b->ok)
        impl.cubins.insert(cubinKey, b, b->bytes());
      build = b;
    }
    r = kind == ArtifactKind::Sass ? sassListing(*build, kernel, r.target)
                                   : registerReport(*build, kernel, r.target);
    break;
  }
  }
  if (r.ok)
    impl.artifacts.insert(key, std::make_shared<const ArtifactResult>(r), r.bytes());
  return r;
#else
  static const char *names[] = {"PTX", "SASS", "Tile IR", "a register report"};
  r.error = std::string("cannot produce ") + names[static_cast<int>(kind)] + " for `" + kernel +
            "` on " + r.target + ": the code generator is not part of this kina-lsp build";
  return r;
#endif
}

namespace {
#ifdef KINA_LSP_WITH_SEMA
/// Default dimension values of `kernel`: the lcm of each dimension's
/// `requires (D mod n = 0)` moduli, scaled up to at least 1024.
std::map<std::string, int64_t> defaultDims(const syntax::Module &m, const std::string &kernel) {
  std::map<std::string, int64_t> out;
  for (const syntax::Item &item : m.items) {
    if (item.name.name != kernel || item.kind == syntax::ItemKind::TileFunction)
      continue; // kernels and host functions (host)
    for (const syntax::Ident &d : item.dims) {
      int64_t l = 1;
      for (const syntax::Requirement &req : item.requirements) {
        if (req.isCapability || req.condition == syntax::kNone)
          continue;
        const syntax::Expr &eq = m.expr(req.condition);
        if (eq.kind != syntax::ExprKind::Binary || eq.op != syntax::BinaryOp::Eq ||
            eq.children.size() != 2)
          continue;
        const syntax::Expr &mod = m.expr(eq.children[0]);
        const syntax::Expr &zero = m.expr(eq.children[1]);
        if (mod.kind != syntax::ExprKind::Binary || mod.op != syntax::BinaryOp::Mod ||
            mod.children.size() != 2 || zero.kind != syntax::ExprKind::Integer ||
            zero.intValue != 0)
          continue;
        const syntax::Expr &name = m.expr(mod.children[0]);
        const syntax::Expr &n = m.expr(mod.children[1]);
        if (name.kind == syntax::ExprKind::Name && name.name.name == d.name &&
            n.kind == syntax::ExprKind::Integer && n.intValue > 0 && n.intValue < (1 << 20))
          l = std::lcm(l, n.intValue);
      }
      out[d.name] = l >= 1024 ? l : l * ((1024 + l - 1) / l);
    }
    break;
  }
  return out;
}
#endif

std::string baseName(const std::string &uri) {
  size_t slash = uri.rfind('/');
  std::string name = slash == std::string::npos ? uri : uri.substr(slash + 1);
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-')
      c = '_';
  if (name.size() < 6 || name.substr(name.size() - 5) != ".kina")
    name += ".kina";
  return name;
}
} // namespace

RunResult AnalysisSnapshot::run(const std::string &uri, const std::string &kernel,
                                const std::string &target,
                                const std::map<std::string, int64_t> &dims,
                                const std::function<void(const std::string &)> &progress) {
  RunResult r;
  auto f = file(uri);
  if (!f) {
    r.error = "document is not open: " + uri;
    return r;
  }
  auto ks = kernels(uri);
  // A host function runs too (`kina run --fn`, host).
  bool host = false;
  for (const SymbolInfo &s : documentSymbols(uri))
    host |= s.category == SymbolCategory::HostFunction && s.name == kernel;
  if (!host &&
      std::none_of(ks.begin(), ks.end(), [&](const KernelInfo &k) { return k.name == kernel; })) {
    r.error = "no kernel or host function named `" + kernel + "` in this file";
    return r;
  }
  progress("checking `" + kernel + "`");
  for (const Diagnostic &d : diagnostics(uri))
    if (d.severity() == Severity::Error) {
      r.error = "`" + kernel + "` cannot run: the file has errors (" +
                std::string(d.info().code) + ": " + d.message + ")";
      return r;
    }
#ifdef KINA_LSP_WITH_SEMA
  auto fe = state_->snap->get(state_->impl.frontend, uri);
  if (fe->checked)
    r.dims = defaultDims(fe->checked->module(), kernel);
#endif
  for (const auto &[d, v] : dims)
    r.dims[d] = v;
  state_->snap->context().checkCancelled();

  std::string configured;
  {
    std::lock_guard<std::mutex> lock(state_->impl.kinaPathMutex);
    configured = state_->impl.kinaPath;
  }
  std::string searched;
  auto kina = findKinaExecutable(configured, searched);
  if (!kina) {
    r.error = "cannot find the `kina` driver to run `" + kernel + "` (looked in: " + searched +
              "); set `kina.path`";
    return r;
  }
  KinaRunRequest req;
  req.kinaPath = *kina;
  req.sourceText = f->text();
  req.fileName = baseName(uri);
  req.kernel = kernel;
  req.hostFunction = host;
  req.target = target.empty() ? "auto" : target;
  for (const auto &[d, v] : r.dims)
    req.dims[d] = v;
  progress("running `" + kernel + "` (kina run " + (host ? "--fn" : "--check") + ", target " +
           req.target + ")");
  // From here on only the request's own cancellation stops the run: the
  // child works on a copy of the text, so edits do not matter.
  KinaRunOutcome o = runKina(req, state_->token, progress);
  r.command = o.commandLine;
  if (!o.started) {
    r.error = o.error;
    return r;
  }
  if (o.cancelled)
    throw query::Cancelled();
  r.ok = true;
  r.exitCode = o.exitCode;
  r.output = o.output;
  r.status = o.exitCode == 0                   ? "passed"
             : o.exitCode == kKinaSkipExitCode ? "skipped"
                                               : "failed";
  return r;
}

} // namespace kina::lsp
