//===- Commands.h - The `kina` subcommands ----------------------*- C++ -*-===//
//
// main.cpp parses the command line (CLI11) and calls one of these. Each
// returns the process exit code: 0 success, 1 errors in the input,
// 2 usage errors, 77 skipped (no CUDA device), 3 internal/tool failures.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "target/Registry.h"

#include <map>
#include <string>
#include <vector>

namespace kina::driver {

enum ExitCode { Success = 0, InputErrors = 1, UsageError = 2, ToolFailure = 3, Skipped = 77 };

enum class DiagnosticsFormat { Text, Json };

struct CommonOptions {
  std::string target = std::string(target::defaultTargetName()); ///< --target
  DiagnosticsFormat format = DiagnosticsFormat::Text;
  bool color = false;
};

struct CheckOptions {
  CommonOptions common;
  std::vector<std::string> files;
};

struct BuildOptions {
  CommonOptions common;
  std::string file;
  std::string kernel;         ///< empty: every kernel in the file
  std::string emit = "cubin"; ///< tile-ir | mlir | llvm | ptx | cubin
  std::string output;         ///< -o; empty: stdout for text, <kernel>.cubin for cubin
  std::string ptxVersion;     ///< optional explicit PTX ISA pin, e.g. "8.0"
  bool lineInfo = false;      ///< --line-info: `.loc` per Kina line in PTX, a cubin line table
  bool remarks = false;       ///< --remarks: ptxas findings at their Kina line (K0850, K0851)
};

struct ReportOptions {
  CommonOptions common;
  std::string file;
  std::string kernel; ///< empty: every kernel in the file
  bool sass = false;
  bool json = false;
};

struct RunOptions {
  CommonOptions common;
  std::string file;
  std::string kernel; ///< empty: every kernel in the file
  std::map<std::string, long long> dims;
  std::vector<std::string> inputs; ///< "random" or .npy paths
  std::string scalars;             ///< "eps=1e-5,alpha=2": scalar parameter values
  unsigned long long seed = 1;
  bool check = false;
  bool bench = false;
  bool json = false;
  bool interpret = false; ///< the tile-IR interpreter instead of the GPU
  std::string save;       ///< --save DIR: inputs and outputs as .npy in DIR/<kernel>/
};

int runCheckCommand(const CheckOptions &options);
int runBuildCommand(const BuildOptions &options);
int runReportCommand(const ReportOptions &options);
int runRunCommand(const RunOptions &options);

} // namespace kina::driver
