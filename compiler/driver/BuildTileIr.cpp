//===- BuildTileIr.cpp - `kina build --backend=tileir` (issue 18) ---------===//
//
// The Tile IR backend of `kina build`: the checked, lowered ir::Kernel is
// written as CUDA Tile IR bytecode (tileir/FromTileIR.h) at the version
// chosen for the selected tileiras (tileir/Assembler.h), checked against
// the registry for the target (K1122), and assembled into a cubin. Writes
// <out>.cubin and <out>.tileirbc beside it. Block-level kernels only; what
// the lowering cannot express yet is K1210 at the construct.
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "ir/TileIR.h"
#include "target/TargetError.h"
#include "tileir/Assembler.h"
#include "tileir/FromTileIR.h"

#include "llvm/Support/FileSystem.h"
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
  auto target = tileir::parseTarget(targetName);
  if (!target) {
    diags.push_back(Diagnostic{DiagId::TileIrUnknownTarget, kernel.span,
                               targetName + " has no Tile IR backend (docs/tile-ir.md lists "
                                            "sm_80 ... sm_121)"});
    return false;
  }
  tileir::ChoiceOptions co;
  co.probeTarget = *target;
  auto choice = tileir::chooseAssembler(co);
  if (!choice) {
    auto f = target::takeTargetFailure(choice.takeError());
    diags.push_back(Diagnostic{f.id, kernel.span, f.message});
    return false;
  }
  auto lowered = tileir::lowerToTileIr(kernel, choice->version);
  if (!lowered.error.empty()) {
    diags.push_back(Diagnostic{DiagId::LoweringFailed,
                               lowered.errorSpan.empty() ? kernel.span : lowered.errorSpan,
                               "the Tile IR backend cannot lower this yet: " + lowered.error});
    return false;
  }
  auto missing =
      tileir::checkRequirements(lowered.requirements, choice->version, *target, choice->describe());
  if (!missing.empty()) {
    Diagnostic d{DiagId::TileIrRequirementMissing, kernel.span, missing[0].message};
    for (size_t i = 1; i < missing.size(); ++i)
      d.notes.push_back(missing[i].message);
    diags.push_back(std::move(d));
    return false;
  }
  auto cubin = tileir::assemble(choice->tool, lowered.bytecode, *target);
  if (!cubin) {
    auto f = target::takeTargetFailure(cubin.takeError());
    diags.push_back(Diagnostic{f.id, kernel.span, f.message});
    return false;
  }
  std::string path = output.empty() ? kernel.name + ".cubin" : output;
  llvm::SmallString<256> bc(path);
  llvm::sys::path::replace_extension(bc, ".tileirbc");
  return writeBytes(path, *cubin, ioError) && writeBytes(bc.str().str(), lowered.bytecode, ioError);
}

} // namespace kina::driver
