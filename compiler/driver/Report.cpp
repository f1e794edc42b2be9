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
#include "driver/CompileKernel.h"
#include "driver/SourceLoader.h"
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
  auto built = compileKernelToCubin(*file, options.common.target, options.kernel);
  if (auto *code = std::get_if<int>(&built))
    return *code;
  CompiledKernel &ck = std::get<CompiledKernel>(built);
  const ir::Kernel *tileIR = &ck.tileIR;
  const codegen::CodegenResult *compiled = &ck.result;
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
