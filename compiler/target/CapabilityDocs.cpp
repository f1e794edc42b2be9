//===- CapabilityDocs.cpp - Render the registry as Markdown ---------------===//
//
// Produces docs/capabilities.md: the target table, the capability table,
// the capability-by-target matrix and the PTX ISA table per ptxas release.
//
//===----------------------------------------------------------------------===//
#include "target/CapabilityDocs.h"

#include "target/Registry.h"

#include <string_view>

namespace kina::target {
namespace {

std::string kib(std::uint32_t bytes) {
  if (bytes % 1024 == 0)
    return std::to_string(bytes / 1024) + " KiB";
  return std::to_string(bytes) + " B";
}

std::string cudaRange(const TargetInfo &t) {
  std::string s = t.minCuda.str() + " – ";
  s += t.lastCudaMajor == 0 ? std::string("current") : std::to_string(t.lastCudaMajor) + ".x";
  return s;
}

} // namespace

std::string renderCapabilitiesMarkdown() {
  std::string md;
  md += "# Targets and capabilities\n\n";
  md += "<!-- Generated from compiler/target/Targets.def, Capabilities.def and PtxIsa.def.\n";
  md += "     Do not edit. Regenerate with: ";
  md += kCapabilitiesDocsRegenCommand;
  md += " -->\n\n";
  md += "This page is generated from Kina's capability registry (`compiler/target`), the one\n"
        "source of truth about GPU targets. The checker, code generation, the occupancy\n"
        "calculator and this page all read the same tables. Architecture numbers are not a\n"
        "ladder: each capability lists the exact targets that have it (for example `wgmma_*`\n"
        "exists on `sm_90a` only, and `tcgen05` is on `sm_100a`/`sm_103a` but not `sm_120`).\n"
        "Every row is checked against the real ptxas by `tests/unit/target`.\n\n";
  md += "The default target of `kina` is `";
  md += targetInfo(defaultTarget()).name;
  md += "`. Targets ending in `a` are architecture-specific: their code runs only on exactly\n"
        "that architecture.\n\n";

  md += "## Targets\n\n";
  md += "| Target | CC | Arch-specific | GPUs | Min PTX | Kina emits PTX | ptxas (CUDA) | "
        "Smem/SM | Max smem/block (opt-in) | Threads/SM | Blocks/SM | Warps/SM |\n";
  md += "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const TargetInfo &t : allTargets()) {
    md += "| `" + std::string(t.name) + "` | " + std::to_string(t.ccMajor) + "." +
          std::to_string(t.ccMinor) + " | " + (t.archSpecific ? "yes" : "no") + " | " +
          std::string(t.description) + " | " + t.minPtx.str() + " | " + t.defaultPtx.str() +
          " | " + cudaRange(t) + " | " + kib(t.smemPerSM) + " | " + kib(t.maxSmemPerBlockOptin) +
          " | " + std::to_string(t.maxThreadsPerSM) + " | " + std::to_string(t.maxBlocksPerSM) +
          " | " + std::to_string(t.maxWarpsPerSM) + " |\n";
  }
  const TargetInfo &any = allTargets().front();
  md += "\nLimits common to every target: " + kib(any.staticSmemPerBlock) +
        " static shared memory per block (more needs dynamic shared memory with opt-in), " +
        std::to_string(any.regsPerSM) + " registers per SM, at most " +
        std::to_string(any.maxRegsPerThread) + " registers per thread, registers allocated per " +
        "warp in units of " + std::to_string(any.regAllocUnit) + ", warps allocated in groups of " +
        std::to_string(any.warpAllocGranularity) + ", at most " +
        std::to_string(any.maxThreadsPerBlock) + " threads per block. Targets with compute " +
        "capability 8.0 and newer reserve 1 KiB of shared memory per resident block and " +
        "allocate shared memory in 128-byte units (256 bytes before).\n\n";
  md += "Kina emits the target's default PTX ISA version, raised to what the capabilities a\n"
        "module uses need, and never newer than " +
        kMaxEmittedPtx.str() +
        " (ptxas 13.0 rejects 9.1) or than the ptxas found reads.\n\n";

  md += "## Capabilities\n\n";
  md += "| Capability | Min PTX | Description | Targets |\n|---|---|---|---|\n";
  for (const CapabilityInfo &c : allCapabilities()) {
    md += "| `" + std::string(c.name) + "` | " + c.minPtx.str() + " | " +
          std::string(c.description) + " | " + describeTargetsWith(c.id) + " |\n";
  }

  md += "\n## Capability matrix\n\n";
  md += "The PTX ISA version a capability needs on a target is the larger of the capability's\n"
        "and the target's minimum; the cells show it.\n\n";
  md += "| Capability |";
  std::string rule = "|---|";
  for (const TargetInfo &t : allTargets()) {
    md += " " + std::string(t.name) + " |";
    rule += "---|";
  }
  md += "\n" + rule + "\n";
  for (const CapabilityInfo &c : allCapabilities()) {
    md += "| `" + std::string(c.name) + "` |";
    for (const TargetInfo &t : allTargets())
      md += hasCapability(t.id, c.id) ? " " + requiredPtx(t.id, c.id).str() + " |"
                                      : std::string(" – |");
    md += "\n";
  }

  md += "\n## PTX ISA read by each ptxas release\n\n";
  md += "| CUDA | Newest PTX ISA |\n|---|---|\n";
  for (const PtxasRelease &r : ptxasReleases())
    md += "| " + r.cuda.str() + " | " + r.maxPtx.str() + " |\n";
  return md;
}

} // namespace kina::target
