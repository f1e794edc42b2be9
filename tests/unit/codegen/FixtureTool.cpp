//===- FixtureTool.cpp - Compile a hand-built kernel (tests only) ---------===//
//
// kina-codegen-fixture --kernel NAME [--target sm_XX] [--ptx-version V]
//                      [--emit tile-ir|mlir|lowered-mlir|llvm|ptx|ptxas-log|launch|cubin]
//                      [-o OUT.cubin]   (cubin: also writes OUT.launch.json)
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
#include <fstream>
#include <iostream>

using namespace kina;

int main(int argc, char **argv) {
  CLI::App app{"compile a hand-built tile IR kernel (Kina codegen tests)"};
  std::string kernel, target = "sm_90a", ptxVersion, emit = "ptx", ptxas, output;
  app.add_option("--kernel", kernel, "fixture name")->required();
  app.add_option("--target", target, "target");
  app.add_option("--ptx-version", ptxVersion, "PTX ISA pin");
  app.add_option("--ptxas", ptxas, "ptxas path");
  app.add_option("-o", output, "cubin output path (--emit cubin)");
  app.add_option("--emit", emit, "what to print")
      ->check(CLI::IsMember({"tile-ir", "mlir", "lowered-mlir", "llvm", "ptx", "ptxas-log",
                             "launch", "cubin"}));
  CLI11_PARSE(app, argc, argv);

  for (const auto &k : codegen::fixtures::allKernels()) {
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
    else if (emit == "cubin") {
      std::string path = output.empty() ? kernel + ".cubin" : output;
      std::string json = path.substr(0, path.size() - (path.size() > 6 &&
                                                        path.ends_with(".cubin") ? 6 : 0)) +
                         ".launch.json";
      r->launch.cubin = path.substr(path.find_last_of('/') + 1);
      std::ofstream(path, std::ios::binary) << r->cubin;
      std::ofstream(json) << codegen::toJsonText(r->launch);
      std::cout << path << "\n" << json << "\n";
    }
    else std::cout << codegen::toJsonText(r->launch);
    return 0;
  }
  std::cerr << "error: no fixture kernel named '" << kernel << "'; known:";
  for (const auto &k : codegen::fixtures::stdlibKernels())
    std::cerr << " " << k.name;
  std::cerr << "\n";
  return 2;
}
