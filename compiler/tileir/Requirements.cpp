//===- Requirements.cpp - The Tile IR requirements registry ---------------===//
#include "tileir/Requirements.h"

#include <algorithm>
#include <array>
#include <charconv>

namespace kina::tileir {

std::string Version::str() const { return std::to_string(major) + "." + std::to_string(minor); }

std::optional<Version> parseVersion(std::string_view text) {
  auto dot = text.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 >= text.size())
    return std::nullopt;
  auto num = [](std::string_view s) -> std::optional<unsigned> {
    unsigned v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || v > 255)
      return std::nullopt;
    return v;
  };
  auto ma = num(text.substr(0, dot));
  auto mi = num(text.substr(dot + 1));
  if (!ma || !mi)
    return std::nullopt;
  return Version{static_cast<std::uint8_t>(*ma), static_cast<std::uint8_t>(*mi)};
}

namespace {

constexpr std::array kVersions = {
#define KINA_TILEIR_VERSION_ROW(Id, Ma, Mi) Version{Ma, Mi},
#include "tileir/TileIrRequirements.def"
#undef KINA_TILEIR_VERSION_ROW
};

const std::vector<TargetRow> &targetTable() {
  static const std::vector<TargetRow> rows = {
#define KINA_TILEIR_TARGET_ROW(Id, Name, Ma, Mi) {Target::Id, Name, Version{Ma, Mi}},
#include "tileir/TileIrRequirements.def"
#undef KINA_TILEIR_TARGET_ROW
  };
  return rows;
}

const std::vector<FeatureRow> &featureTable() {
  using enum Target;
  static const std::vector<FeatureRow> rows = {
#define KINA_TILEIR_TARGETS(...) std::vector<Target>{__VA_ARGS__}
#define KINA_TILEIR_FEATURE(Id, Name, Ma, Mi, Shown, Targets)                                      \
  {Feature::Id, Name, Version{Ma, Mi}, Shown, Targets},
#include "tileir/TileIrRequirements.def"
#undef KINA_TILEIR_FEATURE
#undef KINA_TILEIR_TARGETS
  };
  return rows;
}

struct WarpRow {
  Version v;
  std::vector<int> values;
};
const std::vector<WarpRow> &warpTable() {
  static const std::vector<WarpRow> rows = {
#define KINA_TILEIR_VALUES(...) std::vector<int>{__VA_ARGS__}
#define KINA_TILEIR_WORKER_WARPS(Ma, Mi, Values) {Version{Ma, Mi}, Values},
#include "tileir/TileIrRequirements.def"
#undef KINA_TILEIR_WORKER_WARPS
#undef KINA_TILEIR_VALUES
  };
  return rows;
}

std::string joinInts(const std::vector<int> &v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i)
      s += i + 1 == v.size() ? " or " : ", ";
    s += std::to_string(v[i]);
  }
  return s;
}

} // namespace

std::span<const Version> registryVersions() { return kVersions; }
std::span<const TargetRow> allTargets() { return targetTable(); }
const TargetRow &targetRow(Target t) { return targetTable()[static_cast<size_t>(t)]; }

std::optional<Target> parseTarget(std::string_view name) {
  // Tile IR has no arch-specific variants: sm_90a code is sm_90 code.
  if (name.size() > 3 && (name.back() == 'a' || name.back() == 'f'))
    name.remove_suffix(1);
  for (const TargetRow &t : targetTable())
    if (t.name == name)
      return t.id;
  return std::nullopt;
}

std::span<const FeatureRow> allFeatures() { return featureTable(); }
const FeatureRow &featureRow(Feature f) { return featureTable()[static_cast<size_t>(f)]; }
bool featureInVersion(Feature f, Version v) { return v >= featureRow(f).since; }
bool featureOnTarget(Feature f, Target t) {
  const auto &ts = featureRow(f).targets;
  return std::find(ts.begin(), ts.end(), t) != ts.end();
}

