//===- Registry.cpp - Tables and queries of the capability registry -------===//
//
// Expands Targets.def, Capabilities.def and PtxIsa.def into constant tables
// and answers the queries declared in Registry.h. No logic here compares
// architecture numbers: capability membership is an explicit target set.
//
//===----------------------------------------------------------------------===//
#include "target/Registry.h"

#include <algorithm>
#include <array>
#include <cstdlib>

namespace kina::target {
namespace {

constexpr std::uint32_t kStaticSmemPerBlock = 48 * 1024;
constexpr std::uint32_t kRegsPerSM = 65536;
constexpr std::uint32_t kMaxRegsPerThread = 255;
constexpr std::uint32_t kRegAllocUnit = 256;
constexpr std::uint32_t kWarpAllocGranularity = 4;
constexpr std::uint32_t kMaxThreadsPerBlock = 1024;

constexpr TargetInfo kTargets[] = {
#define KINA_TARGET(ID, NAME, CCMAJ, CCMIN, ARCHSPEC, MINPTXMAJ, MINPTXMIN, DEFPTXMAJ, DEFPTXMIN,  \
                    MINCUDAMAJ, MINCUDAMIN, LASTCUDA, SMEMSM, SMEMOPTIN, RESERVED, SMEMUNIT,       \
                    THREADSSM, BLOCKSSM, WARPSSM, DESC)                                            \
  TargetInfo{TargetId::ID,                                                                         \
             NAME,                                                                                 \
             CCMAJ,                                                                                \
             CCMIN,                                                                                \
             ARCHSPEC,                                                                             \
             PtxVersion{MINPTXMAJ, MINPTXMIN},                                                     \
             PtxVersion{DEFPTXMAJ, DEFPTXMIN},                                                     \
             CudaVersion{MINCUDAMAJ, MINCUDAMIN},                                                  \
             LASTCUDA,                                                                             \
             kStaticSmemPerBlock,                                                                  \
             SMEMOPTIN,                                                                            \
             SMEMSM,                                                                               \
             RESERVED,                                                                             \
             SMEMUNIT,                                                                             \
             kRegsPerSM,                                                                           \
             kMaxRegsPerThread,                                                                    \
             kRegAllocUnit,                                                                        \
             kWarpAllocGranularity,                                                                \
             kMaxThreadsPerBlock,                                                                  \
             THREADSSM,                                                                            \
             BLOCKSSM,                                                                             \
             WARPSSM,                                                                              \
             DESC},
#include "target/Targets.def"
#undef KINA_TARGET
};
constexpr std::size_t kNumTargets = std::size(kTargets);
static_assert(kNumTargets <= 64, "target sets are 64-bit masks");

template <class... Ids> constexpr std::uint64_t targetMask(Ids... ids) {
  return (std::uint64_t{0} | ... | (std::uint64_t{1} << static_cast<unsigned>(ids)));
}

struct CapabilityRow {
  CapabilityInfo info;
  std::uint64_t targets;
};

constexpr CapabilityRow kCapabilities[] = {
#define KINA_TARGETS(...) __VA_ARGS__
#define KINA_CAPABILITY(ID, NAME, PTXMAJ, PTXMIN, DESC, TARGETS)                                   \
  CapabilityRow{CapabilityInfo{CapabilityId::ID, NAME, PtxVersion{PTXMAJ, PTXMIN}, DESC},          \
                [] {                                                                               \
                  using enum TargetId;                                                             \
                  return targetMask(TARGETS);                                                      \
                }()},
#include "target/Capabilities.def"
#undef KINA_CAPABILITY
#undef KINA_TARGETS
};

constexpr PtxasRelease kPtxReleases[] = {
#define KINA_PTX_RELEASE(CMAJ, CMIN, PMAJ, PMIN) PtxasRelease{{CMAJ, CMIN}, {PMAJ, PMIN}},
#include "target/PtxIsa.def"
#undef KINA_PTX_RELEASE
};

constexpr bool tablesAreInIdOrder() {
  for (std::size_t i = 0; i < std::size(kTargets); ++i)
    if (static_cast<std::size_t>(kTargets[i].id) != i)
      return false;
  for (std::size_t i = 0; i < std::size(kCapabilities); ++i)
    if (static_cast<std::size_t>(kCapabilities[i].info.id) != i)
      return false;
  return true;
}
static_assert(tablesAreInIdOrder());

std::optional<int> parseSmallInt(std::string_view s) {
  if (s.empty() || s.size() > 3)
    return std::nullopt;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

/// Edit distance with adjacent transpositions (optimal string alignment),
/// case-insensitive, so "sm_08" is one edit from "sm_80".
unsigned editDistance(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
  std::vector<std::vector<unsigned>> d(a.size() + 1, std::vector<unsigned>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i)
    d[i][0] = static_cast<unsigned>(i);
  for (size_t j = 0; j <= b.size(); ++j)
    d[0][j] = static_cast<unsigned>(j);
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      unsigned cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
          lower(a[i - 2]) == lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

template <class Names>
std::optional<std::string_view> closest(std::string_view input, const Names &names) {
  if (input.size() > 64)
    return std::nullopt;
  std::optional<std::string_view> best;
  unsigned bestDist = ~0u;
  for (std::string_view n : names) {
    unsigned d = editDistance(input, n);
    if (d < bestDist) {
      bestDist = d;
      best = n;
    }
  }
  unsigned limit = std::max<unsigned>(2, static_cast<unsigned>(input.size()) / 3);
  if (!best || bestDist > limit || *best == input)
    return std::nullopt;
  return best;
}

std::string joinTargets(std::uint64_t mask) {
  std::string out;
  for (const TargetInfo &t : kTargets)
    if (mask & (std::uint64_t{1} << static_cast<unsigned>(t.id))) {
      if (!out.empty())
        out += ", ";
      out += t.name;
    }
  return out.empty() ? std::string("no target") : out;
}

} // namespace

std::string PtxVersion::str() const {
  return std::to_string(major) + "." + std::to_string(minor);
}
std::string CudaVersion::str() const {
  return std::to_string(major) + "." + std::to_string(minor);
}

std::optional<PtxVersion> parsePtxVersion(std::string_view text) {
  std::string_view s = text;
  if (s.starts_with("+"))
    s.remove_prefix(1);
  if (s.starts_with("ptx")) {
    s.remove_prefix(3);
    auto n = parseSmallInt(s);
    if (!n || s.size() < 2)
      return std::nullopt;
    return PtxVersion{*n / 10, *n % 10};
  }
  if (auto dot = s.find('.'); dot != std::string_view::npos) {
    auto maj = parseSmallInt(s.substr(0, dot));
    auto min = parseSmallInt(s.substr(dot + 1));
    if (!maj || !min || *min > 9)
      return std::nullopt;
    return PtxVersion{*maj, *min};
  }
  auto n = parseSmallInt(s);
  if (!n)
    return std::nullopt;
  if (s.size() == 1)
    return PtxVersion{*n, 0};
  if (s.size() == 2)
    return PtxVersion{*n / 10, *n % 10};
  return std::nullopt;
}

std::optional<CudaVersion> parseCudaVersion(std::string_view text) {
  auto dot = text.find('.');
  auto maj = parseSmallInt(text.substr(0, dot));
  if (!maj)
    return std::nullopt;
  if (dot == std::string_view::npos)
    return CudaVersion{*maj, 0};
  std::string_view rest = text.substr(dot + 1);
  rest = rest.substr(0, rest.find('.'));
  auto min = parseSmallInt(rest);
  if (!min)
    return std::nullopt;
  return CudaVersion{*maj, *min};
}

std::span<const TargetInfo> allTargets() { return kTargets; }

const TargetInfo &targetInfo(TargetId id) { return kTargets[static_cast<std::size_t>(id)]; }

const TargetInfo *lookupTarget(std::string_view name) {
  for (const TargetInfo &t : kTargets)
    if (t.name == name)
      return &t;
  return nullptr;
}

std::vector<std::string_view> targetNames() {
  std::vector<std::string_view> out;
  for (const TargetInfo &t : kTargets)
    out.push_back(t.name);
  return out;
}

std::vector<TargetId> targetsForDevice(int ccMajor, int ccMinor) {
  std::vector<TargetId> out;
  for (const TargetInfo &t : kTargets)
    if (t.ccMajor == ccMajor && t.ccMinor == ccMinor)
      out.push_back(t.id);
  return out;
}

// The Hopper target of the GPU machine (H200); sm_80 code still builds with
// an explicit --target sm_80.
TargetId defaultTarget() { return TargetId::Sm90a; }

std::string_view defaultTargetName() { return targetInfo(defaultTarget()).name; }

std::span<const CapabilityInfo> allCapabilities() {
  static const std::vector<CapabilityInfo> infos = [] {
    std::vector<CapabilityInfo> v;
    for (const CapabilityRow &r : kCapabilities)
      v.push_back(r.info);
    return v;
  }();
  return infos;
}

const CapabilityInfo &capabilityInfo(CapabilityId id) {
  return kCapabilities[static_cast<std::size_t>(id)].info;
}

std::optional<CapabilityId> parseCapabilityName(std::string_view name) {
  for (const CapabilityRow &r : kCapabilities)
    if (r.info.name == name)
      return r.info.id;
  return std::nullopt;
}

std::vector<std::string_view> capabilityNames() {
  std::vector<std::string_view> out;
  for (const CapabilityRow &r : kCapabilities)
    out.push_back(r.info.name);
  return out;
}

bool hasCapability(TargetId target, CapabilityId cap) {
  return kCapabilities[static_cast<std::size_t>(cap)].targets &
         (std::uint64_t{1} << static_cast<unsigned>(target));
}

std::vector<TargetId> targetsWith(CapabilityId cap) {
  std::vector<TargetId> out;
  for (const TargetInfo &t : kTargets)
    if (hasCapability(t.id, cap))
      out.push_back(t.id);
  return out;
}

std::vector<CapabilityId> capabilitiesOf(TargetId target) {
  std::vector<CapabilityId> out;
  for (const CapabilityRow &r : kCapabilities)
    if (hasCapability(target, r.info.id))
      out.push_back(r.info.id);
  return out;
}

std::string describeTargetsWith(CapabilityId cap) {
  return joinTargets(kCapabilities[static_cast<std::size_t>(cap)].targets);
}

PtxVersion requiredPtx(TargetId target, CapabilityId cap) {
  return std::max(capabilityInfo(cap).minPtx, targetInfo(target).minPtx);
}

std::optional<std::string_view> suggestTarget(std::string_view misspelled) {
  return closest(misspelled, targetNames());
}

std::optional<std::string_view> suggestCapability(std::string_view misspelled) {
  return closest(misspelled, capabilityNames());
}

std::optional<std::string_view> suggestTarget(std::string_view misspelled,
                                              std::span<const CapabilityId> having) {
  std::vector<std::string_view> names;
  for (const TargetInfo &t : kTargets)
    if (std::all_of(having.begin(), having.end(),
                    [&](CapabilityId c) { return hasCapability(t.id, c); }))
      names.push_back(t.name);
  return closest(misspelled, names);
}

std::optional<std::string_view> suggestCapability(std::string_view misspelled,
                                                  std::span<const TargetId> on) {
  std::vector<std::string_view> names;
  for (const CapabilityRow &r : kCapabilities)
    if (std::all_of(on.begin(), on.end(), [&](TargetId t) { return hasCapability(t, r.info.id); }))
      names.push_back(r.info.name);
  return closest(misspelled, names);
}

std::string unknownTargetMessage(std::string_view name) {
  return unknownTargetMessage(name, std::span<const CapabilityId>());
}

std::string unknownTargetMessage(std::string_view name, std::span<const CapabilityId> having) {
  std::string msg = "unknown target `" + std::string(name) + "`";
  if (auto s = suggestTarget(name, having))
    msg += "; did you mean `" + std::string(*s) + "`?";
  msg += " (known targets: ";
  bool first = true;
  for (const TargetInfo &t : kTargets) {
    if (!first)
      msg += ", ";
    first = false;
    msg += t.name;
  }
  msg += ")";
  return msg;
}

std::string unknownCapabilityMessage(std::string_view name) {
  return unknownCapabilityMessage(name, std::span<const TargetId>());
}

std::string unknownCapabilityMessage(std::string_view name, std::span<const TargetId> on) {
  std::string msg = "unknown capability `" + std::string(name) + "`";
  if (auto s = suggestCapability(name, on)) {
    msg += "; did you mean `" + std::string(*s) + "`?";
  } else if (auto any = suggestCapability(name)) {
    std::string lacking;
    for (TargetId t : on)
      if (!hasCapability(t, *parseCapabilityName(*any)))
        lacking += (lacking.empty() ? "" : " and ") + std::string(targetInfo(t).name);
    msg += "; the closest, `" + std::string(*any) + "`, is not on " + lacking + " (it is on " +
           describeTargetsWith(*parseCapabilityName(*any)) + ")";
  } else {
    msg += " (docs/capabilities.md lists the capabilities)";
  }
  return msg;
}

bool isKnownPtxVersion(PtxVersion v) {
  if (v.major == 6)
    return v.minor >= 0 && v.minor <= 5;
  if (v.major == 7)
    return v.minor >= 0 && v.minor <= 8;
  if (v.major == 8)
    return v.minor >= 0 && v.minor <= 8;
  if (v.major == 9)
    return v.minor >= 0 && v.minor <= 1;
  return false;
}

std::optional<PtxVersion> maxPtxForCuda(CudaVersion cuda) {
  std::optional<PtxVersion> best;
  for (const PtxasRelease &r : kPtxReleases)
    if (r.cuda <= cuda)
      best = r.maxPtx;
  return best;
}

std::span<const PtxasRelease> ptxasReleases() { return kPtxReleases; }

std::optional<std::string> validateTargetPtx(TargetId target, PtxVersion ptx) {
  const TargetInfo &t = targetInfo(target);
  if (!isKnownPtxVersion(ptx))
    return "PTX ISA " + ptx.str() + " does not exist (known versions are 6.0 to 9.1)";
  if (ptx < t.minPtx)
    return "PTX ISA " + ptx.str() + " is too old for " + std::string(t.name) + ": " +
           std::string(t.name) + " needs PTX ISA " + t.minPtx.str() + " or newer";
  if (ptx > kMaxEmittedPtx)
    return "PTX ISA " + ptx.str() + " is newer than Kina emits (at most " + kMaxEmittedPtx.str() +
           ", the newest that ptxas 13.0 reads)";
  return std::nullopt;
}

std::optional<std::string> validateTargetPtx(std::string_view target, std::string_view ptx) {
  const TargetInfo *t = lookupTarget(target);
  if (!t)
    return unknownTargetMessage(target);
  auto v = parsePtxVersion(ptx);
  if (!v)
    return "invalid PTX ISA version `" + std::string(ptx) + "` (write it as 8.0)";
  return validateTargetPtx(t->id, *v);
}

std::optional<std::string> validateForPtxas(TargetId target, PtxVersion ptx, CudaVersion ptxas) {
  const TargetInfo &t = targetInfo(target);
  if (ptxas < t.minCuda)
    return "ptxas " + ptxas.str() + " does not know " + std::string(t.name) + " (it needs CUDA " +
           t.minCuda.str() + " or newer)";
  if (t.lastCudaMajor != 0 && ptxas.major > t.lastCudaMajor)
    return "ptxas " + ptxas.str() + " no longer supports " + std::string(t.name) +
           " (the last CUDA release with it is " + std::to_string(t.lastCudaMajor) + ".x)";
  auto maxPtx = maxPtxForCuda(ptxas);
  if (!maxPtx)
    return "ptxas " + ptxas.str() + " is older than any CUDA release Kina knows (9.0)";
  if (ptx > *maxPtx)
    return "ptxas " + ptxas.str() + " reads PTX ISA up to " + maxPtx->str() + ", not " + ptx.str();
  return std::nullopt;
}

std::optional<PtxVersion> choosePtxVersion(TargetId target, std::span<const CapabilityId> used,
                                           std::optional<PtxVersion> pinned,
                                           std::optional<CudaVersion> ptxas, std::string &error) {
  const TargetInfo &t = targetInfo(target);
  PtxVersion needed = t.defaultPtx;
  std::optional<CapabilityId> raisedBy;
  for (CapabilityId c : used) {
    if (!hasCapability(target, c)) {
      error = "`" + std::string(capabilityInfo(c).name) + "` is not available on " +
              std::string(t.name) + "; targets that have it: " + describeTargetsWith(c);
      return std::nullopt;
    }
    PtxVersion r = requiredPtx(target, c);
    if (r > needed) {
      needed = r;
      raisedBy = c;
    }
  }
  PtxVersion chosen = needed;
  if (pinned) {
    if (auto e = validateTargetPtx(target, *pinned)) {
      error = *e;
      return std::nullopt;
    }
    for (CapabilityId c : used)
      if (requiredPtx(target, c) > *pinned) {
        error = "PTX ISA " + pinned->str() + " is too old for `" +
                std::string(capabilityInfo(c).name) + "` on " + std::string(t.name) + " (needs " +
                requiredPtx(target, c).str() + ")";
        return std::nullopt;
      }
    chosen = *pinned;
  } else if (auto e = validateTargetPtx(target, chosen)) {
    error = *e;
    return std::nullopt;
  }
  if (ptxas)
    if (auto e = validateForPtxas(target, chosen, *ptxas)) {
      error = *e;
      if (raisedBy)
        error += " (PTX " + chosen.str() + " is needed by `" +
                 std::string(capabilityInfo(*raisedBy).name) + "`)";
      return std::nullopt;
    }
  return chosen;
}

} // namespace kina::target
