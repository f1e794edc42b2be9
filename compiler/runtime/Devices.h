//===- Devices.h - Bookkeeping for several devices (issue 19) ---*- C++ -*-===//
//
// What a host function on more than one device needs to know before it
// touches a GPU: which devices there are and which can read each other's
// memory (cuDeviceCanAccessPeer), how a copy between two devices goes (a
// peer copy, or staged through pinned host memory), whether the devices a
// function names are present (K1351), and which device owns each
// allocation, so that a launch on device d is refused when an operand lives
// on a device d cannot read. The logic is pure (unit-tested without a GPU);
// probeTopology fills a Topology from the driver.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/CudaApi.h"
#include "runtime/RuntimeError.h"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kina::runtime {

class CudaDriver;

/// The devices of a machine: `peer[a][b]` when device a can read device b's
/// memory directly.
struct Topology {
  int count = 0;
  std::vector<std::vector<bool>> peer;
  bool canAccess(int from, int to) const;
};

enum class CopyRoute : uint8_t { SameDevice, Peer, Staged };
const char *copyRouteName(CopyRoute r); ///< `same device`, `peer`, `staged through the host`

/// How a copy from device `from` to device `to` goes: a peer copy when
/// either side can read the other (cuMemcpyPeer), else staged through host
/// memory (device -> pinned host -> device).
CopyRoute copyRoute(const Topology &t, int from, int to);

/// "" when every device index in `needed` is below `found`; otherwise the
/// message of K1351 (the highest device needed and the count found).
std::string missingDevices(const std::vector<int64_t> &needed, int found);

/// The device allocations, tagged by the device that owns them.
class DeviceLedger {
public:
  void add(cuda::CUdeviceptr base, std::size_t bytes, int device, std::string what);
  /// False when `base` is not an allocation's start.
  bool remove(cuda::CUdeviceptr base);
  /// The device owning the allocation containing `p`.
  std::optional<int> owner(cuda::CUdeviceptr p) const;
  std::size_t bytesOn(int device) const;
  std::size_t allocations() const { return byBase_.size(); }
  /// "" or why a launch on `device` cannot read `operands`: an address no
  /// allocation holds, or one on a device that `device` has no peer access to.
  std::string checkLaunch(int device, const std::vector<cuda::CUdeviceptr> &operands,
                          const Topology &t) const;

private:
  struct Entry {
    std::size_t bytes;
    int device;
    std::string what;
  };
  std::map<cuda::CUdeviceptr, Entry> byBase_;
};

/// The device count and peer-access matrix through the driver. Without
/// cuDeviceCanAccessPeer no pair is peer (every copy is staged).
Result<Topology> probeTopology(const CudaDriver &driver);

} // namespace kina::runtime