std::vector<int> workerWarpValues(Version v) {
  // The newest row at or below `v` holds (13.3's list also applies to a
  // later version the registry does not describe yet only when no row
  // replaces it).
  const WarpRow *best = nullptr;
  for (const WarpRow &r : warpTable())
    if (r.v <= v && (!best || r.v > best->v))
      best = &r;
  return best ? best->values : std::vector<int>{};
}

std::vector<Missing> checkRequirements(const ModuleRequirements &req, Version version,
                                       Target target, std::string_view versionSource) {
  std::vector<Missing> out;
  const TargetRow &tr = targetRow(target);
  std::string src = versionSource.empty() ? std::string() : " (" + std::string(versionSource) + ")";
  if (version < tr.minVersion)
    out.push_back({Missing::Kind::TargetNeedsVersion, std::nullopt, tr.minVersion,
                   "target " + std::string(tr.name) + " needs Tile IR " + tr.minVersion.str() +
                       " or newer, but the emitted version is " + version.str() + src});
  std::vector<Feature> fs = req.features;
  fs.push_back(Feature::Baseline);
  if (req.numWorkerWarpsPerCta)
    fs.push_back(Feature::NumWorkerWarpsPerCta);
  if (req.numCtaInCga && *req.numCtaInCga > 1)
    fs.push_back(Feature::NumCtaInCgaAbove1);
  std::sort(fs.begin(), fs.end());
  fs.erase(std::unique(fs.begin(), fs.end()), fs.end());
  for (Feature f : fs) {
    const FeatureRow &r = featureRow(f);
    if (!featureInVersion(f, version))
      out.push_back({Missing::Kind::VersionTooOld, f, r.since,
                     "`" + std::string(r.name) + "` needs Tile IR " + r.since.str() +
                         ", but the emitted version is " + version.str() + src});
    if (!featureOnTarget(f, target))
      out.push_back({Missing::Kind::TargetLacks, f, r.since,
                     "`" + std::string(r.name) + "` is not available on " + std::string(tr.name) +
                         " (it needs " + std::string(r.shown) + ")"});
  }
  if (req.numWorkerWarpsPerCta && featureInVersion(Feature::NumWorkerWarpsPerCta, version)) {
    std::vector<int> ok = workerWarpValues(version);
    if (std::find(ok.begin(), ok.end(), *req.numWorkerWarpsPerCta) == ok.end())
      out.push_back({Missing::Kind::BadValue, Feature::NumWorkerWarpsPerCta, version,
                     "num_worker_warps_per_cta = " + std::to_string(*req.numWorkerWarpsPerCta) +
                         " is not accepted by Tile IR " + version.str() + " (it accepts " +
                         joinInts(ok) + ")" + src});
  }
  return out;
}

Version minimumVersionFor(const ModuleRequirements &req, Target target) {
  Version v = targetRow(target).minVersion;
  for (Feature f : req.features)
    v = std::max(v, featureRow(f).since);
  if (req.numWorkerWarpsPerCta)
    v = std::max(v, featureRow(Feature::NumWorkerWarpsPerCta).since);
  return v;
}

