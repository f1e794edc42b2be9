//===- CompileKernel.h - Source file to cubin for one kernel ----*- C++ -*-===//
//
// The pipeline `kina run` and `kina report` share: check the file (printing
// every diagnostic), pick the kernel, lower it to tile IR and compile it to a
// cubin. On failure it returns the exit code to use.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/Codegen.h"
#include "ir/TileIR.h"
#include "sema/Frontend.h"

#include <optional>
#include <string>
#include <variant>

namespace kina::driver {

struct CompiledKernel {
  std::string name;
  ir::Kernel tileIR;
  codegen::CodegenResult result;
};

/// Either the compiled kernel or the exit code of the failure (already
/// explained on stderr).
std::variant<CompiledKernel, int> compileKernelToCubin(const SourceFile &file,
                                                       const std::string &target,
                                                       const std::string &kernel);

} // namespace kina::driver
