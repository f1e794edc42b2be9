//===- main.cpp - The `kina` command line -----------------------*- C++ -*-===//
//
// Parses arguments with CLI11 and dispatches to a subcommand (Commands.h).
// Exit codes: 0 ok, 1 errors in the input, 2 usage, 3 tool failure, 77 skipped.
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "driver/Commands.h"
#include "driver/DiagnosticCatalogueDocs.h"
#include "syntax/TuneParams.h"
#include "target/Registry.h"
#include "tileir/Requirements.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <unistd.h>

using namespace kina::driver;

namespace {

void addCommonOptions(CLI::App *cmd, CommonOptions &common, std::string &format) {
  cmd->add_option("--target", common.target,
                  "GPU target, e.g. sm_80 or sm_90a (default " +
                      std::string(kina::target::defaultTargetName()) + ")");
  cmd->add_option("--diagnostics-format", format, "Diagnostics format: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--param", common.paramSpecs,
                  "Point of the kernels' tune parameters, e.g. BM=128,BN=256 (default: each "
                  "parameter's default)");
}

/// `option`: how the messages name the flag (tune's is --shape).
bool parseDims(const std::vector<std::string> &specs, std::map<std::string, long long> &dims,
               std::string &error, const std::string &option = "--dims") {
  for (const std::string &spec : specs) {
    size_t start = 0;
    while (start <= spec.size()) {
      size_t comma = spec.find(',', start);
      std::string part =
          spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      start = comma == std::string::npos ? spec.size() + 1 : comma + 1;
      // `--dims "M=10, N=64"`: blanks around names and values are not part
      // of them.
      auto trim = [](std::string t) {
        size_t b = t.find_first_not_of(" \t"), e = t.find_last_not_of(" \t");
        return b == std::string::npos ? std::string() : t.substr(b, e - b + 1);
      };
      part = trim(part);
      if (part.empty())
        continue;
      if (size_t eq0 = part.find('='); eq0 != std::string::npos)
        part = trim(part.substr(0, eq0)) + "=" + trim(part.substr(eq0 + 1));
      size_t eq = part.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == part.size()) {
        error = option + " expects NAME=VALUE pairs such as M=1024,N=1024, got `" + part + "`";
        return false;
      }
      std::string value = part.substr(eq + 1);
      char *end = nullptr;
      errno = 0;
      long long v = strtoll(value.c_str(), &end, 10);
      if (errno || !end || *end || v <= 0) {
        error = option + " value for " + part.substr(0, eq) + " must be a positive integer, got `" +
                value + "`";
        return false;
      }
      std::string name = part.substr(0, eq);
      if (auto it = dims.find(name); it != dims.end()) {
        error = option + " gives " + name + " twice (" + std::to_string(it->second) + " and " +
                value + ")";
        return false;
      }
      dims[name] = v;
    }
  }
  return true;
}

} // namespace

/// `--backend ptx|tileir` of check, build and run; `what` says what tileir does.
static void addBackendOption(CLI::App *cmd, std::string &backend, const std::string &what) {
  cmd->add_option("--backend", backend,
                  "ptx (default) | tileir: " + what + " (block-level kernels; docs/tile-ir.md)")
      ->check(CLI::IsMember({"ptx", "tileir"}));
}

