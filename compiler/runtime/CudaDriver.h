//===- CudaDriver.h - libcuda.so.1 opened with dlopen -----------*- C++ -*-===//
//
// CudaDriver is the table of CUDA driver entry points, resolved with dlsym
// from libcuda.so.1 (or $KINA_LIBCUDA) at run time, after which cuInit has
// succeeded. When the library, a GPU or the kernel module is missing, loading
// yields ErrorKind::NoDevice with the reason, which the CLI prints as
// `SKIP: no CUDA device (<reason>)`.
//
// Versioned symbols are resolved by their ABI names (cuMemAlloc_v2, ...), the
// names cuda.h maps the plain API names to; cuGetProcAddress is not used.
//
// Thread safety: shared() initialises once and is safe to call from any
// thread; the table itself is immutable after loading.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/CudaApi.h"
#include "runtime/RuntimeError.h"

#include <memory>
#include <string>

namespace kina::runtime {

class CudaDriver {
public:
  /// The process-wide driver, loaded on first use from $KINA_LIBCUDA if set,
  /// else "libcuda.so.1". The outcome (including failure) is cached.
  static Result<const CudaDriver *> shared();

  /// Loads a fresh table from `libraryPath` and calls cuInit. Used by tests
  /// to exercise the failure paths; the library handle is never closed
  /// because the driver does not support being unloaded after cuInit.
  static Result<std::unique_ptr<CudaDriver>> load(const std::string &libraryPath);

  /// CUDA version the driver supports, e.g. 13000 for 13.0.
  int driverVersion() const { return driverVersion_; }
  const std::string &libraryPath() const { return libraryPath_; }

  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)", using the driver's own
  /// strings, falling back to the number when the driver does not know it.
  std::string describe(cuda::CUresult code) const;
  /// A RuntimeError for a failed call: "<what>: <describe(code)>", with the
  /// kind chosen by classifyCudaError.
  RuntimeError error(cuda::CUresult code, const std::string &what) const;

  // Entry points. Optional ones (nullptr when the driver lacks them) are
  // marked so.
  cuda::PFN_cuInit cuInit = nullptr;
  cuda::PFN_cuDriverGetVersion cuDriverGetVersion = nullptr;
  cuda::PFN_cuGetErrorName cuGetErrorName = nullptr;
  cuda::PFN_cuGetErrorString cuGetErrorString = nullptr;
  cuda::PFN_cuDeviceGetCount cuDeviceGetCount = nullptr;
  cuda::PFN_cuDeviceGet cuDeviceGet = nullptr;
  cuda::PFN_cuDeviceGetName cuDeviceGetName = nullptr;
  cuda::PFN_cuDeviceGetAttribute cuDeviceGetAttribute = nullptr;
  cuda::PFN_cuDeviceTotalMem cuDeviceTotalMem = nullptr;
  cuda::PFN_cuDevicePrimaryCtxRetain cuDevicePrimaryCtxRetain = nullptr;
  cuda::PFN_cuDevicePrimaryCtxRelease cuDevicePrimaryCtxRelease = nullptr;
  cuda::PFN_cuCtxSetCurrent cuCtxSetCurrent = nullptr;
  cuda::PFN_cuCtxSynchronize cuCtxSynchronize = nullptr;
  cuda::PFN_cuMemGetInfo cuMemGetInfo = nullptr;
  cuda::PFN_cuModuleLoadDataEx cuModuleLoadDataEx = nullptr;
  cuda::PFN_cuModuleUnload cuModuleUnload = nullptr;
  cuda::PFN_cuModuleGetFunction cuModuleGetFunction = nullptr;
  cuda::PFN_cuFuncGetAttribute cuFuncGetAttribute = nullptr;
  cuda::PFN_cuFuncSetAttribute cuFuncSetAttribute = nullptr;
  cuda::PFN_cuMemAlloc cuMemAlloc = nullptr;
  cuda::PFN_cuMemFree cuMemFree = nullptr;
  cuda::PFN_cuMemcpyHtoD cuMemcpyHtoD = nullptr;
  cuda::PFN_cuMemcpyDtoH cuMemcpyDtoH = nullptr;
  cuda::PFN_cuMemsetD8 cuMemsetD8 = nullptr;
  cuda::PFN_cuMemsetD8Async cuMemsetD8Async = nullptr;
  cuda::PFN_cuStreamCreate cuStreamCreate = nullptr;
  cuda::PFN_cuStreamDestroy cuStreamDestroy = nullptr;
  cuda::PFN_cuStreamSynchronize cuStreamSynchronize = nullptr;
  cuda::PFN_cuEventCreate cuEventCreate = nullptr;
  cuda::PFN_cuEventDestroy cuEventDestroy = nullptr;
  cuda::PFN_cuEventRecord cuEventRecord = nullptr;
  cuda::PFN_cuEventSynchronize cuEventSynchronize = nullptr;
  cuda::PFN_cuEventElapsedTime cuEventElapsedTime = nullptr;
  cuda::PFN_cuLaunchKernel cuLaunchKernel = nullptr;
  cuda::PFN_cuLaunchKernelEx cuLaunchKernelEx = nullptr; ///< optional (CUDA >= 11.8)
  cuda::PFN_cuTensorMapEncodeTiled cuTensorMapEncodeTiled = nullptr; ///< optional (CUDA >= 12.0)
  // Pinned staging for host functions' copies (optional; HostStaging.h).
  cuda::PFN_cuMemAllocHost cuMemAllocHost = nullptr;
  cuda::PFN_cuMemFreeHost cuMemFreeHost = nullptr;
  cuda::PFN_cuMemcpyHtoDAsync cuMemcpyHtoDAsync = nullptr;
  cuda::PFN_cuMemcpyDtoHAsync cuMemcpyDtoHAsync = nullptr;
  // Optional (issue 19, runtime/Devices.h): null when the driver lacks them.
  cuda::PFN_cuDeviceCanAccessPeer cuDeviceCanAccessPeer = nullptr;
  cuda::PFN_cuMemcpyPeer cuMemcpyPeer = nullptr;

private:
  CudaDriver() = default;
  void *handle_ = nullptr;
  int driverVersion_ = 0;
  std::string libraryPath_;
};

/// The error kind for a CUresult; pure, usable without a driver.
ErrorKind classifyCudaError(cuda::CUresult code);
/// cuda.h's name for the codes CudaApi.h declares, else "CUDA error <n>".
std::string cudaErrorNameFallback(cuda::CUresult code);
/// "13.0" for 13000.
std::string formatCudaVersion(int version);

} // namespace kina::runtime
