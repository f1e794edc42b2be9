//===- CompileKernel.cpp - The pipeline `kina run` and `kina report` share -===//
#include "driver/CompileKernel.h"

#include "diag/Render.h"
#include "driver/Commands.h"
#include "lower/TileIRFromAst.h"

#include <iostream>

namespace kina::driver {

OrExit<sema::Analysis> checkFileForTarget(const SourceFile &file, const std::string &target,
                                          const std::map<std::string, int64_t> &tunePoint,
                                          const std::string &backend, const std::string &kernel) {
  sema::FrontendOptions fe;
  fe.onlyKernel = kernel;
  fe.target = target;
  fe.backend = backend;
  fe.tunePoint = tunePoint;
  sema::Analysis analysis = sema::analyze(file, fe);
  bool errors = false;
  for (const Diagnostic &d : analysis.diagnostics) {
    errors |= d.severity() == Severity::Error;
    std::cerr << renderDiagnostic(d, file);
  }
  if (errors)
    return InputErrors;
  return analysis;
}

OrExit<std::vector<std::string>> selectKernels(const sema::Analysis &analysis,
                                               const std::string &kernel,
                                               const std::string &fileName) {
  std::vector<std::string> names;
  for (const auto &k : analysis.program.kernels)
    if (kernel.empty() || k.name == kernel)
      names.push_back(k.name);
  if (!names.empty())
    return names;
  if (kernel.empty()) {
    std::cerr << "kina: error: '" << fileName << "' has no kernel\n";
    return UsageError;
  }
  std::cerr << "kina: error: no kernel named '" << kernel << "' in '" << fileName << "'";
  if (!analysis.program.kernels.empty()) {
    std::cerr << " (kernels:";
    for (const auto &k : analysis.program.kernels)
      std::cerr << " " << k.name;
    std::cerr << ")";
  }
  std::cerr << "\n";
  return UsageError;
}

OrExit<ir::Kernel> lowerCheckedKernel(const sema::Analysis &analysis, const std::string &name,
                                      const SourceFile &file) {
  auto tileIR = lower::lowerKernel(analysis, name);
  if (!tileIR) { // a compiler bug after a clean check: internal K1210 at the construct
    std::cerr << renderDiagnostic(lower::loweringDiagnostic(tileIR.takeError(), Span{}), file);
    return ToolFailure;
  }
  return std::move(*tileIR);
}

OrExit<codegen::CodegenResult>
compileTileIRToCubin(const ir::Kernel &kernel, const SourceFile &file, const std::string &target) {
  DiagnosticSink sink;
  codegen::CodegenOptions cg;
  cg.target = target;
  auto compiled = codegen::compile(kernel, cg, codegen::Stage::Cubin, sink);
  for (const Diagnostic &d : sink.diagnostics())
    std::cerr << renderDiagnostic(d, file);
  if (!compiled)
    return ToolFailure;
  return std::move(*compiled);
}

} // namespace kina::driver
