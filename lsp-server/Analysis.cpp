//===- Analysis.cpp - IDE features over the query core --------------------===//
//
// The analysis database: inputs (file text, version, target) and derived
// queries (lexical summary, diagnostics) in kina_query, and one function per
// feature reading them through a snapshot. See Analysis.h for the contract.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"

#include "LexicalScan.h"
#include "query/Query.h"
#ifdef KINA_LSP_WITH_SEMA
#include "sema/Frontend.h"
#endif

#include <algorithm>
#include <cctype>

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

struct DiagnosticList {
  std::vector<Diagnostic> diags;
  bool operator==(const DiagnosticList &o) const { return sameDiagnostics(diags, o.diags); }
};

const std::string kTargetKey = "target";

#ifdef KINA_LSP_WITH_SEMA
/// The parsed and checked file. Compared by identity: a re-execution counts
/// as a change (sema::Analysis has no equality).
struct FrontendResult {
  std::shared_ptr<const sema::Analysis> analysis;
  bool operator==(const FrontendResult &o) const { return analysis == o.analysis; }
};
#endif

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
  /// kina::sema::analyze (parse + check) of the whole file for the target.
  /// TODO(kina::sema per-item checking): split into item signatures and
  /// per-kernel check queries keyed like the segments above, so that an
  /// edit inside one kernel re-checks only that kernel.
  query::Query<std::string, FrontendResult> frontend{
      db, "frontend", [this](query::QueryContext &ctx, const std::string &uri) {
        auto t = ctx.get(text, uri);
        if (!t)
          return FrontendResult{};
        auto tg = ctx.get(target, kTargetKey);
        sema::FrontendOptions o;
        o.target = tg ? *tg : options.defaultTarget;
        return FrontendResult{std::make_shared<const sema::Analysis>(sema::analyze(*t->file, o))};
      }};
#endif

  /// All diagnostics of one file, sorted: the compiler's (parse + check)
  /// when kina_sema is linked in, else the interim lexical bracket checks.
  query::Query<std::string, DiagnosticList> diagnostics{
      db, "diagnostics", [this](query::QueryContext &ctx, const std::string &uri) {
#ifdef KINA_LSP_WITH_SEMA
        auto fe = ctx.get(frontend, uri);
        DiagnosticList out{fe->analysis ? fe->analysis->diagnostics : std::vector<Diagnostic>{}};
#else
        DiagnosticList out{ctx.get(lexical, uri)->diagnostics};
#endif
        sortDiagnostics(out.diags);
        return out;
      }};
};

struct AnalysisSnapshot::State {
  Analysis::Impl &impl;
  std::unique_ptr<query::Snapshot> snap;
};

Analysis::Analysis(AnalysisOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  impl_->db.setRecordExecutions(impl_->options.recordQueryExecutions);
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
#endif
}

void Analysis::setTarget(const std::string &target) {
  impl_->target.set(kTargetKey, target.empty() ? impl_->options.defaultTarget : target);
}

