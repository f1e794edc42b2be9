//===- Artifacts.h - Tile IR, PTX, SASS and register reports for kernels -*- C++ -*-===//
//
// The in-process build behind `kina/tileIR`, `kina/ptx`, `kina/sass` and
// `kina/registerReport` (the same pipeline as `kina build` and `kina
// report`): kina::sema::analyze → kina::lower::lowerKernel → tile IR
// (ir::print) → kina::codegen::compile (PTX, or cubin through ptxas) →
// kina::target::buildResourceReport / disassembleCubin. Each call takes
// seconds for the codegen stages; the caller (Analysis) runs them only on
// an explicit request and caches them by content hash, kernel and target.
//
// Thread-safety: every function is independent of the others and may run
// on any thread (codegen creates its own MLIR/LLVM contexts). Nothing
// throws: failures come back as ok=false with a message that says why (the
// file's first error, a missing tool, a codegen diagnostic).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Analysis.h"

#ifdef KINA_LSP_WITH_CODEGEN

#include "diag/Source.h"

#include <cstdint>
#include <string>

namespace kina::lsp {

/// How far buildKernel() goes.
enum class BuildStage { TileIR, PTX, Cubin };

/// A kernel built up to some stage.
struct KernelBuild {
  bool ok = false;
  std::string error; ///< when !ok
  std::string tileIR;
  std::string ptx;      ///< PTX and Cubin
  std::string cubin;    ///< Cubin: ELF bytes
  std::string ptxasLog; ///< Cubin: ptxas -v output
  uint64_t dynamicSharedBytes = 0;
  unsigned threadsPerBlock = 0;
  /// Cubin: ptxas findings at their Kina line (codegen/Remarks.h: K0850
  /// spills, K0851 register-limited occupancy), for this exact text.
  std::vector<Diagnostic> remarks;
  size_t bytes() const { return tileIR.size() + ptx.size() + cubin.size() + ptxasLog.size(); }
};

/// Checks `file` for `target`, lowers `kernel` and compiles it to `stage`.
KernelBuild buildKernel(const SourceFile &file, const std::string &kernel,
                        const std::string &target, BuildStage stage);

/// The register report (text, JSON, and a one-paragraph hover summary) of a
/// Cubin-stage build.
ArtifactResult registerReport(const KernelBuild &build, const std::string &kernel,
                              const std::string &target);

/// The SASS listing of the kernel (nvdisasm) plus its instruction mix.
ArtifactResult sassListing(const KernelBuild &build, const std::string &kernel,
                           const std::string &target);

/// The lines of `ptx` from the kernel's `.entry` on, at most `lines` of them.
std::string ptxExcerpt(const std::string &ptx, unsigned lines);

} // namespace kina::lsp

#endif // KINA_LSP_WITH_CODEGEN
