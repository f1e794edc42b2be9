//===- Registry.h - The one source of truth about GPU targets ---*- C++ -*-===//
//
// The capability registry (DESIGN.md §3.5): which targets exist, their
// resource limits, the PTX ISA versions they accept, and which hardware
// capabilities each one has. The data lives in Targets.def,
// Capabilities.def and PtxIsa.def; this header is the only way to read it.
// The checker, codegen, occupancy calculator, docs and tests all ask here;
// nothing else in Kina compares `sm_` numbers (STYLE.md 4).
//
// Architecture numbers are not a ladder: every capability stores an explicit
// set of targets, so there is deliberately no "at least sm_XY" query.
//
// Everything here is immutable static data: thread-safe, never throws.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kina::target {

/// A PTX ISA version such as 8.0.
struct PtxVersion {
  int major = 0;
  int minor = 0;
  constexpr auto operator<=>(const PtxVersion &) const = default;
  /// "8.0"
  std::string str() const;
  /// 80: the number in LLVM's NVPTX feature `+ptx80`.
  constexpr int llvmFeatureNumber() const { return major * 10 + minor; }
};

/// A CUDA toolkit release such as 13.0 (what `ptxas --version` reports).
struct CudaVersion {
  int major = 0;
  int minor = 0;
  constexpr auto operator<=>(const CudaVersion &) const = default;
  std::string str() const;
};

/// Parses "8.0", "8", "80", "ptx80" or "+ptx80". Returns nullopt otherwise.
std::optional<PtxVersion> parsePtxVersion(std::string_view text);
/// Parses "13.0" or "13". Returns nullopt otherwise.
std::optional<CudaVersion> parseCudaVersion(std::string_view text);

/// The newest PTX ISA Kina ever emits (ptxas 13.0 rejects 9.1).
inline constexpr PtxVersion kMaxEmittedPtx{9, 0};

enum class TargetId : std::uint8_t {
#define KINA_TARGET(ID, ...) ID,
#include "target/Targets.def"
#undef KINA_TARGET
};

enum class CapabilityId : std::uint8_t {
#define KINA_CAPABILITY(ID, ...) ID,
#include "target/Capabilities.def"
#undef KINA_CAPABILITY
};

/// One target and its limits. Sizes are in bytes.
struct TargetInfo {
  TargetId id;
  std::string_view name; ///< "sm_90a"
  int ccMajor;           ///< compute capability, e.g. 9
  int ccMinor;           ///< e.g. 0
  bool archSpecific;     ///< an 'a' target: its code runs only on exactly this architecture
  PtxVersion minPtx;     ///< oldest PTX ISA that accepts `.target <name>`
  PtxVersion defaultPtx; ///< PTX ISA Kina emits when nothing needs newer
  CudaVersion minCuda;   ///< first ptxas release that knows the target
  int lastCudaMajor;     ///< last CUDA major release supporting it; 0 = still supported
  std::uint32_t staticSmemPerBlock;   ///< 48 KiB without opt-in
  std::uint32_t maxSmemPerBlockOptin; ///< dynamic shared memory limit with opt-in
  std::uint32_t smemPerSM;            ///< largest shared-memory carveout per SM
  std::uint32_t reservedSmemPerBlock; ///< system use per resident block
  std::uint32_t smemAllocUnit;        ///< shared memory allocation granularity
  std::uint32_t regsPerSM;
  std::uint32_t maxRegsPerThread;
  std::uint32_t regAllocUnit;         ///< registers are allocated per warp in these units
  std::uint32_t warpAllocGranularity; ///< warps per register-file partition group
  std::uint32_t maxThreadsPerBlock;
  std::uint32_t maxThreadsPerSM;
  std::uint32_t maxBlocksPerSM;
  std::uint32_t maxWarpsPerSM;
  std::string_view description; ///< GPUs this is, e.g. "Ampere (A100)"
};

/// One capability row of Capabilities.def.
struct CapabilityInfo {
  CapabilityId id;
  std::string_view name;        ///< "cp_async"
  PtxVersion minPtx;            ///< oldest PTX ISA with the instruction
  std::string_view description; ///< one line for docs and hover
};

// ---- targets ----
/// Every target, in Targets.def order.
std::span<const TargetInfo> allTargets();
const TargetInfo &targetInfo(TargetId id);
/// Exact, case-sensitive lookup of "sm_80". Returns nullptr for unknown names.
const TargetInfo *lookupTarget(std::string_view name);
/// Target names in registry order, for completion.
std::vector<std::string_view> targetNames();
/// The targets a device with compute capability major.minor runs natively
/// (e.g. 9.0 -> sm_90, sm_90a), for the runtime to match a GPU.
std::vector<TargetId> targetsForDevice(int ccMajor, int ccMinor);
/// The one default target (sm_90a) of `kina`, `kina-lsp`, the checker and
/// code generation, documented in docs/capabilities.md; everything else reads
/// it from here (tests/lit/driver/default-target.test).
TargetId defaultTarget();
/// targetInfo(defaultTarget()).name.
std::string_view defaultTargetName();

