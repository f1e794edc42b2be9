//===- Commands.h - The `kina` subcommands ----------------------*- C++ -*-===//
//
// main.cpp parses the command line (CLI11) and calls one of these. Each
// returns the process exit code: 0 success, 1 errors in the input,
// 2 usage errors, 77 skipped (no CUDA device), 3 internal/tool failures.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "target/Registry.h"

#include <cstdint>
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
  /// --param BM=128,BN=256: the point of the kernels' tune parameters
  /// (syntax/TuneParams.h); a parameter not named takes its default.
  std::vector<std::string> paramSpecs;
  std::map<std::string, int64_t> tunePoint;
};

struct CheckOptions {
  CommonOptions common;
  std::vector<std::string> files;
  bool allPoints = false; ///< --all-points: every point of every lattice
  std::string backend = "ptx"; ///< ptx | tileir: also lower each kernel to Tile IR
};

struct BuildOptions {
  CommonOptions common;
  std::string file;
  std::string kernel;         ///< empty: every kernel in the file
  std::string emit = "cubin"; ///< tile-ir | mlir | llvm | ptx | cubin
  std::string output;         ///< -o; empty: stdout for text, <kernel>.cubin for cubin
  std::string ptxVersion;     ///< optional explicit PTX ISA pin, e.g. "8.0"
  /// --dims: the problem shape whose tuned point (the tuning cache) a kernel
  /// with tune parameters is built at; nothing else reads it.
  std::map<std::string, long long> dims;
  bool lineInfo = false;      ///< --line-info: `.loc` per Kina line in PTX, a cubin line table
  std::string backend = "ptx"; ///< ptx | tileir (BuildTileIr.cpp; cubin only)
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
  std::string backend = "ptx"; ///< ptx | tileir (BuildTileIr.cpp)
  std::string cubin;           ///< --cubin: a Tile IR cubin from `kina build --backend=tileir`
};

struct TuneOptions {
  CommonOptions common;
  std::string file;
  std::vector<std::string> kernels;       ///< --kernel (repeatable); empty: every tunable kernel
  std::map<std::string, long long> shape; ///< --shape M=..,N=..,K=..
  bool dryRun = false;
  bool json = false;
  bool exhaustive = false; ///< measure every legal point once
  bool show = false;       ///< list the cache
  bool force = false;      ///< ignore a cached winner
  bool interpret = false;  ///< candidates on the tile-IR interpreter (pipeline tests)
  unsigned threads = 0;    ///< --jobs for checking
  unsigned timeoutS = 60;  ///< per candidate
  int budget = -1;         ///< -1: 20% of the legal points (at least 3)
  double tolerance = 0.02; ///< frontier tolerance
  std::string cache;       ///< empty: defaultCachePath()
  bool worker = false;     ///< --worker: the measuring child (TuneWorker.cpp)
  unsigned compileJobs = 0; ///< --compile-jobs: parallel `kina build`s (0: all cores)
};

/// Host functions (HostFn.cpp): `--fn NAME` on build, report and run.
struct HostOptions {
  std::string fn;                        ///< --fn
  std::map<std::string, long long> dims; ///< report --dims
  std::string output;                    ///< run --output OUT.npy
  std::string cublasLt = "auto";         ///< --cublaslt auto | on | off
  unsigned repeat = 1;                   ///< run --repeat N (the leak test)
};

int runHostBuild(const BuildOptions &options, const HostOptions &host);
int runHostReport(const ReportOptions &options, const HostOptions &host);
int runHostRun(const RunOptions &options, const HostOptions &host);

int runCheckCommand(const CheckOptions &options);
int runTuneCommand(const TuneOptions &options);
/// `kina tune --worker` (hidden): measures candidates sent on stdin.
int runTuneWorker(const TuneOptions &options);
/// `kina check --all-points`: every point of every lattice of `file`.
int checkAllPoints(const CheckOptions &options, const std::string &path);
/// The best cached point of `kernel` in `file` for `dims` on a device of
/// compute capability `cc` (`kina build`/`kina run` without --param). Empty
/// when the kernel has no tune parameters or the cache has no record; `note`
/// then says which point is used.
std::map<std::string, int64_t> cachedTunePoint(const std::string &file, const std::string &kernel,
                                               const std::map<std::string, long long> &dims,
                                               const std::string &target, std::string &note);
int runBuildCommand(const BuildOptions &options);
int runReportCommand(const ReportOptions &options);
int runRunCommand(const RunOptions &options);

} // namespace kina::driver
