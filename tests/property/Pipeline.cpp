//===- Pipeline.cpp - `kina check` then `kina build`, in process ----------===//
#include "Pipeline.h"

#include "codegen/Codegen.h"
#include "ir/Printer.h"
#include "lower/TileIRFromAst.h"
#include "runtime/LaunchSpec.h"

#include "sema/Frontend.h"
#include "target/TargetError.h"
#include "tileir/Assembler.h"
#include "tileir/CheckFile.h"
#include <nlohmann/json.hpp>

#include "llvm/Support/Error.h"

#include <cstdlib>
#include <regex>

namespace kina::property {

std::string BuildFailure::text() const {
  return stage + " " + (code.empty() ? std::string("uncoded") : code) + ": " + message;
}

std::string BuildFailure::signature() const {
  std::string m = message.substr(0, message.find('\n'));
  // Names and fragments in quotes, then numbers: the reason stays.
  static const std::regex quoted("`[^`]*`|'[^']*'");
  static const std::regex number("[0-9]+");
  m = std::regex_replace(m, quoted, "_");
  m = std::regex_replace(m, number, "N");
  return stage + " " + (code.empty() ? std::string("uncoded") : code) + ": " + m;
}

std::optional<FaultInjection> FaultInjection::parse(const std::string &spec) {
  auto colon = spec.find(':');
  if (colon == std::string::npos || colon + 1 == spec.size())
    return std::nullopt;
  FaultInjection f;
  std::string kind = spec.substr(0, colon);
  f.marker = spec.substr(colon + 1);
  if (kind == "coded")
    f.kind = Kind::Coded;
  else if (kind == "uncoded")
    f.kind = Kind::Uncoded;
  else if (kind == "crash")
    f.kind = Kind::Crash;
  else
    return std::nullopt;
  return f;
}

namespace {

bool hasError(const std::vector<Diagnostic> &diags) {
  for (const Diagnostic &d : diags)
    if (d.severity() == Severity::Error)
      return true;
  return false;
}

const Diagnostic *firstError(const std::vector<Diagnostic> &diags) {
  for (const Diagnostic &d : diags)
    if (d.severity() == Severity::Error)
      return &d;
  return nullptr;
}

} // namespace

bool checksClean(const std::string &path, const std::string &text, const std::string &target) {
  SourceFile file(path, text);
  sema::FrontendOptions fe;
  fe.target = target;
  fe.diagnosticsOnly = true; // as `kina check`
  return !hasError(sema::analyze(file, fe).diagnostics);
}

Outcome checkThenBuild(const std::string &path, const std::string &text, const std::string &target,
                       Stop stop, const FaultInjection *fault) {
  Outcome out;
  SourceFile file(path, text);

  // ---- kina check (compiler/driver/Check.cpp) ----
  {
    sema::FrontendOptions fe;
    fe.target = target;
    fe.diagnosticsOnly = true;
    sema::Analysis checked = sema::analyze(file, fe);
    for (const Diagnostic &d : checked.diagnostics)
      if (d.severity() == Severity::Error)
        out.rejectCodes.emplace_back(d.info().code);
    if (!out.rejectCodes.empty())
      return out;
  }
  out.checkClean = true;

  // ---- kina build (compiler/driver/Build.cpp) ----
  sema::FrontendOptions fe;
  fe.target = target;
  sema::Analysis analysis = sema::analyze(file, fe);
  if (const Diagnostic *d = firstError(analysis.diagnostics)) {
    out.failure = BuildFailure{"", "analyze", std::string(d->info().code),
                               "the full analysis of `kina build` reports an error `kina check` "
                               "did not: " +
                                   d->message};
    return out;
  }
  for (const sema::KernelSummary &k : analysis.program.kernels) {
    ++out.kernels;
    auto kernel = lower::lowerKernel(analysis, k.name);
    if (!kernel) {
      out.failure = BuildFailure{k.name, "lower", "", llvm::toString(kernel.takeError())};
      return out;
    }
    if (fault && ir::print(*kernel).find(fault->marker) != std::string::npos) {
      if (fault->kind == FaultInjection::Kind::Crash)
        std::abort();
      out.failure = BuildFailure{k.name, "injected",
                                 fault->kind == FaultInjection::Kind::Coded ? "K1208" : "",
                                 "injected fault: the tile IR contains `" + fault->marker + "`"};
      return out;
    }
    codegen::CodegenOptions co;
    co.target = target;
    DiagnosticSink sink;
    auto result = codegen::compile(
        *kernel, co, stop == Stop::Cubin ? codegen::Stage::Cubin : codegen::Stage::PTX, sink);
    if (!result) {
      const Diagnostic *d = firstError(sink.diagnostics());
      out.failure =
          BuildFailure{k.name, "codegen", d ? std::string(d->info().code) : "",
                       d ? d->message : "codegen::compile failed without reporting a diagnostic"};
      return out;
    }
    // What `kina run` reads next (compiler/driver/Run.cpp): the launch
    // metadata must be one the runtime accepts, or the kernel built but
    // cannot run.
    auto spec = runtime::launchSpecFromJson(codegen::toJson(result->launch));
    if (!spec) {
      out.failure =
          BuildFailure{k.name, "launch", std::string(diagInfo(spec.error().diagId()).code),
                       spec.error().message};
      return out;
    }
  }
  return out;
}

Outcome checkThenBuildTileIr(const std::string &path, const std::string &text,
                             const std::string &target) {
  Outcome out;
  SourceFile file(path, text);
  auto tileTarget = tileir::parseTarget(target);
  if (!tileTarget) {
    out.rejectCodes.emplace_back("K1124");
    return out;
  }
  // ---- kina check --backend=tileir (compiler/driver/Check.cpp) ----
  sema::FrontendOptions fe;
  fe.target = target;
  fe.backend = "tileir";
  sema::Analysis analysis = sema::analyze(file, fe);
  std::vector<Diagnostic> diags = analysis.diagnostics;
  tileir::FileCheck checked = tileir::checkFileForTileIr(analysis, target, diags);
  for (const Diagnostic &d : diags)
    if (d.severity() == Severity::Error)
      out.rejectCodes.emplace_back(d.info().code);
  if (!out.rejectCodes.empty())
    return out;
  const auto &version = checked.version;
  const auto &lowered = checked.kernels;
  out.checkClean = true;
  // ---- kina build --backend=tileir (compiler/driver/BuildTileIr.cpp) ----
  // No kernel, or no tileiras here: the check half is all there is.
  if (!version || !version->assembler)
    return out;
  for (const auto &[name, l] : lowered) {
    ++out.kernels;
    auto cubin = tileir::assemble(version->assembler->tool, l.bytecode, *tileTarget);
    if (!cubin) {
      auto f = target::takeTargetFailure(cubin.takeError());
      out.failure = BuildFailure{name, "tileiras", std::string(diagInfo(f.id).code), f.message};
      return out;
    }
  }
  return out;
}

} // namespace kina::property
