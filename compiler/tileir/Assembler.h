//===- Assembler.h - Finding tileiras and choosing the version --*- C++ -*-===//
//
// The rules of seed 000, each pinned by tests/unit/tileir/AssemblerTest:
//   - tileiras is found like the other CUDA tools (target/Tools.h): an
//     explicit path (a flag, then KINA_TILEIRAS) takes precedence over the
//     toolkit directory ($CUDA_HOME/bin), then PATH, then .deps/cuda;
//   - the emitted version is asked of the selected assembler
//     (`tileiras --list-versions`): the newest version it lists that the
//     writer also supports;
//   - an assembler without --list-versions is probed: a small
//     representative kernel is assembled at each writer version, newest
//     first, and the first it accepts is chosen;
//   - a pinned version (KINA_TILEIR_VERSION or the `pin` argument) must be
//     supported by both the writer and the assembler; it is never
//     downgraded;
//   - the driver's CUDA version plays no part: a newer driver does not make
//     an older assembler understand newer bytecode.
// Failures are target::TargetError values with K1120-K1124.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "target/Tools.h"
#include "tileir/Requirements.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace kina::tileir {

inline constexpr const char *kVersionPinEnv = "KINA_TILEIR_VERSION";

struct AssemblerChoice {
  target::ToolLocation tool;
  Version version;
  enum class How { Listed, Probed } how = How::Listed;
  bool pinned = false;
  std::vector<Version> accepted; ///< what the assembler accepts (listed or probed)
  /// "tileiras /x/tileiras (--list-versions: 13.1, 13.2, 13.3)"; used in
  /// requirement messages.
  std::string describe() const;
};

struct ChoiceOptions {
  target::ToolSearchOptions search;
  /// Pinned version; when unset, KINA_TILEIR_VERSION is read.
  std::optional<std::string> pin;
  /// The target the probe kernel is assembled for.
  Target probeTarget = Target::Sm100;
  /// The driver's CUDA version, if known. Reported, never used to choose.
  std::optional<Version> driverVersion;
};

/// `tileiras --list-versions`: the versions it prints, or nullopt when the
/// assembler has no such option (it exits non-zero or prints no version).
/// A tool that cannot be run is an error.
llvm::Expected<std::optional<std::vector<Version>>> listVersions(const target::ToolLocation &tool);

/// The small representative kernel used to probe an assembler (an
/// elementwise add over 128 f32: views, block id, load, addf, store).
std::vector<std::uint8_t> probeKernel(Version v);

/// Assembles `bytecode` for `target`; returns the cubin bytes. A non-zero
/// exit is K1123 with tileiras's message.
llvm::Expected<std::vector<std::uint8_t>> assemble(const target::ToolLocation &tool,
                                                   const std::vector<std::uint8_t> &bytecode,
                                                   Target target, unsigned optLevel = 3);

llvm::Expected<AssemblerChoice> chooseAssembler(const ChoiceOptions &opts = {});

} // namespace kina::tileir
