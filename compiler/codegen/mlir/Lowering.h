//===- Lowering.h - MLIR internals of kina_codegen ---------------*- C++ -*-===//
//
// Shared by the two MLIR-heavy translation units (TileToMLIR.cpp builds the
// module, Pipeline.cpp lowers and serializes it). Nothing outside
// compiler/codegen/mlir includes this header; the rest of the compiler sees
// only codegen/Codegen.h.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/Layout.h"
#include "ir/TileIR.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace kina::codegen::detail {

/// Name of the gpu.module that holds the kernel.
inline constexpr const char *kGpuModuleName = "kina_kernels";
/// Symbol of the shared-memory arena (llvm.mlir.global in address space 3).
inline constexpr const char *kSharedArenaName = "__kina_smem";

/// Builds `module { gpu.module @kina_kernels { gpu.func @<kernel> kernel } }`.
/// With dynamicShared the arena is an external zero-sized array (size given
/// at launch); otherwise a static array of layout.sharedBytes. Returns null
/// and sets `error` for IR the lowering does not handle. With `source`
/// (line info), ops carry FileLineColLocs of their tile-IR op's span in it.
mlir::OwningOpRef<mlir::ModuleOp> buildModule(mlir::MLIRContext &ctx, const ir::Kernel &kernel,
                                              const KernelLayout &layout, bool dynamicShared,
                                              const SourceFile *source, std::string &error);

} // namespace kina::codegen::detail
