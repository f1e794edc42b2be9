//===- Pipeline.h - `kina check` then `kina build`, in process --*- C++ -*-===//
//
// The two halves of the property "check clean => build succeeds", called
// through the same entry points as the CLI (compiler/driver/Check.cpp and
// Build.cpp): sema::analyze with diagnosticsOnly for `kina check`, then a
// full analysis, lower::lowerKernel and codegen::compile for every kernel
// of the file, as `kina build` does. This is the one file that knows those
// entry points; when they change, only it changes.
//
// Thread-safety: every call builds its own analysis and MLIR/LLVM contexts;
// calls on different threads are independent.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kina::property {

/// A build failure after a clean check: which kernel, where in the
/// pipeline, the diagnostic code (empty when the failure carried none) and
/// the message.
struct BuildFailure {
  std::string kernel;
  /// "analyze" | "lower" | "codegen" | "launch" (the runtime refuses the
  /// launch metadata `kina run` reads) | "injected", or "accepted": a
  /// generated program the language rejects checked clean (Main.cpp).
  std::string stage;
  std::string code; ///< "K1206"; empty: no diagnostic code
  std::string message;

  /// One line: `stage code: message` (code `uncoded` when there is none).
  std::string text() const;
  /// `text()` with names, numbers and quoted fragments abstracted, so that
  /// two programs failing for the same reason share it.
  std::string signature() const;
};

/// A deliberate fault in the build, for the harness's own test: kernels
/// whose tile IR contains `marker` fail (with or without a code) or crash.
struct FaultInjection {
  enum class Kind { Coded, Uncoded, Crash } kind = Kind::Uncoded;
  std::string marker;
  /// Parses `coded:MARKER`, `uncoded:MARKER` or `crash:MARKER`.
  static std::optional<FaultInjection> parse(const std::string &spec);
};

enum class Stop { PTX, Cubin };

struct Outcome {
  bool checkClean = false;
  std::vector<std::string> rejectCodes; ///< codes of the check's errors, in order
  unsigned kernels = 0;                 ///< kernels built (or attempted)
  std::optional<BuildFailure> failure;  ///< set: check clean, build failed
};

/// `kina check --target T` on `text`; when it is clean, `kina build
/// --target T --emit=ptx` (or cubin, through ptxas) of every kernel, and
/// the runtime's reading of each kernel's launch metadata (what `kina run`
/// does next, without a GPU).
Outcome checkThenBuild(const std::string &path, const std::string &text, const std::string &target,
                       Stop stop, const FaultInjection *fault = nullptr);

/// `kina check --backend=tileir --target T` on `text`; when it is clean and
/// a tileiras is installed, `kina build --backend=tileir` of every kernel
/// (bytecode, then tileiras). Block-level kernels are what passes the check.
Outcome checkThenBuildTileIr(const std::string &path, const std::string &text,
                             const std::string &target);

/// Only the check half.
bool checksClean(const std::string &path, const std::string &text, const std::string &target);

} // namespace kina::property
