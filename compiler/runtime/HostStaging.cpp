//===- HostStaging.cpp - Pinned staging for host functions' copies --------===//
#include "runtime/HostStaging.h"

#include "runtime/CudaDriver.h"

#include <cstring>

namespace kina::runtime {

using namespace cuda;

PinnedStaging::~PinnedStaging() {
  if (buffer_ && device_.api().cuMemFreeHost && device_.context()->makeCurrent())
    device_.api().cuMemFreeHost(buffer_);
}

Status PinnedStaging::reserve(std::size_t bytes) {
  const CudaDriver &api = device_.api();
  if (!api.cuMemAllocHost || !api.cuMemFreeHost || !api.cuMemcpyHtoDAsync ||
      !api.cuMemcpyDtoHAsync) {
    pinned_ = false;
    return {};
  }
  if (bytes <= capacity_)
    return {};
  if (Status s = device_.context()->makeCurrent(); !s)
    return s;
  if (buffer_)
    api.cuMemFreeHost(buffer_);
  buffer_ = nullptr;
  capacity_ = 0;
  if (CUresult rc = api.cuMemAllocHost(&buffer_, bytes); rc != CUDA_SUCCESS) {
    buffer_ = nullptr;
    return api.error(rc, "allocating " + std::to_string(bytes) + " bytes of pinned staging memory");
  }
  capacity_ = bytes;
  return {};
}

Status PinnedStaging::toDevice(const DeviceBuffer &dst, std::span<const std::uint8_t> src,
                               CUstream stream) {
  if (src.size() != dst.size())
    return makeError(ErrorKind::InvalidArgument, "copy_to_device: " + std::to_string(src.size()) +
                                                     " host bytes into a device buffer of " +
                                                     std::to_string(dst.size()));
  if (src.empty())
    return {};
  if (Status s = reserve(src.size()); !s)
    return s;
  const CudaDriver &api = device_.api();
  if (!pinned_) {
    CUresult rc = api.cuMemcpyHtoD(dst.devicePtr(), src.data(), src.size());
    return rc == CUDA_SUCCESS ? Status{} : Status{api.error(rc, "copy_to_device")};
  }
  std::memcpy(buffer_, src.data(), src.size());
  if (CUresult rc = api.cuMemcpyHtoDAsync(dst.devicePtr(), buffer_, src.size(), stream);
      rc != CUDA_SUCCESS)
    return api.error(rc, "copy_to_device (cuMemcpyHtoDAsync)");
  // The staging buffer is reused by the next copy: wait for this one.
  if (CUresult rc = api.cuStreamSynchronize(stream); rc != CUDA_SUCCESS)
    return api.error(rc, "copy_to_device (synchronize)");
  return {};
}

Status PinnedStaging::toHost(std::span<std::uint8_t> dst, const DeviceBuffer &src,
                             CUstream stream) {
  if (dst.size() != src.size())
    return makeError(ErrorKind::InvalidArgument, "copy_to_host: a device buffer of " +
                                                     std::to_string(src.size()) + " bytes into " +
                                                     std::to_string(dst.size()) + " host bytes");
  if (dst.empty())
    return {};
  if (Status s = reserve(dst.size()); !s)
    return s;
  const CudaDriver &api = device_.api();
  if (!pinned_) {
    CUresult rc = api.cuMemcpyDtoH(dst.data(), src.devicePtr(), dst.size());
    return rc == CUDA_SUCCESS ? Status{} : Status{api.error(rc, "copy_to_host")};
  }
  if (CUresult rc = api.cuMemcpyDtoHAsync(buffer_, src.devicePtr(), dst.size(), stream);
      rc != CUDA_SUCCESS)
    return api.error(rc, "copy_to_host (cuMemcpyDtoHAsync)");
  if (CUresult rc = api.cuStreamSynchronize(stream); rc != CUDA_SUCCESS)
    return api.error(rc, "copy_to_host (synchronize)");
  std::memcpy(dst.data(), buffer_, dst.size());
  return {};
}

} // namespace kina::runtime
