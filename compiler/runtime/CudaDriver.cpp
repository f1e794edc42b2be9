//===- CudaDriver.cpp - Loading libcuda.so.1 and naming its errors --------===//
//
// Opens the driver library, resolves every entry point the runtime calls,
// runs cuInit, and turns CUresult codes into RuntimeErrors whose kind the
// CLI acts on (NoDevice -> SKIP, the rest -> failure).
//
//===----------------------------------------------------------------------===//
#include "runtime/CudaDriver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace kina::runtime {

using namespace cuda;

ErrorKind classifyCudaError(CUresult code) {
  switch (code) {
  case CUDA_ERROR_NO_DEVICE:
  case CUDA_ERROR_STUB_LIBRARY:
  case CUDA_ERROR_SYSTEM_NOT_READY:
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
  case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
  case CUDA_ERROR_DEVICE_UNAVAILABLE:
    return ErrorKind::NoDevice;
  case CUDA_ERROR_INSUFFICIENT_DRIVER:
  case CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER:
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    return ErrorKind::DriverTooOld;
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
    return ErrorKind::NoBinaryForDevice;
  case CUDA_ERROR_OUT_OF_MEMORY:
    return ErrorKind::OutOfMemory;
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
    return ErrorKind::LaunchFailed;
  case CUDA_ERROR_NOT_FOUND:
    return ErrorKind::KernelNotFound;
  default:
    return ErrorKind::Cuda;
  }
}

