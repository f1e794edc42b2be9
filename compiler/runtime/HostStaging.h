//===- HostStaging.h - Pinned staging for host functions' copies -*- C++ -*-===//
//
// copy_to_device / copy_to_host of a host function are real transfers:
// the bytes go through one pinned (page-locked) host buffer, grown as
// needed, with cuMemcpyHtoDAsync / cuMemcpyDtoHAsync on the given stream
// (a pinned source is what lets the copy engine run at full speed and
// asynchronously). The buffer is freed by the destructor. A driver
// without the pinned entry points falls back to the synchronous copies.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/Device.h"

#include <cstdint>
#include <span>

namespace kina::runtime {

class PinnedStaging {
public:
  explicit PinnedStaging(const Device &device) : device_(device) {}
  ~PinnedStaging();
  PinnedStaging(const PinnedStaging &) = delete;
  PinnedStaging &operator=(const PinnedStaging &) = delete;

  /// host -> device; returns once the copy has completed.
  Status toDevice(const DeviceBuffer &dst, std::span<const std::uint8_t> src,
                  cuda::CUstream stream);
  /// device -> host; returns once the bytes are in `dst`.
  Status toHost(std::span<std::uint8_t> dst, const DeviceBuffer &src, cuda::CUstream stream);
  /// Whether the copies went through pinned memory (false: the fallback).
  bool pinned() const { return pinned_; }
  /// Bytes of pinned memory held.
  std::size_t capacity() const { return capacity_; }

private:
  Status reserve(std::size_t bytes);
  const Device &device_;
  void *buffer_ = nullptr;
  std::size_t capacity_ = 0;
  bool pinned_ = true;
};

} // namespace kina::runtime