// ---- capabilities ----
std::span<const CapabilityInfo> allCapabilities();
const CapabilityInfo &capabilityInfo(CapabilityId id);
/// Exact lookup of a capability name ("cp_async").
std::optional<CapabilityId> parseCapabilityName(std::string_view name);
/// Capability names in registry order, for completion.
std::vector<std::string_view> capabilityNames();
bool hasCapability(TargetId target, CapabilityId cap);
/// The targets that have `cap`, in registry order.
std::vector<TargetId> targetsWith(CapabilityId cap);
/// The capabilities `target` has, in registry order.
std::vector<CapabilityId> capabilitiesOf(TargetId target);
/// "sm_80, sm_86, ..." for messages such as "`cp_async` needs one of: ...".
std::string describeTargetsWith(CapabilityId cap);
/// PTX ISA needed to use `cap` on `target`: max(cap.minPtx, target.minPtx).
PtxVersion requiredPtx(TargetId target, CapabilityId cap);

// ---- spelling help ----
/// The closest target name by edit distance, when close enough to be a typo.
std::optional<std::string_view> suggestTarget(std::string_view misspelled);
/// The closest capability name by edit distance, when close enough.
std::optional<std::string_view> suggestCapability(std::string_view misspelled);
/// The closest target name that has every capability in `having`, so that
/// a fix-it never trades a typo for a target that lacks what the kernel uses.
std::optional<std::string_view> suggestTarget(std::string_view misspelled,
                                              std::span<const CapabilityId> having);
/// The closest capability name that every target in `on` has.
std::optional<std::string_view> suggestCapability(std::string_view misspelled,
                                                  std::span<const TargetId> on);
/// "unknown target `sm_08`; did you mean `sm_80`? (known targets: ...)"
std::string unknownTargetMessage(std::string_view name);
/// The same, suggesting only a target with every capability in `having`.
std::string unknownTargetMessage(std::string_view name, std::span<const CapabilityId> having);
/// "unknown capability `cp_asnyc`; did you mean `cp_async`?"
std::string unknownCapabilityMessage(std::string_view name);
/// The same, suggesting only a capability that every target in `on` has; a
/// closer one they lack is named as such ("..., which sm_80 does not have").
std::string unknownCapabilityMessage(std::string_view name, std::span<const TargetId> on);

// ---- PTX ISA and ptxas ----
/// True for PTX ISA versions that exist (6.0 .. 9.1).
bool isKnownPtxVersion(PtxVersion v);
/// The newest PTX ISA the ptxas of a CUDA release reads, or nullopt for a
/// release older than the table (CUDA 9.0).
std::optional<PtxVersion> maxPtxForCuda(CudaVersion cuda);

struct PtxasRelease {
  CudaVersion cuda;
  PtxVersion maxPtx; ///< newest PTX ISA this release's ptxas reads
};
/// The rows of PtxIsa.def, oldest first.
std::span<const PtxasRelease> ptxasReleases();

/// Rejects impossible (target, PTX) pairs BEFORE anything calls LLVM or
/// ptxas: unknown PTX versions, PTX older than the target needs, and PTX
/// newer than Kina emits. Returns the error message, or nullopt when fine.
std::optional<std::string> validateTargetPtx(TargetId target, PtxVersion ptx);
/// Same, from user-facing strings; also rejects unknown target names (with a
/// suggestion) and unparsable versions.
std::optional<std::string> validateTargetPtx(std::string_view target, std::string_view ptx);
/// Rejects a (target, PTX) pair the ptxas of CUDA release `ptxas` cannot
/// assemble: target too new or dropped (sm_70 in CUDA 13), PTX too new.
std::optional<std::string> validateForPtxas(TargetId target, PtxVersion ptx, CudaVersion ptxas);

/// The PTX ISA version to emit for `target` given the capabilities the
/// module uses: the target default raised to what each capability needs.
/// `pinned` (a user flag) is never changed: it is validated instead. With
/// `ptxas` set, the result must also be readable by that release.
/// On failure `error` receives the message and the result is nullopt.
std::optional<PtxVersion> choosePtxVersion(TargetId target, std::span<const CapabilityId> used,
                                           std::optional<PtxVersion> pinned,
                                           std::optional<CudaVersion> ptxas, std::string &error);

} // namespace kina::target