std::string cudaErrorNameFallback(CUresult code) {
  switch (code) {
#define KINA_CUDA_NAME(N)                                                                          \
  case N: return #N;
    KINA_CUDA_NAME(CUDA_SUCCESS)
    KINA_CUDA_NAME(CUDA_ERROR_INVALID_VALUE)
    KINA_CUDA_NAME(CUDA_ERROR_OUT_OF_MEMORY)
    KINA_CUDA_NAME(CUDA_ERROR_NOT_INITIALIZED)
    KINA_CUDA_NAME(CUDA_ERROR_DEINITIALIZED)
    KINA_CUDA_NAME(CUDA_ERROR_STUB_LIBRARY)
    KINA_CUDA_NAME(CUDA_ERROR_INSUFFICIENT_DRIVER)
    KINA_CUDA_NAME(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER)
    KINA_CUDA_NAME(CUDA_ERROR_DEVICE_UNAVAILABLE)
    KINA_CUDA_NAME(CUDA_ERROR_NO_DEVICE)
    KINA_CUDA_NAME(CUDA_ERROR_INVALID_DEVICE)
    KINA_CUDA_NAME(CUDA_ERROR_INVALID_IMAGE)
    KINA_CUDA_NAME(CUDA_ERROR_INVALID_CONTEXT)
    KINA_CUDA_NAME(CUDA_ERROR_NO_BINARY_FOR_GPU)
    KINA_CUDA_NAME(CUDA_ERROR_INVALID_PTX)
    KINA_CUDA_NAME(CUDA_ERROR_JIT_COMPILER_NOT_FOUND)
    KINA_CUDA_NAME(CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
    KINA_CUDA_NAME(CUDA_ERROR_NOT_FOUND)
    KINA_CUDA_NAME(CUDA_ERROR_ILLEGAL_ADDRESS)
    KINA_CUDA_NAME(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
    KINA_CUDA_NAME(CUDA_ERROR_LAUNCH_TIMEOUT)
    KINA_CUDA_NAME(CUDA_ERROR_HARDWARE_STACK_ERROR)
    KINA_CUDA_NAME(CUDA_ERROR_ILLEGAL_INSTRUCTION)
    KINA_CUDA_NAME(CUDA_ERROR_MISALIGNED_ADDRESS)
    KINA_CUDA_NAME(CUDA_ERROR_INVALID_ADDRESS_SPACE)
    KINA_CUDA_NAME(CUDA_ERROR_INVALID_PC)
    KINA_CUDA_NAME(CUDA_ERROR_LAUNCH_FAILED)
    KINA_CUDA_NAME(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)
    KINA_CUDA_NAME(CUDA_ERROR_SYSTEM_NOT_READY)
    KINA_CUDA_NAME(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
    KINA_CUDA_NAME(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)
    KINA_CUDA_NAME(CUDA_ERROR_UNKNOWN)
#undef KINA_CUDA_NAME
  }
  return "CUDA error " + std::to_string(code);
}

std::string formatCudaVersion(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string CudaDriver::describe(CUresult code) const {
  const char *name = nullptr;
  const char *text = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(code, &name);
  if (cuGetErrorString)
    cuGetErrorString(code, &text);
  std::string out = name ? std::string(name) : cudaErrorNameFallback(code);
  if (text)
    out += std::string(" (") + text + ")";
  return out;
}

RuntimeError CudaDriver::error(CUresult code, const std::string &what) const {
  return makeError(classifyCudaError(code), what + ": " + describe(code), code);
}

namespace {

template <typename Fn> bool resolve(void *handle, Fn &slot, const char *symbol) {
  slot = reinterpret_cast<Fn>(dlsym(handle, symbol));
  return slot != nullptr;
}

} // namespace

Result<std::unique_ptr<CudaDriver>> CudaDriver::load(const std::string &libraryPath) {
  dlerror();
  void *handle = dlopen(libraryPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    return makeError(ErrorKind::NoDevice, "cannot load " + libraryPath + ": " +
                                              (why ? why : "unknown dlopen error"));
  }
  std::unique_ptr<CudaDriver> d(new CudaDriver());
  d->handle_ = handle;
  d->libraryPath_ = libraryPath;

  std::string missing;
  auto need = [&](auto &slot, const char *symbol) {
    if (!resolve(handle, slot, symbol))
      missing += missing.empty() ? symbol : std::string(", ") + symbol;
  };
  need(d->cuInit, "cuInit");
  need(d->cuDriverGetVersion, "cuDriverGetVersion");
  need(d->cuGetErrorName, "cuGetErrorName");
  need(d->cuGetErrorString, "cuGetErrorString");
  need(d->cuDeviceGetCount, "cuDeviceGetCount");
  need(d->cuDeviceGet, "cuDeviceGet");
  need(d->cuDeviceGetName, "cuDeviceGetName");
  need(d->cuDeviceGetAttribute, "cuDeviceGetAttribute");
  need(d->cuDeviceTotalMem, "cuDeviceTotalMem_v2");
  need(d->cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  need(d->cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  need(d->cuCtxSetCurrent, "cuCtxSetCurrent");
  need(d->cuCtxSynchronize, "cuCtxSynchronize");
  need(d->cuMemGetInfo, "cuMemGetInfo_v2");
  need(d->cuModuleLoadDataEx, "cuModuleLoadDataEx");
  need(d->cuModuleUnload, "cuModuleUnload");
  need(d->cuModuleGetFunction, "cuModuleGetFunction");
  need(d->cuFuncGetAttribute, "cuFuncGetAttribute");
  need(d->cuFuncSetAttribute, "cuFuncSetAttribute");
  need(d->cuMemAlloc, "cuMemAlloc_v2");
  need(d->cuMemFree, "cuMemFree_v2");
  need(d->cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  need(d->cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  need(d->cuMemsetD8, "cuMemsetD8_v2");
  need(d->cuMemsetD8Async, "cuMemsetD8Async");
  need(d->cuStreamCreate, "cuStreamCreate");
  need(d->cuStreamDestroy, "cuStreamDestroy_v2");
  need(d->cuStreamSynchronize, "cuStreamSynchronize");
  need(d->cuEventCreate, "cuEventCreate");
  need(d->cuEventDestroy, "cuEventDestroy_v2");
  need(d->cuEventRecord, "cuEventRecord");
  need(d->cuEventSynchronize, "cuEventSynchronize");
  need(d->cuLaunchKernel, "cuLaunchKernel");
  // cuda.h 12.8+ maps cuEventElapsedTime to _v2; older drivers only have v1.
  if (!resolve(handle, d->cuEventElapsedTime, "cuEventElapsedTime_v2"))
    need(d->cuEventElapsedTime, "cuEventElapsedTime");
  resolve(handle, d->cuLaunchKernelEx, "cuLaunchKernelEx");
  resolve(handle, d->cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled");
  resolve(handle, d->cuMemAllocHost, "cuMemAllocHost_v2");
  resolve(handle, d->cuMemFreeHost, "cuMemFreeHost");
  resolve(handle, d->cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
  resolve(handle, d->cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
  resolve(handle, d->cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer");
  resolve(handle, d->cuMemcpyPeer, "cuMemcpyPeer");

  if (!missing.empty())
    return makeError(ErrorKind::DriverTooOld,
                     libraryPath + " lacks driver entry points Kina needs (" + missing +
                         "); install a CUDA 12 or newer driver");

  CUresult rc = d->cuInit(0);
  // NO_DEVICE, STUB_LIBRARY, SYSTEM_NOT_READY... classify as NoDevice (SKIP);
  // anything else is a broken driver and stays a failure.
  if (rc != CUDA_SUCCESS)
    return d->error(rc, "cuInit");
  rc = d->cuDriverGetVersion(&d->driverVersion_);
  if (rc != CUDA_SUCCESS)
    return d->error(rc, "cuDriverGetVersion");
  return d;
}

Result<const CudaDriver *> CudaDriver::shared() {
  static std::once_flag once;
  static std::unique_ptr<CudaDriver> driver;
  static std::optional<RuntimeError> failure;
  std::call_once(once, [] {
    const char *env = std::getenv("KINA_LIBCUDA");
    std::string path = env && *env ? env : "libcuda.so.1";
    auto loaded = load(path);
    if (loaded)
      driver = loaded.take();
    else
      failure = loaded.takeError();
  });
  if (failure)
    return *failure;
  return static_cast<const CudaDriver *>(driver.get());
}

} // namespace kina::runtime
