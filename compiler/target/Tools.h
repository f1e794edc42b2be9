//===- Tools.h - Finding and running the CUDA command-line tools -*- C++ -*-===//
//
// Discovery of ptxas, nvdisasm, cuobjdump and tileiras (DESIGN.md §3.9), and
// a small subprocess helper built on llvm::sys::ExecuteAndWait with
// temporary files. A tool is looked for, in this order:
//
//   1. an explicit override: ToolSearchOptions::overrides (a CLI flag or an
//      LSP setting), then the environment variable KINA_PTXAS, KINA_NVDISASM,
//      KINA_CUOBJDUMP or KINA_TILEIRAS. An override that does not name an
//      executable file is an error; the search does NOT fall through;
//   2. $CUDA_HOME/bin/<tool>;
//   3. every directory of $PATH;
//   4. the project-local NVIDIA wheels that scripts/setup.sh installs:
//      <kina home>/.deps/cuda/**/bin/<tool> (first match in sorted order).
//
// The Kina home (the repository or install prefix holding .deps/) is:
// ToolSearchOptions::kinaHome, else $KINA_HOME, else the nearest ancestor
// of the running executable's directory that contains .deps/cuda, else
// the source tree this binary was built from (when it has .deps/cuda).
//
// When nothing is found the error (K1103) names the tool, every place that
// was searched, and how to get it. Functions here never throw; they are
// safe to call from several threads (the version cache is locked).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "target/Registry.h"

#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kina::target {

enum class Tool { Ptxas, Nvdisasm, Cuobjdump, Tileiras };

/// "ptxas", "nvdisasm", "cuobjdump", "tileiras".
std::string_view toolName(Tool tool);
/// "KINA_PTXAS", ...
std::string_view toolEnvVar(Tool tool);
/// The PyPI wheel that ships the tool, e.g. "nvidia-cuda-nvcc" for ptxas.
std::string_view toolPackage(Tool tool);
std::optional<Tool> parseToolName(std::string_view name);

/// Where a tool was found (see the search order above).
enum class ToolSource { Override, EnvVar, CudaHome, Path, ProjectDeps };
std::string_view toolSourceName(ToolSource source);

struct ToolLocation {
  Tool tool;
  std::string path;
  ToolSource source;
};

struct ToolSearchOptions {
  /// Explicit paths (e.g. from `--ptxas=`); they win over the environment.
  std::map<Tool, std::string> overrides;
  /// The Kina home holding .deps/cuda; replaces $KINA_HOME and the
  /// executable-relative search when set.
  std::optional<std::string> kinaHome;
};

/// The Kina home as described above, or nullopt when none is found.
std::optional<std::string> findKinaHome(const ToolSearchOptions &opts = {});

/// Finds `tool`. Errors are TargetError with DiagId::ToolNotFound.
llvm::Expected<ToolLocation> findTool(Tool tool, const ToolSearchOptions &opts = {});
/// Same, by name ("ptxas"); unknown names are ToolNotFound errors too.
llvm::Expected<ToolLocation> findTool(std::string_view name, const ToolSearchOptions &opts = {});

/// What `<tool> --version` says.
struct ToolVersion {
  std::string text;    ///< the whole output
  CudaVersion release; ///< from "release 13.0"
  std::string build;   ///< e.g. "V13.0.88"
};
/// Runs `<tool> --version` (cached per path). Errors: ToolFailed.
llvm::Expected<ToolVersion> toolVersion(const ToolLocation &tool);

/// Output of one finished process.
struct ProcessResult {
  int exitCode = -1;
  std::string out; ///< stdout
  std::string err; ///< stderr
};

/// Runs `program args...` with stdout and stderr captured through temporary
/// files. A process that cannot start or exceeds `timeoutSeconds` is a
/// ToolFailed error; a non-zero exit code is NOT an error (check exitCode).
llvm::Expected<ProcessResult> runProcess(const std::string &program,
                                         const std::vector<std::string> &args,
                                         unsigned timeoutSeconds = 120);

} // namespace kina::target