std::string renderTileIrMarkdown() {
  std::string md;
  md += "# CUDA Tile IR backend: versions, targets and features\n\n";
  md += "<!-- Generated from compiler/tileir/TileIrRequirements.def. Do not edit.\n"
        "     Regenerate with: ";
  md += kTileIrDocsRegenCommand;
  md += " -->\n\n";
  md += "A kernel compiled with `--backend=tileir` needs both a supported Tile IR version and a\n"
        "compatible target GPU. The tables below come from the one requirements registry\n"
        "(`compiler/tileir/TileIrRequirements.def`) that the checker, the bytecode writer, the\n"
        "version choice, the launch guard and the test prerequisites all read; a test\n"
        "(`tests/unit/tileir`) fails when this page differs from it.\n\n";
  md += "## Which version is emitted\n\n";
  md += "The version is the emitted Tile IR bytecode version, not the version reported by\n"
        "`cuDriverGetVersion`. Kina asks the selected `tileiras` which formats it accepts\n"
        "(`tileiras --list-versions`) and emits the newest one its own writer also supports.\n"
        "An assembler without `--list-versions` is checked by assembling a small\n"
        "representative kernel at each writer version, newest first. A version pinned with\n"
        "`KINA_TILEIR_VERSION` (e.g. `13.3`) must be supported by both; it is never\n"
        "downgraded. A newer driver does not make an older assembler understand newer\n"
        "bytecode: the driver version plays no part in the choice.\n\n";
  md += "`tileiras` is found like the other CUDA tools: `KINA_TILEIRAS` (an explicit path, which\n"
        "takes precedence over the toolkit directory), then `$CUDA_HOME/bin`, then `PATH`,\n"
        "then the NVIDIA wheel that `scripts/setup.sh` unpacks into `.deps/cuda`.\n\n";
  md += "| Variable | Meaning |\n|---|---|\n";
  md += "| `KINA_TILEIRAS` | path of the `tileiras` to use; it must exist (no fallback) |\n";
  md += "| `KINA_TILEIR_VERSION` | emit exactly this bytecode version (`13.2`, `13.3`); an error "
        "when the writer or the assembler does not support it |\n\n";
  md += "## Features\n\n";
  md += "| Feature";
  for (Version v : kVersions)
    md += " | " + v.str();
  md += " | Target requirement |\n|---";
  for (size_t i = 0; i < kVersions.size(); ++i)
    md += "|---";
  md += "|---|\n";
  for (const FeatureRow &f : featureTable()) {
    md += "| " + std::string(f.name);
    for (Version v : kVersions)
      md += v >= f.since ? " | Yes" : " | —";
    md += " | " + std::string(f.shown) + " |\n";
  }
  md += "\nThe target column lists exactly these targets:\n\n";
  md += "| Target requirement | Targets |\n|---|---|\n";
  std::vector<std::string_view> seen;
  for (const FeatureRow &f : featureTable()) {
    if (std::find(seen.begin(), seen.end(), f.shown) != seen.end())
      continue;
    seen.push_back(f.shown);
    std::string ts;
    for (Target t : f.targets)
      ts += (ts.empty() ? "`" : ", `") + std::string(targetRow(t).name) + "`";
    md += "| " + std::string(f.shown) + " | " + ts + " |\n";
  }
  md += "\n## Targets\n\n| Target | Minimum emitted Tile IR version |\n|---|---|\n";
  for (const TargetRow &t : targetTable())
    md += "| " + std::string(t.name) + " | " + t.minVersion.str() + " |\n";
  md += "\n## Attribute values\n\n| Version | `num_worker_warps_per_cta` accepts |\n|---|---|\n";
  for (const WarpRow &w : warpTable())
    md += "| " + w.v.str() + " | " + joinInts(w.values) + " |\n";
  md += "\n## Rules\n\n";
  md += "- Requirements combine: FP4 packing needs both `pack/unpack` and `f4E2M1FN`; a Hopper\n"
        "  target (`sm_90`) needs Tile IR 13.3 even when the operations themselves were\n"
        "  available earlier.\n"
        "- Architecture numbers are not a feature hierarchy: `sm_120` supports NVFP4 but not\n"
        "  scaled MMA with `f8E5M3FNU` scales (`sm_107` only).\n"
        "- Operand types, shapes and attribute values still have to satisfy the operation's\n"
        "  verifier (the attribute table above).\n"
        "- Programmatic dependent launch additionally needs the driver's `cuLaunchKernelEx`;\n"
        "  optional host APIs are resolved at run time, separately from these device IR\n"
        "  requirements. No blanket driver-version-at-least-toolkit-version check is made.\n"
        "- Tests and examples report an unmet prerequisite (no `tileiras`, no GPU, a driver\n"
        "  that refuses the cubin) as SKIP naming it; discovery, compilation and execution\n"
        "  errors remain failures.\n";
  return md;
}

} // namespace kina::tileir
