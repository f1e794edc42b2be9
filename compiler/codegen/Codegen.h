//===- Codegen.h - Tile IR to MLIR, LLVM IR, PTX and cubin ------*- C++ -*-===//
//
// The public entry of kina_codegen. compile() takes a verified tile IR
// kernel and a target and runs, in process:
//
//   tile IR --(TileToMLIR)--> MLIR: gpu.module/gpu.func with scf, arith,
//   llvm and nvvm ops (cp.async, ldmatrix, mma.sync, bar.sync, shfl)
//   --(DESIGN.md §3.8 pipeline: nvvm-attach-target, then in gpu.module
//   convert-scf-to-cf, convert-gpu-to-nvvm, convert-nvvm-to-llvm,
//   canonicalize, cse, reconcile-unrealized-casts)--> LLVM dialect
//   --(translation, O3, NVPTX backend)--> PTX --(ptxas)--> cubin.
//
// The target and PTX ISA version are validated against the registry
// (target/Registry.h) BEFORE LLVM is called, so an impossible combination
// is a K1101/K1102 diagnostic and never an `LLVM ERROR` abort. Errors in the
// IR, unsupported shapes (K1206), shared memory limits (K1207), internal
// MLIR/LLVM failures (K1208) and ptxas problems (K1103/K1104) all come back
// as diagnostics in the sink; nothing throws or aborts.
//
// Thread-safety: compile() creates its own MLIR and LLVM contexts; calls on
// different threads are independent.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/LaunchMetadata.h"
#include "diag/Diagnostic.h"
#include "ir/TileIR.h"

#include <optional>
#include <string>

namespace kina::codegen {

/// How far compile() goes. Each stage runs the ones before it.
enum class Stage { MLIR, LoweredMLIR, LLVM, PTX, Cubin };

struct CodegenOptions {
  /// A registry target name; empty: the registry's default
  /// (target::defaultTarget()).
  std::string target;
  /// An explicit PTX ISA pin such as "8.0"; empty picks the target's
  /// default raised to what the kernel's capabilities need (and capped by the
  /// ptxas found when the stage is Cubin).
  std::string ptxVersion;
  /// LLVM optimization level. (O2 was tried: the same PTX but for
  /// gemm_tc's index arithmetic, and only 1% fewer instructions to compile.)
  unsigned optLevel = 3;
  /// Explicit ptxas path (--ptxas); empty uses target::findTool.
  std::string ptxasPath;
  /// Run the IR verifier first (the frontend may have done it already).
  bool verifyIR = true;
  /// Line info (`--line-info`, editor requests): the .kina file the kernel's
  /// spans point into. Set, MLIR ops carry its positions, the PTX gets
  /// `.file`/`.loc` directives (debug directives only: no DWARF sections, no
  /// `.target ..., debug`) and ptxas runs with -lineinfo so the cubin has a
  /// line table. Null: none of that (the PTX as before).
  const SourceFile *lineInfo = nullptr;
  /// Cubin builds: ptxas findings as coded diagnostics at their Kina line
  /// (Remarks.h: spills K0850, register-limited occupancy K0851).
  bool remarks = false;
};

/// Wall-clock milliseconds per stage.
struct StageTimes {
  double buildMLIR = 0;   ///< tile IR -> MLIR
  double lowerMLIR = 0;   ///< the pass pipeline
  double translate = 0;   ///< MLIR LLVM dialect -> llvm::Module
  double optimize = 0;    ///< LLVM O3 (CodegenOptions::optLevel)
  double emitPTX = 0;     ///< NVPTX backend
  double ptxas = 0;
};

struct CodegenResult {
  std::string targetName;
  std::string ptxVersion; ///< "8.0"
  // The text of a stage is kept only when compile() stops at that stage
  // (printing costs time); the PTX is kept for PTX and Cubin.
  std::string mlir;        ///< Stage::MLIR: as built
  std::string loweredMlir; ///< Stage::LoweredMLIR: after the pass pipeline
  std::string llvmIR;      ///< Stage::LLVM: optimized LLVM IR
  std::string ptx;         ///< Stage::PTX and Stage::Cubin
  std::string cubin;       ///< Cubin: the ELF bytes
  std::string ptxasLog;    ///< Cubin: ptxas -v output
  LaunchMetadata launch;
  StageTimes times;
};

/// Compiles `kernel` up to `until`. Returns nullopt after reporting at least
/// one error diagnostic to `sink`.
std::optional<CodegenResult> compile(const ir::Kernel &kernel, const CodegenOptions &options,
                                     Stage until, DiagnosticSink &sink);

} // namespace kina::codegen
