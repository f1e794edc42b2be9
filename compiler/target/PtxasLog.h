//===- PtxasLog.h - Reading ptxas' verbose (-v) output ----------*- C++ -*-===//
//
// Parses the resource lines ptxas prints with -v, one record per function:
//
//   ptxas info    : Compiling entry function 'k' for 'sm_80'
//   ptxas info    : Function properties for k
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 22 registers, used 1 barriers, 6144 bytes smem, 380 bytes cmem[0]
//
// One of the two sources of the register report (the other is the cubin,
// CubinInfo.h). Pure function of its input; never fails (unknown lines are
// skipped).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kina::target {

struct PtxasFunctionStats {
  std::string name;
  std::string target;    ///< from "for 'sm_80'" (entry functions)
  bool isEntry = false;  ///< "Compiling entry function" (a kernel)
  std::optional<unsigned> registers;
  unsigned barriers = 0;
  std::uint64_t stackFrame = 0;
  std::uint64_t spillStores = 0;
  std::uint64_t spillLoads = 0;
  std::uint64_t sharedBytes = 0;          ///< static shared memory ("bytes smem")
  std::uint64_t cumulativeStack = 0;      ///< "bytes cumulative stack size"
  std::vector<std::pair<unsigned, std::uint64_t>> constBanks; ///< (bank, bytes) of cmem[bank]
};

struct PtxasLog {
  std::uint64_t globalBytes = 0; ///< "N bytes gmem"
  std::vector<PtxasFunctionStats> functions;
  const PtxasFunctionStats *find(std::string_view name) const;
};

PtxasLog parsePtxasVerbose(std::string_view log);

} // namespace kina::target
