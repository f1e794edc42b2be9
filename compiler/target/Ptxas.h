//===- Ptxas.h - Assembling PTX into a cubin with ptxas ---------*- C++ -*-===//
//
// runPtxas() is the last step of the PTX backend: PTX text in, cubin bytes
// and ptxas' verbose log out. Before ptxas runs, the PTX header
// (`.version`, `.target`) is checked against the registry and against the
// release of the ptxas found, so impossible combinations get a clear K1102 /
// K1106 error instead of an assembler failure. A ptxas failure (K1104)
// carries ptxas' own message lines. Never throws; thread-safe (every call
// uses its own temporary files).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "target/Registry.h"
#include "target/Tools.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kina::target {

struct PtxasOptions {
  int optLevel = 3;                         ///< -O0 .. -O3
  bool verbose = true;                      ///< -v (needed for the register report)
  std::optional<unsigned> maxRegisters;     ///< --maxrregcount
  std::vector<std::string> extraArgs;       ///< passed through verbatim
  ToolSearchOptions search;                 ///< where to find ptxas
  unsigned timeoutSeconds = 120;
  std::string inputName = "input.ptx";      ///< replaces the temporary path in messages
};

struct PtxasResult {
  std::vector<std::uint8_t> cubin;
  std::string log;                  ///< ptxas stdout + stderr (the -v report, warnings)
  ToolLocation tool;
  CudaVersion release;              ///< the release of the ptxas that ran
  std::vector<std::string> command; ///< argv, for reproducing by hand
};

/// The `.version` and `.target` directives of PTX text.
struct PtxHeader {
  std::optional<PtxVersion> version;
  std::vector<std::string> targets; ///< `.target sm_90a, texmode_independent` -> {sm_90a, ...}
};
PtxHeader readPtxHeader(std::string_view ptx);

/// Assembles `ptx` for `target` (`--gpu-name <target>`). Errors (TargetError):
/// UnknownTarget / InvalidTargetPtx for a bad header, TargetUnsupportedByTool
/// when the ptxas found cannot handle the pair, ToolNotFound, ToolFailed.
llvm::Expected<PtxasResult> runPtxas(std::string_view ptx, TargetId target,
                                     const PtxasOptions &opts = {});

} // namespace kina::target
