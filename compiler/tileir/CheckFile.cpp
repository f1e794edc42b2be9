//===- CheckFile.cpp - `kina check --backend=tileir` on a checked file ----===//
#include "tileir/CheckFile.h"

#include "lower/TileIRFromAst.h"

namespace kina::tileir {

std::optional<Target> targetOrDiagnose(const std::string &targetName, Span span,
                                       std::vector<Diagnostic> &diags) {
  auto target = parseTarget(targetName);
  if (!target)
    diags.push_back(Diagnostic{DiagId::TileIrUnknownTarget, span,
                               targetName + " has no Tile IR backend (docs/tile-ir.md lists "
                                            "sm_80 ... sm_121)"});
  return target;
}

FileCheck checkFileForTileIr(const sema::Analysis &analysis, const std::string &targetName,
                             std::vector<Diagnostic> &diags,
                             const std::optional<CheckVersion> &version) {
  FileCheck out;
  for (const Diagnostic &d : diags)
    if (d.severity() == Severity::Error)
      return out;
  // Lower every kernel first: the lowering reads the analysis's diagnostics,
  // which may be `diags` itself.
  std::vector<ir::Kernel> kernels;
  for (const auto &k : analysis.program.kernels) {
    auto kernel = lower::lowerKernel(analysis, k.name);
    if (!kernel) {
      llvm::consumeError(kernel.takeError());
      continue;
    }
    kernels.push_back(std::move(*kernel));
  }
  if (kernels.empty())
    return out;
  auto target = targetOrDiagnose(targetName, kernels.front().span, diags);
  if (!target)
    return out;
  out.version = version ? version : versionForCheck(*target);
  if (!out.version) {
    diags.push_back(Diagnostic{DiagId::TileIrRequirementMissing, kernels.front().span,
                               "Kina's bytecode writer has no Tile IR version that " + targetName +
                                   " accepts (docs/tile-ir.md)"});
    return out;
  }
  for (const ir::Kernel &kernel : kernels)
    if (auto l = lowerChecked(kernel, *target, out.version->version, out.version->describe, diags))
      out.kernels.emplace_back(kernel.name, std::move(*l));
  return out;
}

} // namespace kina::tileir
