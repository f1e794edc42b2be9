//===- Launch.h - Launching a kernel ----------------------------*- C++ -*-===//
//
// launch() sends one kernel launch to a stream with cuLaunchKernelEx
// (cuLaunchKernel on drivers without it). Arguments are packed by KernelArgs
// in parameter order: device pointers, 32/64-bit integers (dims) and floats.
// Dynamic shared memory above 48 KiB is opted in automatically. Launch
// errors name the kernel, the grid and block, and the CUDA error.
//
// A launch is asynchronous: faults inside the kernel surface at the next
// synchronisation (Device::synchronize / Stream::synchronize), which take the
// kernel name for their message.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/Device.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kina::runtime {

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  std::uint64_t volume() const { return std::uint64_t(x) * y * z; }
  std::string str() const; ///< "[x, y, z]"
  bool operator==(const Dim3 &) const = default;
};

struct LaunchConfig {
  Dim3 grid;
  Dim3 block;
  std::uint32_t dynamicSharedBytes = 0;
  /// Thread-block cluster shape (sm_90+); {0,0,0} or {1,1,1} means none.
  Dim3 cluster{0, 0, 0};
};

/// Kernel parameters in declaration order. Each value lives in its own
/// 8-byte slot so the driver can read it through a pointer.
class KernelArgs {
public:
  KernelArgs &pointer(const DeviceBuffer &buffer) { return push(buffer.devicePtr()); }
  KernelArgs &pointer(cuda::CUdeviceptr ptr) { return push(ptr); }
  KernelArgs &i32(std::int32_t v) { return push(v); }
  KernelArgs &i64(std::int64_t v) { return push(v); }
  KernelArgs &u32(std::uint32_t v) { return push(v); }
  KernelArgs &f32(float v) { return push(v); }
  KernelArgs &f64(double v) { return push(v); }
  KernelArgs &u16(std::uint16_t v) { return push(v); }
  KernelArgs &u8(std::uint8_t v) { return push(v); }
  /// A 128-byte CUtensorMap passed by value (a grid_constant parameter).
  KernelArgs &tensorMap(const cuda::CUtensorMap &map);

  std::size_t size() const { return slots_.size(); }
  /// The `void**` array cuLaunchKernel expects; valid until the next push.
  std::vector<void *> pointers() const;

private:
  template <typename T> KernelArgs &push(T v) {
    static_assert(sizeof(T) <= sizeof(std::uint64_t));
    std::uint64_t slot = 0;
    __builtin_memcpy(&slot, &v, sizeof(T));
    slots_.push_back(slot);
    return *this;
  }
  std::vector<std::uint64_t> slots_;
  /// (slot index, map) for by-value tensor maps; owned here so that the
  /// pointers handed to cuLaunchKernel stay valid while the args live.
  std::vector<std::pair<std::size_t, std::shared_ptr<cuda::CUtensorMap>>> maps_;
};

/// Launches `kernel` on `stream` (nullptr: the legacy default stream).
Status launch(const Kernel &kernel, const LaunchConfig &config, const KernelArgs &args,
              const Stream *stream = nullptr);

} // namespace kina::runtime
