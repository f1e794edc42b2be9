//===- Device.h - A CUDA device, its modules, kernels and memory -*- C++ -*-===//
//
// The objects `kina run` needs to execute a compiled kernel:
//   Device::open(ordinal)          primary context of one GPU + DeviceInfo
//   Module::load(device, image)    a cubin (or PTX) image, with kernels in it
//   Module::kernel(symbol)         a Kernel handle (launch it with Launch.h)
//   DeviceBuffer::alloc(device, n) device memory, freed by the destructor
//   Stream::create(device)         a non-blocking stream
// Every object keeps the device's context alive through a shared pointer, so
// destruction order does not matter. Errors name the kernel or the file.
//
// DeviceInfo is plain data; the launch guard takes it, so guard tests build
// one by hand and need no GPU.
//
// Thread safety: objects are not synchronised; use each from one thread at a
// time. Every operation makes the device's context current on the calling
// thread first.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/CudaApi.h"
#include "runtime/RuntimeError.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace kina::runtime {

class CudaDriver;

/// What the runtime knows about a device. All sizes are in bytes.
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int ccMajor = 0;
  int ccMinor = 0;
  int smCount = 0;
  int driverVersion = 0; ///< e.g. 13000 for CUDA 13.0
  std::size_t totalMemory = 0;
  int maxThreadsPerBlock = 1024;
  int maxBlockDim[3] = {1024, 1024, 64};
  int64_t maxGridDim[3] = {2147483647, 65535, 65535};
  int maxSharedPerBlock = 48 * 1024;       ///< without opt-in
  int maxSharedPerBlockOptin = 48 * 1024;  ///< with cuFuncSetAttribute opt-in
  int maxSharedPerMultiprocessor = 0;
  int clockRateKHz = 0;
  int l2CacheBytes = 0;

  /// "sm_90" for compute capability 9.0 (the non-arch-specific target name).
  std::string archName() const;
  /// One line: "NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB, driver CUDA 13.0)".
  std::string summary() const;
};

/// The primary context of one device, shared by every object made from it.
struct DeviceContext {
  const CudaDriver *api = nullptr;
  cuda::CUdevice device = 0;
  cuda::CUcontext context = nullptr;
  DeviceInfo info;

  DeviceContext() = default;
  DeviceContext(const DeviceContext &) = delete;
  DeviceContext &operator=(const DeviceContext &) = delete;
  ~DeviceContext();
  /// cuCtxSetCurrent on the calling thread.
  Status makeCurrent() const;
};
using DeviceContextRef = std::shared_ptr<DeviceContext>;

class Device {
public:
  /// Opens device `ordinal` through the process-wide driver. No libcuda, no
  /// GPU, or an ordinal beyond the device count gives ErrorKind::NoDevice
  /// with the reason.
  static Result<Device> open(int ordinal = 0);
  /// Same, through an explicit driver table (tests).
  static Result<Device> open(const CudaDriver &driver, int ordinal);
  /// Number of devices, or NoDevice.
  static Result<int> count();

  const DeviceInfo &info() const { return ctx_->info; }
  const DeviceContextRef &context() const { return ctx_; }
  const CudaDriver &api() const { return *ctx_->api; }

  /// Waits for all work; `what` names the kernel or step in the error, since
  /// faults of asynchronous launches surface here.
  Status synchronize(const std::string &what) const;
  /// Free and total device memory.
  Result<std::pair<std::size_t, std::size_t>> memoryInfo() const;

private:
  explicit Device(DeviceContextRef ctx) : ctx_(std::move(ctx)) {}
  DeviceContextRef ctx_;
};

/// Device memory, freed on destruction. Move-only.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  /// Allocates `bytes` (0 gives a null buffer). Out of memory names `what`,
  /// the size and the free memory.
  static Result<DeviceBuffer> alloc(const Device &device, std::size_t bytes,
                                    const std::string &what = "buffer");
  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer();

  cuda::CUdeviceptr devicePtr() const { return ptr_; }
  std::size_t size() const { return bytes_; }

  /// Copies host bytes into the buffer; `host.size()` must equal size().
  Status copyFromHost(std::span<const std::uint8_t> host);
  /// Copies the buffer into host memory; `host.size()` must equal size().
  Status copyToHost(std::span<std::uint8_t> host) const;
  /// Sets every byte to `value`.
  Status fill(std::uint8_t value);

private:
  void release();
  DeviceContextRef ctx_;
  cuda::CUdeviceptr ptr_ = 0;
  std::size_t bytes_ = 0;
  std::string what_;
};

/// A non-blocking stream. Move-only.
class Stream {
public:
  static Result<Stream> create(const Device &device);
  Stream(Stream &&other) noexcept;
  Stream &operator=(Stream &&other) noexcept;
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  ~Stream();

  cuda::CUstream handle() const { return stream_; }
  Status synchronize(const std::string &what) const;

private:
  Stream() = default;
  DeviceContextRef ctx_;
  cuda::CUstream stream_ = nullptr;
};

class Module;

/// A kernel entry point inside a loaded Module; keeps the module alive.
class Kernel {
public:
  const std::string &name() const { return name_; }
  cuda::CUfunction handle() const { return fn_; }
  const DeviceContextRef &context() const { return ctx_; }

  /// Attributes the driver reports for the loaded code.
  struct Attributes {
    int numRegs = 0;
    int staticSharedBytes = 0;
    int localBytes = 0;
    int maxThreadsPerBlock = 0;
  };
  Result<Attributes> attributes() const;
  /// Raises the dynamic shared memory limit (needed above 48 KiB). Calls
  /// the driver only when `bytes` exceeds what this handle already set.
  Status setMaxDynamicSharedBytes(int bytes) const;

private:
  friend class Module;
  DeviceContextRef ctx_;
  std::shared_ptr<void> module_; ///< keeps the CUmodule loaded
  cuda::CUfunction fn_ = nullptr;
  std::string name_;
  mutable int dynamicSharedLimit_ = 48 * 1024;
};

/// A loaded cubin or PTX image (PTX is JIT-compiled by the driver).
class Module {
public:
  /// Loads `image`. `label` (usually the cubin path or the kernel name) is
  /// named in errors: driver too old, no binary for this GPU, invalid image.
  static Result<Module> load(const Device &device, std::span<const std::uint8_t> image,
                             const std::string &label);
  /// Reads `path` and loads it.
  static Result<Module> loadFile(const Device &device, const std::string &path);

  /// Looks up an entry point; KernelNotFound names the symbol and the module.
  Result<Kernel> kernel(const std::string &symbol) const;
  const std::string &label() const { return label_; }

private:
  Module() = default;
  DeviceContextRef ctx_;
  std::shared_ptr<void> module_;
  std::string label_;
};

/// Reads a whole file (cubins, launch metadata).
Result<std::string> readFileBytes(const std::string &path);

} // namespace kina::runtime
