//===- CheckedLowering.cpp - Tile IR lowering with its requirements -------===//
#include "tileir/CheckedLowering.h"

#include "tileir/Bytecode.h"

namespace kina::tileir {

std::optional<Version> writerVersionFor(Target target) {
  std::optional<Version> best;
  for (Version v : writerVersions())
    if (!(v < targetRow(target).minVersion) && (!best || *best < v))
      best = v;
  return best;
}

std::optional<CheckVersion> versionForCheck(Target target) {
  ChoiceOptions co;
  co.probeTarget = target;
  if (auto choice = chooseAssembler(co))
    return CheckVersion{choice->version, choice->describe(), std::move(*choice)};
  else
    llvm::consumeError(choice.takeError());
  if (auto v = writerVersionFor(target))
    return CheckVersion{*v, "Kina's bytecode writer (no tileiras found)", std::nullopt};
  return std::nullopt;
}

std::optional<LoweredKernel> lowerChecked(const ir::Kernel &kernel, Target target, Version version,
                                          const std::string &assembler,
                                          std::vector<Diagnostic> &diags) {
  auto lowered = lowerToTileIr(kernel, version);
  if (!lowered.error.empty()) {
    diags.push_back(Diagnostic{
        DiagId::TileIrNotLowerable, lowered.errorSpan.empty() ? kernel.span : lowered.errorSpan,
        "kernel `" + kernel.name + "` cannot use the Tile IR backend: " + lowered.error});
    return std::nullopt;
  }
  auto missing = checkRequirements(lowered.requirements, version, target, assembler);
  if (!missing.empty()) {
    Diagnostic d{DiagId::TileIrRequirementMissing, kernel.span, missing[0].message};
    for (size_t i = 1; i < missing.size(); ++i)
      d.notes.push_back(missing[i].message);
    diags.push_back(std::move(d));
    return std::nullopt;
  }
  return lowered;
}

} // namespace kina::tileir
