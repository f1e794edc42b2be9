//===- CompileKernel.cpp - Source file to cubin for one kernel ------------===//
#include "driver/CompileKernel.h"

#include "diag/Render.h"
#include "driver/Commands.h"
#include "lower/TileIRFromAst.h"

#include <iostream>

namespace kina::driver {

std::variant<CompiledKernel, int> compileKernelToCubin(const SourceFile &file,
                                                       const std::string &target,
                                                       const std::string &kernel) {
  sema::FrontendOptions fe;
  fe.target = target;
  sema::Analysis analysis = sema::analyze(file, fe);
  bool errors = false;
  for (const Diagnostic &d : analysis.diagnostics) {
    errors |= d.severity() == Severity::Error;
    std::cerr << renderDiagnostic(d, file);
  }
  if (errors)
    return InputErrors;
  std::string name = kernel;
  if (name.empty()) {
    if (analysis.program.kernels.size() != 1) {
      std::cerr << "kina: error: the file has " << analysis.program.kernels.size()
                << " kernels; choose one with --kernel\n";
      return UsageError;
    }
    name = analysis.program.kernels[0].name;
  }
  auto tileIR = lower::lowerKernel(analysis, name);
  if (!tileIR) { // a compiler bug after a clean check: internal K1210 at the construct
    std::cerr << renderDiagnostic(lower::loweringDiagnostic(tileIR.takeError(), Span{}), file);
    return ToolFailure;
  }
  DiagnosticSink sink;
  codegen::CodegenOptions cg;
  cg.target = target;
  auto compiled = codegen::compile(*tileIR, cg, codegen::Stage::Cubin, sink);
  for (const Diagnostic &d : sink.diagnostics())
    std::cerr << renderDiagnostic(d, file);
  if (!compiled)
    return ToolFailure;
  return CompiledKernel{name, std::move(*tileIR), std::move(*compiled)};
}

} // namespace kina::driver
