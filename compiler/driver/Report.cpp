//===- Report.cpp - `kina report`: registers, spills, smem, occupancy -----===//
//
// Compiles each kernel of the file (or the one under --kernel) to a cubin,
// then reads ptxas' verbose output and the cubin's ELF attributes
// (compiler/target/ResourceReport.h); the text has one block per kernel.
// `--sass` adds the SASS listing's instruction mix; `--json` prints the same
// data as JSON, one entry per kernel in "kernels".
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

#include <algorithm>
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
  auto analysis = checkFileForTarget(*file, options.common.target, options.common.tunePoint, "ptx",
                                     options.kernel);
  if (auto *code = std::get_if<int>(&analysis))
    return *code;
  auto kernels = selectKernels(std::get<sema::Analysis>(analysis), options.kernel, options.file);
  if (auto *code = std::get_if<int>(&kernels))
    return *code;

  // One report over every chosen kernel: the text has a block per kernel,
  // the JSON one entry per kernel in "kernels".
  target::ResourceReport all;
  all.target = targetInfo->id;
  for (const std::string &name : std::get<std::vector<std::string>>(kernels)) {
    auto tileIR = lowerCheckedKernel(std::get<sema::Analysis>(analysis), name, *file);
    if (auto *code = std::get_if<int>(&tileIR))
      return *code;
    const ir::Kernel &kernel = std::get<ir::Kernel>(tileIR);
    auto compiled = compileTileIRToCubin(kernel, *file, options.common.target);
    if (auto *code = std::get_if<int>(&compiled))
      return *code;
    const codegen::CodegenResult &result = std::get<codegen::CodegenResult>(compiled);
    target::ReportOptions ro;
    ro.threadsPerBlock = kernel.threadsPerBlock();
    ro.dynamicSharedBytes = result.launch.dynamicSharedBytes;
    ro.sass = options.sass;
    auto report = target::buildResourceReport(
        result.ptxasLog,
        std::span<const uint8_t>(reinterpret_cast<const uint8_t *>(result.cubin.data()),
                                 result.cubin.size()),
        targetInfo->id, ro);
    if (!report) {
      target::TargetFailure f = target::takeTargetFailure(report.takeError());
      std::cerr << "kina: error[" << diagInfo(f.id).code << "]: kernel '" << name
                << "': " << f.message << "\n";
      return ToolFailure;
    }
    for (target::KernelReport &k : report->kernels)
      all.kernels.push_back(std::move(k));
    for (std::string &n : report->notes)
      if (std::find(all.notes.begin(), all.notes.end(), n) == all.notes.end())
        all.notes.push_back(std::move(n));
  }
  std::cout << (options.json ? target::resourceReportToJson(all) + "\n"
                             : renderResourceReport(all));
  return Success;
}

} // namespace kina::driver
