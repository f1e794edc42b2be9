//===- Build.cpp - `kina build FILE --emit=... -o OUT --target sm_XX` -----===//
//
// Parses and checks the file, lowers each requested kernel to tile IR
// (lower::lowerKernel), and runs code generation as far as --emit
// asks: tile-ir | mlir | llvm | ptx | cubin. The default target is the
// registry's (target::defaultTarget(), sm_90a); the PTX ISA version is the
// target's default raised to what the kernel needs, or the --ptx-version
// pin, validated before LLVM runs. A cubin is written with its launch metadata beside it
// (`X.cubin` -> `X.launch.json`, schema kina.launch/1).
//
// Output: text forms go to -o FILE, or stdout. A cubin goes to -o FILE, or
// `<kernel>.cubin` in the current directory. With several kernels and -o,
// text forms are concatenated and a cubin needs one kernel (--kernel).
//
// Exit codes (Commands.h): 1 errors in the program (syntax, type, shared
// memory limits, instructions the target lacks), 2 usage (unknown target,
// impossible PTX version, unknown kernel, bad --emit), 3 tools and internal
// failures (ptxas missing or failing, MLIR/LLVM failures, I/O).
//
//===----------------------------------------------------------------------===//
#include "codegen/Codegen.h"
#include "diag/Render.h"
#include "driver/BuildTileIr.h"
#include "driver/Commands.h"
#include "driver/DiagnosticJson.h"
#include "driver/SourceLoader.h"
#include "ir/Printer.h"
#include "ir/TileIR.h"
#include "lower/TileIRFromAst.h"
#include "sema/Frontend.h"
#include "target/LineMap.h"
#include "target/Sass.h"
#include "target/TargetError.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <iostream>

namespace kina::driver {

namespace {

/// `--emit=ptx-lines` / `sass-lines`: the instructions with their Kina lines
/// (target/LineMap.h) instead of the listing.
enum class LineTable { None, Ptx, Sass };

struct Emit {
  bool tileIR = false;
  codegen::Stage stage = codegen::Stage::Cubin;
  LineTable lines = LineTable::None;
  bool writesCubin() const {
    return stage == codegen::Stage::Cubin && !tileIR && lines == LineTable::None;
  }
};

std::optional<Emit> parseEmit(const std::string &s) {
  if (s == "tile-ir")
    return Emit{true, codegen::Stage::MLIR};
  if (s == "mlir")
    return Emit{false, codegen::Stage::MLIR};
  if (s == "lowered-mlir")
    return Emit{false, codegen::Stage::LoweredMLIR};
  if (s == "llvm")
    return Emit{false, codegen::Stage::LLVM};
  if (s == "ptx")
    return Emit{false, codegen::Stage::PTX};
  if (s == "cubin")
    return Emit{false, codegen::Stage::Cubin};
  if (s == "ptx-lines")
    return Emit{false, codegen::Stage::PTX, LineTable::Ptx};
  if (s == "sass-lines")
    return Emit{false, codegen::Stage::Cubin, LineTable::Sass};
  return std::nullopt;
}

int exitCodeFor(const std::vector<Diagnostic> &diags) {
  int code = Success;
  for (const Diagnostic &d : diags) {
    if (d.severity() != Severity::Error)
      continue;
    switch (d.id) {
    case DiagId::UnknownTarget:
    case DiagId::InvalidTargetPtx: code = std::max<int>(code, UsageError); break;
    case DiagId::ToolNotFound:
    case DiagId::ToolFailed:
    case DiagId::TargetUnsupportedByTool:
    case DiagId::CodegenFailed: code = std::max<int>(code, ToolFailure); break;
    default: code = std::max<int>(code, InputErrors); break;
    }
  }
  return code;
}

bool writeFile(const std::string &path, llvm::StringRef data, std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write '" + path + "': " + ec.message();
    return false;
  }
  os << data;
  os.close();
  if (os.has_error()) {
    error = "cannot write '" + path + "': " + os.error().message();
    os.clear_error();
    return false;
  }
  return true;
}

std::string launchJsonPath(const std::string &cubinPath) {
  llvm::SmallString<256> p(cubinPath);
  if (llvm::sys::path::extension(p) == ".cubin")
    llvm::sys::path::replace_extension(p, "");
  return std::string(p) + ".launch.json";
}

} // namespace

