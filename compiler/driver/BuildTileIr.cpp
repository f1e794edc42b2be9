//===- BuildTileIr.cpp - `kina build --backend=tileir` (issue 18) ---------===//
//
// The Tile IR backend of `kina build`: the checked, lowered ir::Kernel is
// written as CUDA Tile IR bytecode (tileir/FromTileIR.h) at the version
// chosen for the selected tileiras (tileir/Assembler.h), checked against
// the registry for the target (K1122), and assembled into a cubin. Writes
// <out>.cubin and <out>.tileirbc beside it. Block-level kernels only; what
// the lowering cannot express is K1125 at the construct, and `kina check
// --backend=tileir` runs the same lowering (tileir/CheckFile.h), so a
// kernel it accepts builds.
//
//===----------------------------------------------------------------------===//
#include "driver/BuildTileIr.h"
#include "diag/Diagnostic.h"
#include "ir/TileIR.h"
#include "target/CubinInfo.h"
#include "target/TargetError.h"
#include "tileir/Assembler.h"
#include "tileir/CheckFile.h"
#include "tileir/FromTileIR.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace kina::driver {

namespace {
bool writeBytes(const std::string &path, const std::vector<std::uint8_t> &data,
                std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    error = "cannot write '" + path + "': " + ec.message();
    return false;
  }
  os.write(reinterpret_cast<const char *>(data.data()), data.size());
  return true;
}
} // namespace

/// Returns true on success; on failure appends a diagnostic (or sets
/// `ioError` for a file that cannot be written).
bool buildKernelWithTileIr(const ir::Kernel &kernel, const std::string &targetName,
                           const std::string &output, std::vector<Diagnostic> &diags,
                           std::string &ioError) {
  auto target = tileir::targetOrDiagnose(targetName, kernel.span, diags);
  if (!target)
    return false;
  tileir::ChoiceOptions co;
  co.probeTarget = *target;
  auto choice = tileir::chooseAssembler(co);
  if (!choice) {
    auto f = target::takeTargetFailure(choice.takeError());
    diags.push_back(Diagnostic{f.id, kernel.span, f.message});
    return false;
  }
  auto lowered = tileir::lowerChecked(kernel, *target, choice->version, choice->describe(), diags);
  if (!lowered)
    return false;
  auto cubin = tileir::assemble(choice->tool, lowered->bytecode, *target);
  if (!cubin) {
    auto f = target::takeTargetFailure(cubin.takeError());
    diags.push_back(Diagnostic{f.id, kernel.span, f.message});
    return false;
  }
  std::string path = output.empty() ? kernel.name + ".cubin" : output;
  llvm::SmallString<256> bc(path);
  llvm::sys::path::replace_extension(bc, ".tileirbc");
  return writeBytes(path, *cubin, ioError) &&
         writeBytes(bc.str().str(), lowered->bytecode, ioError);
}

static bool readFile(const std::string &path, std::vector<std::uint8_t> &out) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buf)
    return false;
  out.assign((*buf)->getBufferStart(), (*buf)->getBufferEnd());
  return true;
}

std::optional<TileIrRunImage> tileIrImageForRun(const ir::Kernel &kernel,
                                                const std::string &targetName,
                                                const std::string &cubinPath,
                                                std::vector<Diagnostic> &diags,
                                                std::string &error) {
  auto target = tileir::targetOrDiagnose(targetName, kernel.span, diags);
  if (!target)
    return std::nullopt;
  TileIrRunImage image;
  if (cubinPath.empty()) { // assemble here, as kina build --backend=tileir does
    tileir::ChoiceOptions co;
    co.probeTarget = *target;
    auto choice = tileir::chooseAssembler(co);
    if (!choice) {
      auto f = target::takeTargetFailure(choice.takeError());
      diags.push_back(Diagnostic{f.id, kernel.span,
                                 f.message + " (on a machine without tileiras, run a cubin from "
                                             "`kina build --backend=tileir` with --cubin)"});
      return std::nullopt;
    }
    auto lowered =
        tileir::lowerChecked(kernel, *target, choice->version, choice->describe(), diags);
    if (!lowered)
      return std::nullopt;
    auto cubin = tileir::assemble(choice->tool, lowered->bytecode, *target);
    if (!cubin) {
      auto f = target::takeTargetFailure(cubin.takeError());
      diags.push_back(Diagnostic{f.id, kernel.span, f.message});
      return std::nullopt;
    }
    image.cubin = std::move(*cubin);
  } else {
    // A cubin built elsewhere: it must come from this kernel's bytecode, so
    // the .tileirbc written beside it is compared with the bytecode lowered
    // now at the same version (a stale cubin would run other code).
    llvm::SmallString<256> bcPath(cubinPath);
    llvm::sys::path::replace_extension(bcPath, ".tileirbc");
    std::vector<std::uint8_t> written;
    if (!readFile(cubinPath, image.cubin)) {
      error = "cannot read --cubin '" + cubinPath + "'";
      return std::nullopt;
    }
    if (!readFile(bcPath.str().str(), written) || written.size() < 10) {
      error = "--cubin '" + cubinPath + "' has no readable Tile IR bytecode beside it ('" +
              bcPath.str().str() + "', written by `kina build --backend=tileir`)";
      return std::nullopt;
    }
    tileir::Version version{written[8], written[9]};
    auto lowered = tileir::lowerChecked(
        kernel, *target, version, "the bytecode of --cubin (Tile IR " + version.str() + ")", diags);
    if (!lowered)
      return std::nullopt;
    if (lowered->bytecode != written) {
      error = "--cubin '" + cubinPath + "' was not built from this kernel as it is now (its " +
              "bytecode differs from kernel `" + kernel.name +
              "`'s): rebuild it with `kina build " + "--backend=tileir`";
      return std::nullopt;
    }
  }
  // tileiras chooses the block size; the driver refuses any other block.
  auto info = target::readCubin(image.cubin);
  if (!info) {
    error = "the Tile IR cubin: " + target::takeTargetFailure(info.takeError()).message;
    return std::nullopt;
  }
  const target::CubinFunctionInfo *fn = info->find(kernel.name);
  if (!fn || !fn->reqThreads) {
    error =
        "the Tile IR cubin has no required block size (EIATTR_REQNTID) for `" + kernel.name + "`";
    return std::nullopt;
  }
  image.block = *fn->reqThreads;
  for (const target::CubinParam &p : fn->params)
    image.paramSizes.push_back(p.size);
  return image;
}

} // namespace kina::driver
