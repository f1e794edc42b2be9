//===- FixtureTool.cpp - Compile a hand-built kernel (tests only) ---------===//
//
// kina-codegen-fixture --kernel NAME [--target sm_XX] [--ptx-version V]
//                      [--emit tile-ir|mlir|lowered-mlir|llvm|ptx|ptxas-log|launch]
//
// The test-only way to feed tile IR to the backend until the frontend lands:
// tests/lit/codegen FileChecks its output. Diagnostics go to stderr as
// `error[Kxxxx]: message`; the exit code is 1 on errors.
//
//===----------------------------------------------------------------------===//
#include "Fixtures.h"
#include "codegen/Codegen.h"
#include "ir/Printer.h"

#include <CLI/CLI.hpp>
#include <iostream>

using namespace kina;

int main(int argc, char **argv) {
  CLI::App app{"compile a hand-built tile IR kernel (Kina codegen tests)"};
  std::string kernel, target = "sm_90a", ptxVersion, emit = "ptx", ptxas;
  app.add_option("--kernel", kernel, "fixture name")->required();
  app.add_option("--target", target, "target");
  app.add_option("--ptx-version", ptxVersion, "PTX ISA pin");
  app.add_option("--ptxas", ptxas, "ptxas path");
  app.add_option("--emit", emit, "what to print")
      ->check(CLI::IsMember({"tile-ir", "mlir", "lowered-mlir", "llvm", "ptx", "ptxas-log",
                             "launch"}));
  CLI11_PARSE(app, argc, argv);

  for (const auto &k : codegen::fixtures::stdlibKernels()) {
    if (k.name != kernel)
      continue;
    ir::Kernel ir = k.make();
    if (emit == "tile-ir") {
      std::cout << ir::print(ir);
      return 0;
    }
    codegen::CodegenOptions opts;
    opts.target = target;
    opts.ptxVersion = ptxVersion;
    opts.ptxasPath = ptxas;
    codegen::Stage stage = emit == "mlir"           ? codegen::Stage::MLIR
                           : emit == "lowered-mlir" ? codegen::Stage::LoweredMLIR
                           : emit == "llvm"         ? codegen::Stage::LLVM
                           : emit == "ptx"          ? codegen::Stage::PTX
                           : emit == "launch"       ? codegen::Stage::MLIR
                                                    : codegen::Stage::Cubin;
    DiagnosticSink sink;
    auto r = codegen::compile(ir, opts, stage, sink);
    for (const auto &d : sink.diagnostics()) {
      std::cerr << (d.severity() == Severity::Error ? "error[" : "warning[") << d.info().code
                << "]: " << d.message << "\n";
      for (const auto &n : d.notes)
        std::cerr << "  note: " << n << "\n";
    }
    if (!r)
      return 1;
    if (emit == "mlir") std::cout << r->mlir;
    else if (emit == "lowered-mlir") std::cout << r->loweredMlir;
    else if (emit == "llvm") std::cout << r->llvmIR;
    else if (emit == "ptx") std::cout << r->ptx;
    else if (emit == "ptxas-log") std::cout << r->ptxasLog;
    else std::cout << codegen::toJsonText(r->launch);
    return 0;
  }
  std::cerr << "error: no fixture kernel named '" << kernel << "'; known:";
  for (const auto &k : codegen::fixtures::stdlibKernels())
    std::cerr << " " << k.name;
  std::cerr << "\n";
  return 2;
}
