//===- Requirements.h - The Tile IR requirements registry -------*- C++ -*-===//
//
// Reads TileIrRequirements.def: the emitted bytecode versions, the targets
// with their minimum version, and the features with the first version that
// has them and the exact targets that have them. The one query that matters
// combines everything a module uses against a version and a target and
// names each missing piece (seed 000: requirements combine; a Hopper target
// needs 13.3 even when its operations were available earlier; architecture
// numbers are not a hierarchy).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kina::tileir {

/// An emitted Tile IR bytecode version, e.g. 13.3.
struct Version {
  std::uint8_t major = 0;
  std::uint8_t minor = 0;
  friend auto operator<=>(const Version &, const Version &) = default;
  std::string str() const;
};
/// "13.3" -> {13, 3}; anything else (also "13.3.1", "13", "") -> nullopt.
std::optional<Version> parseVersion(std::string_view text);

/// The versions the registry describes (13.2, 13.3, 13.4), oldest first.
std::span<const Version> registryVersions();

enum class Target : std::uint8_t {
#define KINA_TILEIR_TARGET_ROW(Id, Name, Ma, Mi) Id,
#include "tileir/TileIrRequirements.def"
#undef KINA_TILEIR_TARGET_ROW
};
struct TargetRow {
  Target id;
  std::string_view name; ///< "sm_90"
  Version minVersion;    ///< minimum emitted version for this target
};
std::span<const TargetRow> allTargets();
const TargetRow &targetRow(Target t);
/// "sm_90" (also "sm_90a", whose Tile IR target is sm_90) -> Sm90.
std::optional<Target> parseTarget(std::string_view name);

enum class Feature : std::uint8_t {
#define KINA_TILEIR_FEATURE(Id, Name, Ma, Mi, Shown, Targets) Id,
#include "tileir/TileIrRequirements.def"
#undef KINA_TILEIR_FEATURE
};
struct FeatureRow {
  Feature id;
  std::string_view name;  ///< as the seed's table spells it
  Version since;          ///< first version that has it
  std::string_view shown; ///< the table's target column ("sm_90+", ...)
  std::vector<Target> targets;
};
std::span<const FeatureRow> allFeatures();
const FeatureRow &featureRow(Feature f);
bool featureInVersion(Feature f, Version v);
bool featureOnTarget(Feature f, Target t);

/// The num_worker_warps_per_cta values a version's verifier accepts; empty
/// when the version has no such hint (13.2).
std::vector<int> workerWarpValues(Version v);

/// Everything one module needs.
struct ModuleRequirements {
  std::vector<Feature> features; ///< duplicates allowed
  std::optional<int> numWorkerWarpsPerCta;
  std::optional<int> numCtaInCga;
  /// Adds `f` (and nothing else). Baseline is always implied.
  void add(Feature f) { features.push_back(f); }
};

/// One missing piece, with a message that names it and both versions.
struct Missing {
  enum class Kind { VersionTooOld, TargetLacks, TargetNeedsVersion, BadValue } kind;
  std::optional<Feature> feature; ///< nullopt for the target's own minimum
  Version needed;                 ///< the version the piece needs
  std::string message;
};

/// Combines `req` against `version` and `target`; an empty result means the
/// module can be emitted. `versionSource` says where `version` came from
/// (e.g. "the assembler /x/tileiras accepts up to 13.3"), for the messages.
std::vector<Missing> checkRequirements(const ModuleRequirements &req, Version version,
                                       Target target, std::string_view versionSource = {});

/// The smallest version that satisfies every version-related requirement
/// of `req` on `target` (ignoring target lacks), for hints.
Version minimumVersionFor(const ModuleRequirements &req, Target target);

/// docs/tile-ir.md, generated from the registry.
std::string renderTileIrMarkdown();
inline constexpr const char *kTileIrDocsRegenCommand =
    "build/compiler/driver/kina help tile-ir --markdown > docs/tile-ir.md";

} // namespace kina::tileir
