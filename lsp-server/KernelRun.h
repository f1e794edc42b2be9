//===- KernelRun.h - `kina/run`: the kina driver as a cancellable child -*- C++ -*-===//
//
// Running a kernel needs the GPU runtime, the CPU reference and the launch
// guard, all of which the `kina` driver has; the server does not link them.
// So `kina/run` writes the editor's current text to a temporary file and
// runs `kina run FILE --kernel K --target T --check --json [--dims ...]` as a
// child process (stdin from /dev/null, stdout+stderr captured), forwarding
// each output line as progress. Cancelling the request kills the child
// (SIGTERM, then SIGKILL). Exit status 77 is the driver's SKIP (no CUDA
// device), reported as such, never as success.
//
// The `kina` executable is found, in order: the `kina.path` setting, $KINA,
// next to kina-lsp, in the build tree beside it (../compiler/driver/kina),
// then $PATH.
//
// Thread-safety: runKina() may run on any thread; it blocks until the child
// exits (it polls the token every 50 ms).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "query/Cancellation.h"

#include <functional>
#include <map>
#include <optional>
#include <string>

namespace kina::lsp {

/// The `kina` executable, or nullopt with `searched` listing where it looked.
std::optional<std::string> findKinaExecutable(const std::string &configured,
                                              std::string &searched);

struct KinaRunRequest {
  std::string kinaPath;
  std::string sourceText;
  std::string fileName = "buffer.kina"; ///< name of the temporary copy
  std::string kernel;
  bool hostFunction = false; ///< `kernel` names a host function: `kina run --fn` (host)
  std::string target = "auto";
  std::map<std::string, long long> dims;
};

struct KinaRunOutcome {
  bool started = false;
  bool cancelled = false;
  int exitCode = -1;         ///< the child's exit status (128+N when killed by signal N)
  std::string output;        ///< stdout and stderr, interleaved, capped at 1 MiB
  std::string error;         ///< when !started
  std::string commandLine;   ///< what was run, for the log and the output header
};

/// Exit status of `kina run` without a CUDA device.
constexpr int kKinaSkipExitCode = 77;

KinaRunOutcome runKina(const KinaRunRequest &request, const query::CancellationToken &token,
                       const std::function<void(const std::string &line)> &onLine);

} // namespace kina::lsp
