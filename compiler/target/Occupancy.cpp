//===- Occupancy.cpp - Occupancy calculator -------------------------------===//
//
// See Occupancy.h for the model.
//
//===----------------------------------------------------------------------===//
#include "target/Occupancy.h"

#include <algorithm>
#include <limits>

namespace kina::target {
namespace {

std::uint64_t roundUp(std::uint64_t v, std::uint64_t unit) {
  return unit == 0 ? v : (v + unit - 1) / unit * unit;
}

} // namespace

std::string_view occupancyLimitName(OccupancyLimit limit) {
  switch (limit) {
  case OccupancyLimit::Registers:
    return "registers";
  case OccupancyLimit::SharedMemory:
    return "shared memory";
  case OccupancyLimit::Threads:
    return "threads";
  case OccupancyLimit::Blocks:
    return "blocks per SM";
  }
  return "unknown";
}

OccupancyResult computeOccupancy(TargetId target, const OccupancyInput &in) {
  const TargetInfo &t = targetInfo(target);
  OccupancyResult r;
  r.maxWarpsPerSM = t.maxWarpsPerSM;
  const unsigned warpSize = 32;

  if (in.threadsPerBlock == 0) {
    r.error = "a block needs at least one thread";
    return r;
  }
  if (in.threadsPerBlock > t.maxThreadsPerBlock) {
    r.error = std::to_string(in.threadsPerBlock) + " threads per block exceed the limit of " +
              std::to_string(t.maxThreadsPerBlock) + " on " + std::string(t.name);
    return r;
  }
  if (in.registersPerThread > t.maxRegsPerThread) {
    r.error = std::to_string(in.registersPerThread) + " registers per thread exceed the limit of " +
              std::to_string(t.maxRegsPerThread) + " on " + std::string(t.name);
    return r;
  }
  if (in.sharedBytesPerBlock > t.maxSmemPerBlockOptin) {
    r.error = std::to_string(in.sharedBytesPerBlock) +
              " bytes of shared memory per block exceed the limit of " +
              std::to_string(t.maxSmemPerBlockOptin) + " on " + std::string(t.name);
    return r;
  }

  r.warpsPerBlock = (in.threadsPerBlock + warpSize - 1) / warpSize;
  r.blocksByThreads = t.maxWarpsPerSM / r.warpsPerBlock;
  r.blocksByBlockLimit = t.maxBlocksPerSM;

  const unsigned unlimited = std::numeric_limits<unsigned>::max();
  r.blocksByRegisters = unlimited;
  if (in.registersPerThread > 0) {
    std::uint64_t regsPerWarp = roundUp(std::uint64_t(in.registersPerThread) * warpSize,
                                        t.regAllocUnit);
    if (regsPerWarp * r.warpsPerBlock > t.regsPerSM) {
      r.error = "the block needs " + std::to_string(regsPerWarp * r.warpsPerBlock) +
                " registers, more than the " + std::to_string(t.regsPerSM) + " of an SM";
      r.blocksByRegisters = 0;
    } else {
      unsigned partitions = std::max(1u, t.warpAllocGranularity);
      std::uint64_t warpsPerPartition = (t.regsPerSM / partitions) / regsPerWarp;
      r.blocksByRegisters = static_cast<unsigned>(warpsPerPartition * partitions / r.warpsPerBlock);
    }
  }

  r.blocksBySharedMemory = unlimited;
  std::uint64_t smemPerBlock =
      roundUp(in.sharedBytesPerBlock + t.reservedSmemPerBlock, t.smemAllocUnit);
  if (smemPerBlock > 0)
    r.blocksBySharedMemory = static_cast<unsigned>(t.smemPerSM / smemPerBlock);

  r.blocksPerSM = std::min({r.blocksByRegisters, r.blocksBySharedMemory, r.blocksByThreads,
                            r.blocksByBlockLimit});
  r.warpsPerSM = r.blocksPerSM * r.warpsPerBlock;
  r.occupancy = t.maxWarpsPerSM ? double(r.warpsPerSM) / t.maxWarpsPerSM : 0;
  if (r.blocksByRegisters == r.blocksPerSM)
    r.binding.push_back(OccupancyLimit::Registers);
  if (r.blocksBySharedMemory == r.blocksPerSM)
    r.binding.push_back(OccupancyLimit::SharedMemory);
  if (r.blocksByThreads == r.blocksPerSM)
    r.binding.push_back(OccupancyLimit::Threads);
  if (r.blocksByBlockLimit == r.blocksPerSM)
    r.binding.push_back(OccupancyLimit::Blocks);
  if (r.blocksByRegisters == unlimited)
    r.blocksByRegisters = r.blocksByBlockLimit;
  if (r.blocksBySharedMemory == unlimited)
    r.blocksBySharedMemory = r.blocksByBlockLimit;
  return r;
}

} // namespace kina::target
