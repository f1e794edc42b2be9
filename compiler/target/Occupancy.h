//===- Occupancy.h - Theoretical occupancy from registry limits -*- C++ -*-===//
//
// How many blocks and warps of a kernel fit on one SM of a target, given
// threads per block, registers per thread and shared memory per block, and
// which limit binds. The limits come from the registry (Targets.def); the
// arithmetic follows NVIDIA's occupancy calculator (cuda_occupancy.h):
//   - registers are allocated per warp, rounded up to regAllocUnit, and a
//     warp's registers come from one of warpAllocGranularity register-file
//     partitions (regsPerSM / partitions each);
//   - shared memory per block is rounded up to smemAllocUnit after adding
//     the per-block system reservation; the SM is assumed to use its
//     largest carveout (smemPerSM);
//   - warps per SM and blocks per SM are capped by the hardware.
// Pure function; never fails: an impossible configuration gets zero blocks
// and an `error` message.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "target/Registry.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kina::target {

enum class OccupancyLimit { Registers, SharedMemory, Threads, Blocks };
std::string_view occupancyLimitName(OccupancyLimit limit); ///< "registers", ...

struct OccupancyInput {
  unsigned threadsPerBlock = 0;
  unsigned registersPerThread = 0;  ///< 0: unknown, not a limit
  std::uint64_t sharedBytesPerBlock = 0; ///< static + dynamic
};

struct OccupancyResult {
  unsigned warpsPerBlock = 0;
  unsigned blocksPerSM = 0;   ///< active blocks per SM
  unsigned warpsPerSM = 0;    ///< active warps per SM
  unsigned maxWarpsPerSM = 0; ///< of the target
  double occupancy = 0;       ///< warpsPerSM / maxWarpsPerSM
  /// Blocks per SM each limit allows on its own. A resource that does not
  /// limit at all (no registers known, no shared memory) reports the block limit.
  unsigned blocksByRegisters = 0;
  unsigned blocksBySharedMemory = 0;
  unsigned blocksByThreads = 0; ///< warps per SM / warps per block
  unsigned blocksByBlockLimit = 0;
  /// The limits that give the minimum, most specific first
  /// (registers, shared memory, threads, blocks).
  std::vector<OccupancyLimit> binding;
  std::string error; ///< non-empty when the block cannot launch at all
};

OccupancyResult computeOccupancy(TargetId target, const OccupancyInput &in);

} // namespace kina::target