int main(int argc, char **argv) {
  CLI::App app{"kina: the Kina GPU kernel language compiler"};
  app.set_version_flag("--version", std::string("kina ") + KINA_VERSION);
  app.require_subcommand(0, 1);

  std::string format = "text";
  bool color = isatty(2);

  CheckOptions check;
  CLI::App *checkCmd = app.add_subcommand("check", "Parse and type-check kernels");
  checkCmd->add_option("files", check.files, "Kina source files")->required();
  addCommonOptions(checkCmd, check.common, format);
  checkCmd->add_flag("--all-points", check.allPoints,
                     "Check every point of each kernel's tune lattice, not only the default");
  addBackendOption(checkCmd, check.backend, "also check that each kernel lowers to CUDA Tile IR");

  BuildOptions build;
  CLI::App *buildCmd =
      app.add_subcommand("build", "Compile a kernel to tile IR, MLIR, PTX or cubin");
  buildCmd->add_option("file", build.file, "Kina source file")->required();
  buildCmd->add_option("--kernel", build.kernel, "Kernel to compile (default: every kernel)");
  buildCmd
      ->add_option("--emit", build.emit,
                   "tile-ir | mlir | llvm | ptx | cubin | algebraic-ir | ptx-lines | sass-lines")
      ->check(CLI::IsMember(
          {"tile-ir", "mlir", "llvm", "ptx", "cubin", "algebraic-ir", "ptx-lines", "sass-lines"}));
  buildCmd->add_option("-o,--output", build.output, "Output file");
  buildCmd->add_option("--ptx-version", build.ptxVersion, "Pin the PTX ISA version, e.g. 8.0");
  std::vector<std::string> buildDims;
  buildCmd->add_option("--dims", buildDims,
                       "Problem shape whose tuned point (kina tune's cache) a kernel with tune "
                       "parameters is built at, e.g. M=4096,N=4096,K=4096");
  buildCmd->add_flag("--line-info", build.lineInfo,
                     "Map instructions to Kina lines (.loc in PTX, the cubin's line table)");
  addBackendOption(buildCmd, build.backend, "CUDA Tile IR bytecode assembled by tileiras");
  buildCmd->add_flag("--remarks", build.remarks,
                     "Report ptxas findings (spills, register-limited occupancy) at their line");
  addCommonOptions(buildCmd, build.common, format);

  ReportOptions report;
  CLI::App *reportCmd =
      app.add_subcommand("report", "Registers, spills, shared memory and occupancy of a kernel");
  reportCmd->add_option("file", report.file, "Kina source file")->required();
  reportCmd->add_option("--kernel", report.kernel, "Kernel to report on (default: every kernel)");
  reportCmd->add_flag("--sass", report.sass, "Also list SASS with an instruction mix");
  reportCmd->add_flag("--json", report.json, "Machine-readable output");
  addCommonOptions(reportCmd, report.common, format);

  RunOptions run;
  run.common.target = "auto"; // `kina run` targets the device it runs on
  std::vector<std::string> dimSpecs;
  CLI::App *runCmd = app.add_subcommand("run", "Compile, launch on the GPU, check and time");
  runCmd->footer(
      "Without --kernel every kernel of the file runs in turn with the same --dims (with --json:\n"
      "an array, one object per kernel). The launch guard (dims against `requires`) runs\n"
      "before anything else, also on a machine without a GPU; then, without a CUDA device,\n"
      "`kina run` prints `SKIP: no CUDA device (...)` and exits 77.\n"
      "--save DIR writes, per kernel, DIR/<kernel>/<param>.npy for every tensor parameter\n"
      "(the inputs used, the outputs computed; bf16 as raw <u2 bit patterns), dims.json\n"
      "({\"M\": 1024, ...}) and run.json (kernel, target, backend, seed, and each tensor's\n"
      "name, dtype, shape, role and file).");
  runCmd->add_option("file", run.file, "Kina source file")->required();
  runCmd->add_option("--kernel", run.kernel, "Kernel to run (default: every kernel)");
  runCmd->add_option("--dims", dimSpecs, "Dimension values, e.g. M=1024,N=1024,K=1024");
  runCmd->add_option("--inputs", run.inputs, "random, or one .npy file per input");
  runCmd->add_option("--seed", run.seed, "Seed for random inputs");
  runCmd->add_option("--scalars", run.scalars,
                     "Scalar parameter values, e.g. eps=1e-5 (default: seeded, in [0.5, 1.5))");
  runCmd->add_flag("--check", run.check, "Compare against the CPU reference");
  runCmd->add_flag("--bench", run.bench, "Time the kernel (median of >= 20 runs)");
  runCmd->add_flag("--json", run.json, "Machine-readable output");
  runCmd->add_flag("--interpret", run.interpret,
                   "Run the tile-IR interpreter instead of the GPU (needs no GPU)");
  addBackendOption(runCmd, run.backend, "CUDA Tile IR, assembled by tileiras or read with --cubin");
  runCmd->add_option("--cubin", run.cubin,
                     "With --backend=tileir: the cubin `kina build --backend=tileir` wrote (its "
                     ".tileirbc beside it must be this kernel's bytecode); for a GPU machine "
                     "without tileiras");
  runCmd
      ->add_option("--save", run.save,
                   "Write the inputs used and the outputs computed as .npy into DIR/<kernel>/")
      ->type_name("DIR");
  addCommonOptions(runCmd, run.common, format);
  runCmd->get_option("--target")
      ->description(
          "GPU target: auto (the device's; without a device, or with --interpret, the default " +
          std::string(kina::target::defaultTargetName()) + ") or sm_XX");

  TuneOptions tune;
  std::vector<std::string> tuneShape;
  CLI::App *tuneCmd =
      app.add_subcommand("tune", "Check a kernel's tune lattice, rank it, measure the best points");
  tuneCmd->footer(
      "The lattice of the kernels with `tune` parameters (every one of the file, or those under\n"
      "--kernel) is checked point by point; --dry-run prints the legal count and the rejected\n"
      "count by reason (and, with --shape, the cost model's Pareto frontier) without a GPU.\n"
      "Otherwise the best points are measured on the GPU in child processes and the winner is\n"
      "cached ($KINA_TUNE_CACHE or ~/.cache/kina/tune.jsonl); `kina build` and `kina run` use it.");
  tuneCmd->add_option("file", tune.file, "Kina source file");
  tuneCmd->add_option("--kernel", tune.kernels, "Kernel to tune (repeatable; default: all)");
  tuneCmd->add_option("--shape", tuneShape, "Problem shape, e.g. M=4096,N=4096,K=4096");
  tuneCmd->add_flag("--dry-run", tune.dryRun, "Check and rank the lattice; measure nothing");
  tuneCmd->add_flag("--json", tune.json, "Machine-readable output");
  tuneCmd->add_flag("--exhaustive", tune.exhaustive, "Measure every legal point once");
  tuneCmd->add_flag("--show", tune.show, "List the tuning cache (FILE optional)");
  tuneCmd->add_flag("--force", tune.force, "Re-tune even when the cache has a winner");
  tuneCmd->add_flag("--interpret", tune.interpret,
                    "Run candidates on the tile-IR interpreter (tests the pipeline; no timing)");
  tuneCmd->add_option("--jobs", tune.threads, "Threads checking the lattice (default: all cores)");
  tuneCmd->add_option("--timeout", tune.timeoutS, "Seconds per candidate (default 60)");
  tuneCmd->add_option("--budget", tune.budget,
                      "Points to measure (default: 20% of the legal points, at least 3)");
  tuneCmd->add_option("--tolerance", tune.tolerance, "Pareto tolerance (default 0.02)");
  tuneCmd->add_option("--cache", tune.cache, "Tuning cache file");
  tuneCmd->add_option("--compile-jobs", tune.compileJobs,
                      "Parallel compiles of the measured points (default: all cores)");
  tuneCmd->add_flag("--worker", tune.worker, "The measuring child of kina tune (internal)")
      ->group("");
  addCommonOptions(tuneCmd, tune.common, format);
  // Host functions (HostFn.cpp).
  HostOptions host;
  std::vector<std::string> reportDimSpecs;
  auto cublasLtOption = [&](CLI::App *cmd) {
    cmd->add_option("--cublaslt", host.cublasLt,
                    "Whether pass A may pick cuBLASLt: auto (when it loads), on, off")
        ->check(CLI::IsMember({"auto", "on", "off"}));
  };
  buildCmd->add_option("--fn", host.fn, "Host function for --emit=algebraic-ir (default: all)");
  reportCmd->add_option("--fn", host.fn, "Host function: print pass A's plan");
  reportCmd->add_option("--dims", reportDimSpecs, "With --fn: dimension values, e.g. M=4096");
  cublasLtOption(reportCmd);
  runCmd->add_option("--fn", host.fn, "Host function to run (instead of a kernel)");
  runCmd->add_option("--output", host.output, "With --fn: write the result as .npy");
  runCmd->add_option("--repeat", host.repeat, "With --fn: run N times (device memory is reported)");
  cublasLtOption(runCmd);

  tuneCmd->get_option("--param")->description(
      "Hold these parameters at one value, e.g. STAGES=4 (the rest are searched)");

  std::string helpTopic;
  CLI::App *helpCmd = app.add_subcommand("help", "Show help for a subcommand or topic");
  helpCmd->add_option("topic", helpTopic,
                      "check | build | run | report | tune | diagnostics | tile-ir");
  bool helpMarkdown = false;
  helpCmd->add_flag("--markdown", helpMarkdown, "Print the topic as Markdown");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    std::cerr << "kina: error: " << e.what() << "\n"
              << "Run `kina help` for usage.\n";
    return UsageError;
  }

  // Returns false (after saying why) when --target names no target: every
  // command refuses it before reading a file, so `kina check` cannot pass
  // against a target that does not exist.
  auto applyCommon = [&](CommonOptions &common, bool allowAuto = false) {
    common.format = format == "json" ? DiagnosticsFormat::Json : DiagnosticsFormat::Text;
    common.color = color && common.format == DiagnosticsFormat::Text && !getenv("NO_COLOR");
    std::string paramError;
    if (!kina::syntax::parsePointSpec(common.paramSpecs, common.tunePoint, paramError)) {
      std::cerr << "kina: error: " << paramError << "\n";
      return false;
    }
    if ((allowAuto && common.target == "auto") || kina::target::lookupTarget(common.target))
      return true;
    std::string shown = common.target.size() > 64 ? common.target.substr(0, 64) + "..."
                                                   : common.target;
    std::cerr << "kina: error[K1101]: " << kina::target::unknownTargetMessage(shown) << "\n";
    return false;
  };

  if (checkCmd->parsed()) {
    if (!applyCommon(check.common))
      return UsageError;
    if (check.allPoints) {
      int worst = runCheckCommand(check);
      for (const std::string &f : check.files)
        worst = std::max(worst, checkAllPoints(check, f));
      return worst;
    }
    return runCheckCommand(check);
  }
  if (buildCmd->parsed()) {
    if (!applyCommon(build.common))
      return UsageError;
    std::string error;
    if (!parseDims(buildDims, build.dims, error)) {
      std::cerr << "kina: error[K1310]: " << error << "\n";
      return UsageError;
    }
    if (build.emit == "algebraic-ir")
      return runHostBuild(build, host);
    return runBuildCommand(build);
  }
  if (reportCmd->parsed()) {
    if (!applyCommon(report.common))
      return UsageError;
    if (!host.fn.empty()) {
      std::string error;
      if (!parseDims(reportDimSpecs, host.dims, error)) {
        std::cerr << "kina: error[K1310]: " << error << "\n";
        return UsageError;
      }
      return runHostReport(report, host);
    }
    return runReportCommand(report);
  }
  if (runCmd->parsed()) {
    if (!applyCommon(run.common, /*allowAuto=*/true))
      return UsageError;
    std::string error;
    if (!parseDims(dimSpecs, run.dims, error)) {
      std::cerr << "kina: error[K1310]: " << error << "\n";
      return UsageError;
    }
    if (!host.fn.empty())
      return runHostRun(run, host);
    return runRunCommand(run);
  }
  if (tuneCmd->parsed()) {
    if (!applyCommon(tune.common))
      return UsageError;
    std::string error;
    if (!parseDims(tuneShape, tune.shape, error, "--shape")) {
      std::cerr << "kina: error[K1310]: " << error << "\n";
      return UsageError;
    }
    if (tune.file.empty() && !tune.show) {
      std::cerr
          << "kina: error: `kina tune` needs a FILE (only --show lists the cache without one)\n";
      return UsageError;
    }
    if (tune.worker)
      return runTuneWorker(tune);
    return runTuneCommand(tune);
  }
  if (helpCmd->parsed()) {
    if (helpTopic == "diagnostics") {
      std::cout << (helpMarkdown ? renderDiagnosticCatalogueMarkdown()
                                 : renderDiagnosticCatalogueText());
      return Success;
    }
    if (helpTopic == "tile-ir") { // docs/tile-ir.md (the Tile IR requirements registry)
      std::cout << kina::tileir::renderTileIrMarkdown();
      return Success;
    }
    for (CLI::App *sub : {checkCmd, buildCmd, reportCmd, runCmd, tuneCmd})
      if (sub->get_name() == helpTopic) {
        std::cout << sub->help();
        return Success;
      }
    if (!helpTopic.empty()) {
      std::cerr << "kina: error: no help topic `" << helpTopic
                << "`; topics: check, build, run, report, tune, diagnostics, tile-ir\n";
      return UsageError;
    }
    std::cout << app.help();
    return Success;
  }
  std::cout << app.help();
  return Success;
}