std::unique_ptr<AnalysisSnapshot> Analysis::snapshot(query::CancellationToken token) {
  auto state = std::make_unique<AnalysisSnapshot::State>(
      AnalysisSnapshot::State{*impl_, impl_->db.snapshot(std::move(token))});
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

std::vector<Diagnostic> AnalysisSnapshot::diagnostics(const std::string &uri) {
  return state_->snap->get(state_->impl.diagnostics, uri)->diags;
}

namespace {
bool spanHas(Span s, uint32_t offset) { return s.begin <= offset && offset <= s.end && !s.empty(); }
} // namespace

std::optional<HoverInfo> AnalysisSnapshot::hover(const std::string &uri, uint32_t offset) {
  // What the code is (semanticHover), then the diagnostic under the cursor.
  std::optional<HoverInfo> info = semanticHover(uri, offset);
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
  if (!fe->analysis)
    return std::nullopt;
  const sema::CheckedProgram &p = fe->analysis->program;
  // A kernel name: signature, capabilities and resources.
  // TODO(kina::codegen + kina::target): registers/spills/occupancy from the
  // register report and a PTX excerpt, through artifact().
  for (const KernelInfo &k : kernels(uri)) {
    if (!spanHas(k.nameSpan, offset))
      continue;
    for (const sema::KernelSummary &ks : p.kernels) {
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
      return HoverInfo{k.nameSpan, md};
    }
  }
  // A symbol (definition or use): its type.
  for (const sema::SymbolInfo &sym : p.symbolInfos) {
    bool hit = spanHas(sym.definition, offset);
    for (Span r : sym.references)
      hit |= spanHas(r, offset);
    if (hit && !sym.type.empty())
      return HoverInfo{sym.definition, "```kina\n" + sym.name + " : " + sym.type + "\n```"};
  }
  // Any other expression: the innermost annotated one.
  const sema::TypeAnnotation *best = nullptr;
  for (const sema::TypeAnnotation &a : p.annotations)
    if (spanHas(a.span, offset) && !a.type.empty() &&
        (!best || a.span.end - a.span.begin < best->span.end - best->span.begin))
      best = &a;
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
  if (fe->analysis)
    for (const sema::TypeAnnotation &a : fe->analysis->program.annotations)
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
const sema::SymbolInfo *symbolAt(const sema::CheckedProgram &p, uint32_t offset) {
  for (const sema::SymbolInfo &sym : p.symbolInfos) {
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
  if (fe->analysis)
    if (const auto *sym = symbolAt(fe->analysis->program, offset))
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
  if (fe->analysis)
    if (const auto *sym = symbolAt(fe->analysis->program, offset)) {
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
  uint32_t b = std::min<uint32_t>(offset, s.size());
  while (b > 0 && (std::isalnum(static_cast<unsigned char>(s[b - 1])) || s[b - 1] == '_'))
    --b;
  std::string prefix = s.substr(b, std::min<uint32_t>(offset, s.size()) - b);
  std::vector<CompletionEntry> out;
  auto add = [&](const std::vector<std::string> &words, CompletionCategory cat,
                 const std::string &detail) {
    for (const auto &w : words)
      if (w.compare(0, prefix.size(), prefix) == 0)
        out.push_back({w, cat, detail});
  };
  add(kinaKeywords(), CompletionCategory::Keyword, "keyword");
  add(kinaPrimitiveOps(), CompletionCategory::PrimitiveOp, "primitive op");
  add(kinaDTypes(), CompletionCategory::DType, "dtype");
  add(kinaPlacements(), CompletionCategory::Placement, "placement");
  // TODO(kina::sema): names in scope at offset; TODO(kina::target): the
  // capabilities the configured target() has, from the capability registry.
  return out;
}

std::optional<SignatureInfo> AnalysisSnapshot::signatureHelp(const std::string &uri,
                                                             uint32_t offset) {
  // TODO(kina::sema builtin signature table of primitive ops and tile functions).
  (void)file(uri);
  return std::nullopt;
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
  // TODO(kina::codegen::emitPtx(kernel, target) for Ptx; nvdisasm over the
  // cubin for Sass; the Tile IR bytecode writer for TileIR;
  // kina::target register report for RegisterReport) — each through a
  // query::ArtifactCache keyed by (contentHash(kernel text + deps), target, kind).
  static const char *names[] = {"PTX", "SASS", "Tile IR", "a register report"};
  r.error = std::string("cannot produce ") + names[static_cast<int>(kind)] + " for `" + kernel +
            "` on " + r.target + ": the code generator is not part of this kina-lsp build yet";
  return r;
}

RunResult AnalysisSnapshot::run(const std::string &uri, const std::string &kernel,
                                const std::string &target,
                                const std::function<void(const std::string &)> &progress) {
  RunResult r;
  progress("checking `" + kernel + "`");
  for (const Diagnostic &d : diagnostics(uri))
    if (d.severity() == Severity::Error) {
      r.error = "`" + kernel + "` cannot run: the file has errors (" +
                std::string(d.info().code) + ": " + d.message + ")";
      return r;
    }
  state_->snap->context().checkCancelled();
  progress("building `" + kernel + "` for " + (target.empty() ? this->target() : target));
  ArtifactResult ptx = artifact(uri, kernel, ArtifactKind::Ptx, target);
  if (!ptx.ok) {
    r.error = ptx.error;
    return r;
  }
  state_->snap->context().checkCancelled();
  // TODO(kina::runtime: load the cubin, launch with generated inputs, check
  // against the CPU reference, time with CUDA events; SKIP without a GPU).
  r.error = "running kernels needs kina::runtime, which is not part of this kina-lsp build yet";
  return r;
}

} // namespace kina::lsp
