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

#include <algorithm>

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

  /// All diagnostics of one file, sorted.
  query::Query<std::string, DiagnosticList> diagnostics{
      db, "diagnostics", [this](query::QueryContext &ctx, const std::string &uri) {
        DiagnosticList out{ctx.get(lexical, uri)->diagnostics};
        // TODO(kina::sema::check): append per-kernel checker diagnostics.
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

std::optional<HoverInfo> AnalysisSnapshot::hover(const std::string &uri, uint32_t offset) {
  // TODO(kina::sema::check): types, placements, tile shapes and capabilities
  // of the expression under the cursor; kernel summaries with the register
  // report and a PTX excerpt (artifact()).
  for (const Diagnostic &d : diagnostics(uri)) {
    Span s = d.span;
    if (s.begin <= offset && (offset < s.end || (s.empty() && offset == s.begin))) {
      const DiagInfo &info = d.info();
      std::string md = "**" + std::string(info.code) + "** " + std::string(info.title) + " (" +
                       std::string(diagClassName(info.diagClass)) + ")\n\n" + d.message +
                       "\n\n" + std::string(info.help);
      return HoverInfo{s.empty() ? Span{s.begin, s.begin + 1} : s, md};
    }
  }
  return std::nullopt;
}

std::vector<InlayHintInfo> AnalysisSnapshot::inlayHints(const std::string &uri, Span range) {
  // TODO(kina::sema::check): inferred tile shapes on slices, MMA results and
  // `let` bindings, e.g. `[64, 16]` after `a_smem[warp_m * 64 ..+ 64, 0 ..+ 16]`.
  (void)file(uri);
  return {};
}

std::vector<SemanticToken> AnalysisSnapshot::semanticTokens(const std::string &uri) {
  return state_->snap->get(state_->impl.lexical, uri)->tokens;
}

std::vector<FileSpan> AnalysisSnapshot::definition(const std::string &uri, uint32_t offset) {
  // TODO(kina::sema::check → CheckedProgram::definitionAt(offset)).
  (void)file(uri);
  return {};
}

std::vector<FileSpan> AnalysisSnapshot::references(const std::string &uri, uint32_t offset,
                                                   bool includeDeclaration) {
  // TODO(kina::sema::check → CheckedProgram::referencesOf(symbol)).
  (void)file(uri);
  return {};
}

RenameResult AnalysisSnapshot::rename(const std::string &uri, uint32_t offset,
                                      const std::string &newName) {
  // TODO(kina::sema::check → references of the symbol at offset, plus a
  // check that newName is an identifier that does not collide in scope).
  RenameResult r;
  r.error = "rename needs the checker's symbol table, which this kina-lsp does not have yet";
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