int runBuildCommand(const BuildOptions &options) {
  auto emit = parseEmit(options.emit);
  if (!emit) {
    std::cerr << "kina: error: unknown --emit value '" << options.emit
              << "' (expected tile-ir, mlir, llvm, ptx, cubin, ptx-lines or sass-lines)\n";
    return UsageError;
  }
  std::string error;
  auto file = loadSource(options.file, error);
  if (!file) {
    std::cerr << "kina: error: " << error << "\n";
    return UsageError;
  }

  std::vector<Diagnostic> diags;
  RenderOptions render;
  render.color = options.common.color;
  auto flush = [&] {
    if (options.common.format == DiagnosticsFormat::Json)
      std::cout << fileDiagnosticsToJson(diags, *file).dump(2) << "\n";
    else
      for (const Diagnostic &d : diags)
        std::cerr << renderDiagnostic(d, *file, render);
    return exitCodeFor(diags);
  };

  sema::FrontendOptions fe;
  fe.target = options.common.target;
  fe.backend = options.backend;
  fe.tunePoint = options.common.tunePoint;
  fe.onlyKernel = options.kernel; // sibling kernels do not stop it (Frontend.h)
  if (fe.tunePoint.empty()) {
    // The best cached point for --dims (Tune.cpp), else the default.
    std::string note;
    fe.tunePoint =
        cachedTunePoint(options.file, options.kernel, options.dims, options.common.target, note);
    if (!note.empty())
      std::cerr << note << "\n";
  }
  sema::Analysis analysis = sema::analyze(*file, fe);
  diags = analysis.diagnostics;
  bool frontendErrors = false;
  for (const Diagnostic &d : diags)
    frontendErrors |= d.severity() == Severity::Error;
  if (frontendErrors)
    return flush();

  std::vector<std::string> kernels;
  for (const auto &k : analysis.program.kernels)
    if (options.kernel.empty() || k.name == options.kernel)
      kernels.push_back(k.name);
  if (kernels.empty()) {
    flush();
    if (options.kernel.empty()) {
      std::cerr << "kina: error: '" << options.file << "' has no kernel to build\n";
    } else {
      std::cerr << "kina: error: no kernel named '" << options.kernel << "' in '" << options.file
                << "'";
      if (!analysis.program.kernels.empty()) {
        std::cerr << " (kernels:";
        for (const auto &k : analysis.program.kernels)
          std::cerr << " " << k.name;
        std::cerr << ")";
      }
      std::cerr << "\n";
    }
    return UsageError;
  }
  if (emit->writesCubin() && kernels.size() > 1 && !options.output.empty()) {
    std::cerr << "kina: error: -o names one cubin but '" << options.file << "' has "
              << kernels.size() << " kernels; pick one with --kernel\n";
    return UsageError;
  }

  std::string text; // concatenated text output
  for (const std::string &name : kernels) {
    auto kernel = lower::lowerKernel(analysis, name);
    if (!kernel) { // a compiler bug after a clean check: internal K1210 at the construct
      diags.push_back(lower::loweringDiagnostic(kernel.takeError(), Span{}));
      flush();
      return ToolFailure;
    }
    if (emit->tileIR) {
      text += ir::print(*kernel);
      continue;
    }
    if (options.backend == "tileir") { // BuildTileIr.cpp (issue 18)
      if (emit->stage != codegen::Stage::Cubin) {
        flush();
        std::cerr << "kina: error: --backend=tileir emits a cubin (and .tileirbc); "
                     "use --emit=cubin or --emit=tile-ir\n";
        return UsageError;
      }
      if (!buildKernelWithTileIr(*kernel, options.common.target, options.output, diags, error)) {
        int code = flush();
        if (!error.empty()) {
          std::cerr << "kina: error: " << error << "\n";
          return ToolFailure;
        }
        return code;
      }
      continue;
    }
    codegen::CodegenOptions co;
    co.target = options.common.target;
    co.ptxVersion = options.ptxVersion;
    if (options.lineInfo || emit->lines != LineTable::None)
      co.lineInfo = &*file;
    co.remarks = options.remarks;
    DiagnosticSink sink;
    auto result = codegen::compile(*kernel, co, emit->stage, sink);
    for (const Diagnostic &d : sink.diagnostics())
      diags.push_back(d);
    if (!result)
      return flush();
    if (emit->lines == LineTable::Ptx) {
      text += target::renderLineTable(target::mapPtxLines(result->ptx));
      continue;
    }
    if (emit->lines == LineTable::Sass) {
      auto listing = target::disassembleCubin(
          {reinterpret_cast<const uint8_t *>(result->cubin.data()), result->cubin.size()}, {},
          /*lineInfo=*/true);
      if (!listing) {
        flush();
        std::cerr << "kina: error: " << target::takeTargetFailure(listing.takeError()).message
                  << "\n";
        return ToolFailure;
      }
      text += target::renderLineTable(target::mapSassLines(listing->text));
      continue;
    }
    switch (emit->stage) {
    case codegen::Stage::MLIR: text += result->mlir; break;
    case codegen::Stage::LoweredMLIR: text += result->loweredMlir; break;
    case codegen::Stage::LLVM: text += result->llvmIR; break;
    case codegen::Stage::PTX: text += result->ptx; break;
    case codegen::Stage::Cubin: {
      std::string path = options.output.empty() ? name + ".cubin" : options.output;
      result->launch.cubin = std::string(llvm::sys::path::filename(path));
      if (!writeFile(path, result->cubin, error) ||
          !writeFile(launchJsonPath(path), codegen::toJsonText(result->launch), error)) {
        flush();
        std::cerr << "kina: error: " << error << "\n";
        return ToolFailure;
      }
      break;
    }
    }
  }
  int code = flush();
  if (emit->writesCubin())
    return code;
  if (options.output.empty() || options.output == "-") {
    std::cout << text;
    std::cout.flush();
    return code;
  }
  if (!writeFile(options.output, text, error)) {
    std::cerr << "kina: error: " << error << "\n";
    return ToolFailure;
  }
  return code;
}

} // namespace kina::driver
