//===- Devices.cpp - Bookkeeping for several devices (issue 19) -----------===//
#include "runtime/Devices.h"

#include "runtime/CudaDriver.h"

namespace kina::runtime {

bool Topology::canAccess(int from, int to) const {
  if (from < 0 || to < 0 || from >= count || to >= count)
    return false;
  if (from == to)
    return true;
  return size_t(from) < peer.size() && size_t(to) < peer[size_t(from)].size() &&
         peer[size_t(from)][size_t(to)];
}

const char *copyRouteName(CopyRoute r) {
  switch (r) {
  case CopyRoute::SameDevice:
    return "same device";
  case CopyRoute::Peer:
    return "peer";
  case CopyRoute::Staged:
    return "staged through the host";
  }
  return "?";
}

CopyRoute copyRoute(const Topology &t, int from, int to) {
  if (from == to)
    return CopyRoute::SameDevice;
  return t.canAccess(to, from) || t.canAccess(from, to) ? CopyRoute::Peer : CopyRoute::Staged;
}

std::string missingDevices(const std::vector<int64_t> &needed, int found) {
  int64_t top = -1;
  for (int64_t d : needed)
    top = std::max(top, d);
  if (top < found)
    return "";
  return "needs devices 0 to " + std::to_string(top) + " (" + std::to_string(top + 1) +
         "), this machine has " + std::to_string(found);
}

void DeviceLedger::add(cuda::CUdeviceptr base, std::size_t bytes, int device, std::string what) {
  byBase_[base] = Entry{bytes, device, std::move(what)};
}

bool DeviceLedger::remove(cuda::CUdeviceptr base) { return byBase_.erase(base) == 1; }

std::optional<int> DeviceLedger::owner(cuda::CUdeviceptr p) const {
  auto it = byBase_.upper_bound(p);
  if (it == byBase_.begin())
    return std::nullopt;
  --it;
  if (p < it->first + it->second.bytes || (it->second.bytes == 0 && p == it->first))
    return it->second.device;
  return std::nullopt;
}

std::size_t DeviceLedger::bytesOn(int device) const {
  std::size_t n = 0;
  for (const auto &[base, e] : byBase_)
    if (e.device == device)
      n += e.bytes;
  return n;
}

std::string DeviceLedger::checkLaunch(int device, const std::vector<cuda::CUdeviceptr> &operands,
                                      const Topology &t) const {
  for (size_t i = 0; i < operands.size(); ++i) {
    auto o = owner(operands[i]);
    if (!o)
      return "operand " + std::to_string(i + 1) + " is not a device allocation Kina made";
    if (*o != device && !t.canAccess(device, *o)) {
      auto it = std::prev(byBase_.upper_bound(operands[i]));
      return "operand " + std::to_string(i + 1) + " (" + it->second.what + ") is on device " +
             std::to_string(*o) + ", which device " + std::to_string(device) +
             " cannot read (no peer access): copy it first";
    }
  }
  return "";
}

Result<Topology> probeTopology(const CudaDriver &driver) {
  Topology t;
  int n = 0;
  if (cuda::CUresult r = driver.cuDeviceGetCount(&n); r != 0)
    return driver.error(r, "cuDeviceGetCount");
  t.count = n;
  t.peer.assign(size_t(n), std::vector<bool>(size_t(n), false));
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      int ok = 0;
      if (a != b && driver.cuDeviceCanAccessPeer && driver.cuDeviceCanAccessPeer(&ok, a, b) == 0)
        t.peer[size_t(a)][size_t(b)] = ok != 0;
    }
  return t;
}

} // namespace kina::runtime
