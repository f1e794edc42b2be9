//===- MLIRStages.h - The in-process MLIR/LLVM part of codegen --*- C++ -*-===//
//
// A narrow, MLIR-free interface between Codegen.cpp (validation, ptxas,
// metadata) and the MLIR-heavy translation units, so that only
// TileToMLIR.cpp and Pipeline.cpp pay for MLIR headers.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/Codegen.h"
#include "codegen/Layout.h"

namespace kina::codegen::detail {

struct MLIRStageRequest {
  const ir::Kernel *kernel = nullptr;
  const KernelLayout *layout = nullptr;
  bool dynamicShared = false;
  std::string chip;     ///< "sm_90a" (already validated)
  std::string features; ///< "+ptx80" (already validated)
  unsigned optLevel = 3;
  Stage until = Stage::PTX; ///< at most Stage::PTX
  const SourceFile *lineInfo = nullptr; ///< CodegenOptions::lineInfo
};

/// Fills out.mlir, out.loweredMlir, out.llvmIR, out.ptx (as far as
/// request.until) and the stage times. On failure returns false with the
/// MLIR/LLVM messages in `error`.
bool runMLIRStages(const MLIRStageRequest &request, CodegenResult &out, std::string &error);

} // namespace kina::codegen::detail
