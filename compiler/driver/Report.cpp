//===- Report.cpp - `kina report`: registers, spills, smem, occupancy -----===//
//
// Compiles the kernel to a cubin, then reads ptxas' verbose output and the
// cubin's ELF attributes (compiler/target/ResourceReport.h). `--sass` adds
// the SASS listing's instruction mix; `--json` prints the same data as JSON.
//
//===----------------------------------------------------------------------===//
#include "codegen/Codegen.h"
#include "diag/Render.h"
#include "driver/Commands.h"
#include "driver/SourceLoader.h"
#include "lower/TileIRFromAst.h"
#include "sema/Frontend.h"
#include "target/Registry.h"
#include "target/ReportJson.h"
#include "target/ResourceReport.h"
#include "target/TargetError.h"

#include <iostream>

namespace kina::driver {

int runReportCommand(const ReportOptions &options) {
  std::string error;
  auto file = loadSource(options.file, error);
  if (!file) {
    std::cerr << "kina: error: " << error << "\n";
    return UsageError;
  }
  const target::TargetInfo *targetInfo = target::lookupTarget(options.common.target);
  if (!targetInfo) {
    std::cerr << "kina: error: " << target::unknownTargetMessage(options.common.target) << "\n";
    return UsageError;
  }
  sema::FrontendOptions fe;
  fe.target = options.common.target;
  sema::Analysis analysis = sema::analyze(*file, fe);
  bool errors = false;
  for (const Diagnostic &d : analysis.diagnostics) {
    errors |= d.severity() == Severity::Error;
    std::cerr << renderDiagnostic(d, *file);
  }
  if (errors)
    return InputErrors;
  std::string kernel = options.kernel;
  if (kernel.empty()) {
    if (analysis.program.kernels.size() != 1) {
      std::cerr << "kina: error: the file has " << analysis.program.kernels.size()
                << " kernels; choose one with --kernel\n";
      return UsageError;
    }
    kernel = analysis.program.kernels[0].name;
  }
  auto tileIR = lower::lowerKernel(analysis, kernel);
  if (!tileIR) {
    std::cerr << "kina: error: " << llvm::toString(tileIR.takeError()) << "\n";
    return InputErrors;
  }
  DiagnosticSink sink;
  codegen::CodegenOptions cg;
  cg.target = options.common.target;
  auto compiled = codegen::compile(*tileIR, cg, codegen::Stage::Cubin, sink);
  for (const Diagnostic &d : sink.diagnostics())
    std::cerr << renderDiagnostic(d, *file);
  if (!compiled)
    return ToolFailure;
  target::ReportOptions ro;
  ro.threadsPerBlock = tileIR->threadsPerBlock();
  ro.dynamicSharedBytes = compiled->launch.dynamicSharedBytes;
  ro.sass = options.sass;
  auto report = target::buildResourceReport(
      compiled->ptxasLog,
      std::span<const uint8_t>(reinterpret_cast<const uint8_t *>(compiled->cubin.data()),
                               compiled->cubin.size()),
      targetInfo->id, ro);
  if (!report) {
    target::TargetFailure f = target::takeTargetFailure(report.takeError());
    std::cerr << "kina: error[" << diagInfo(f.id).code << "]: " << f.message << "\n";
    return ToolFailure;
  }
  std::cout << (options.json ? target::resourceReportToJson(*report) + "\n"
                             : renderResourceReport(*report));
  return Success;
}

} // namespace kina::driver
