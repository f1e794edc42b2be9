//===- Artifacts.cpp - Tile IR, PTX, SASS and register reports ------------===//
//
// The `kina build` / `kina report` pipeline, in process, one kernel at a
// time; see Artifacts.h.
//
//===----------------------------------------------------------------------===//
#include "Artifacts.h"

#ifdef KINA_LSP_WITH_CODEGEN

#include "codegen/Codegen.h"
#include "ir/Printer.h"
#include "lower/TileIRFromAst.h"
#include "sema/Frontend.h"
#include "target/Registry.h"
#include "target/ReportJson.h"
#include "target/ResourceReport.h"
#include "target/Sass.h"
#include "target/TargetError.h"

#include <cstdio>
#include <span>
#include <sstream>

namespace kina::lsp {

namespace {

std::string firstError(const std::vector<Diagnostic> &diags) {
  for (const Diagnostic &d : diags)
    if (d.severity() == Severity::Error)
      return std::string(d.info().code) + ": " + d.message;
  return "";
}

std::span<const uint8_t> bytesOf(const std::string &s) {
  return {reinterpret_cast<const uint8_t *>(s.data()), s.size()};
}

std::string percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * x);
  return buf;
}

} // namespace

KernelBuild buildKernel(const SourceFile &file, const std::string &kernel,
                        const std::string &target, BuildStage stage) {
  KernelBuild b;
  if (!target::lookupTarget(target)) {
    b.error = "unknown target `" + target + "`";
    return b;
  }
  sema::FrontendOptions fe;
  fe.target = target;
  sema::Analysis analysis = sema::analyze(file, fe);
  if (std::string e = firstError(analysis.diagnostics); !e.empty()) {
    b.error = "`" + kernel + "` cannot be built for " + target + ": the file has errors (" + e +
              ")";
    return b;
  }
  auto tileIR = lower::lowerKernel(analysis, kernel);
  if (!tileIR) {
    b.error = "`" + kernel + "` cannot be lowered to tile IR: " +
              llvm::toString(tileIR.takeError());
    return b;
  }
  b.tileIR = ir::print(*tileIR);
  b.threadsPerBlock = tileIR->threadsPerBlock();
  if (stage == BuildStage::TileIR) {
    b.ok = true;
    return b;
  }
  DiagnosticSink sink;
  codegen::CodegenOptions cg;
  cg.target = target;
  cg.lineInfo = &file; // editor builds map instructions to lines (LineViews.h)
  cg.remarks = true;   // spills and occupancy at their line (codegen/Remarks.h)
  auto compiled = codegen::compile(
      *tileIR, cg, stage == BuildStage::PTX ? codegen::Stage::PTX : codegen::Stage::Cubin, sink);
  if (!compiled) {
    std::string why = firstError(sink.diagnostics());
    b.error = "code generation for `" + kernel + "` on " + target + " failed" +
              (why.empty() ? std::string() : ": " + why);
    return b;
  }
  b.ptx = std::move(compiled->ptx);
  b.cubin = std::move(compiled->cubin);
  b.ptxasLog = std::move(compiled->ptxasLog);
  b.dynamicSharedBytes = compiled->launch.dynamicSharedBytes;
  for (const Diagnostic &d : sink.diagnostics())
    if (d.severity() != Severity::Error)
      b.remarks.push_back(d);
  b.ok = true;
  return b;
}

namespace {

llvm::Expected<target::ResourceReport> report(const KernelBuild &build, target::TargetId id,
                                              bool sass) {
  target::ReportOptions ro;
  if (build.threadsPerBlock)
    ro.threadsPerBlock = build.threadsPerBlock;
  ro.dynamicSharedBytes = build.dynamicSharedBytes;
  ro.sass = sass;
  return target::buildResourceReport(build.ptxasLog, bytesOf(build.cubin), id, ro);
}

const target::KernelReport *kernelIn(const target::ResourceReport &r, const std::string &kernel) {
  if (const auto *k = r.find(kernel))
    return k;
  return r.kernels.size() == 1 ? &r.kernels[0] : nullptr;
}

} // namespace

ArtifactResult registerReport(const KernelBuild &build, const std::string &kernel,
                              const std::string &targetName) {
  ArtifactResult r;
  r.kernel = kernel;
  r.target = targetName;
  if (!build.ok) {
    r.error = build.error;
    return r;
  }
  const target::TargetInfo *t = target::lookupTarget(targetName);
  auto rep = report(build, t->id, /*sass=*/false);
  if (!rep) {
    r.error = "register report for `" + kernel + "`: " +
              target::takeTargetFailure(rep.takeError()).message;
    return r;
  }
  r.ok = true;
  r.text = target::renderResourceReport(*rep);
  r.json = target::resourceReportToJson(*rep, -1);
  if (const target::KernelReport *k = kernelIn(*rep, kernel)) {
    std::ostringstream s;
    s << "registers: " << k->registers << " per thread; spills: " << k->spillStores
      << " B stored, " << k->spillLoads << " B loaded; shared memory: " << k->sharedBytes
      << " B static";
    if (build.dynamicSharedBytes)
      s << " + " << build.dynamicSharedBytes << " B dynamic";
    if (k->occupancy && k->occupancy->error.empty()) {
      const target::OccupancyResult &o = *k->occupancy;
      s << "; occupancy: " << percent(o.occupancy) << " (" << o.warpsPerSM << "/"
        << o.maxWarpsPerSM << " warps per SM";
      if (!o.binding.empty())
        s << ", limited by " << target::occupancyLimitName(o.binding.front());
      s << ")";
    } else if (k->occupancy) {
      s << "; occupancy: " << k->occupancy->error;
    }
    r.summary = s.str();
  }
  return r;
}

ArtifactResult sassListing(const KernelBuild &build, const std::string &kernel,
                           const std::string &targetName) {
  ArtifactResult r;
  r.kernel = kernel;
  r.target = targetName;
  if (!build.ok) {
    r.error = build.error;
    return r;
  }
  auto listing = target::disassembleCubin(bytesOf(build.cubin), {}, /*lineInfo=*/true);
  if (!listing) {
    r.error = "SASS for `" + kernel + "`: " +
              target::takeTargetFailure(listing.takeError()).message;
    return r;
  }
  std::ostringstream s;
  const target::SassFunction *f = listing->find(kernel);
  if (!f && listing->functions.size() == 1)
    f = &listing->functions[0];
  if (f) {
    s << "// " << f->name << ": " << f->total << " instructions";
    for (int c = 0; c <= static_cast<int>(target::SassClass::Other); ++c) {
      auto cls = static_cast<target::SassClass>(c);
      if (unsigned count = f->count(cls))
        s << ", " << target::sassClassName(cls) << " " << count;
    }
    s << "\n\n";
  }
  s << listing->text;
  r.ok = true;
  r.text = s.str();
  return r;
}

std::string ptxExcerpt(const std::string &ptx, unsigned lines) {
  size_t at = ptx.find(".entry");
  if (at == std::string::npos)
    return "";
  at = ptx.rfind('\n', at);
  at = at == std::string::npos ? 0 : at + 1;
  size_t end = at;
  for (unsigned i = 0; i < lines && end != std::string::npos && end < ptx.size(); ++i)
    end = ptx.find('\n', end + 1);
  return ptx.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

} // namespace kina::lsp

#endif // KINA_LSP_WITH_CODEGEN
