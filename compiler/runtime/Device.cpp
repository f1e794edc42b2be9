//===- Device.cpp - Devices, modules, kernels, buffers, streams -----------===//
//
// Thin RAII wrappers over the driver calls of CudaDriver, turning each failed
// CUresult into a RuntimeError that names what was being done.
//
//===----------------------------------------------------------------------===//
#include "runtime/Device.h"
#include "runtime/CudaDriver.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

namespace kina::runtime {

using namespace cuda;

std::string DeviceInfo::archName() const {
  return "sm_" + std::to_string(ccMajor) + std::to_string(ccMinor);
}

std::string DeviceInfo::summary() const {
  char mem[32];
  std::snprintf(mem, sizeof mem, "%.1f GiB", double(totalMemory) / (1024.0 * 1024 * 1024));
  return name + " (" + archName() + ", " + std::to_string(smCount) + " SMs, " + mem +
         ", driver CUDA " + formatCudaVersion(driverVersion) + ")";
}

DeviceContext::~DeviceContext() {
  if (api && context)
    api->cuDevicePrimaryCtxRelease(device);
}

Status DeviceContext::makeCurrent() const {
  CUresult rc = api->cuCtxSetCurrent(context);
  if (rc != CUDA_SUCCESS)
    return api->error(rc, "cuCtxSetCurrent on device " + std::to_string(info.ordinal));
  return {};
}

Result<int> Device::count() {
  auto drv = CudaDriver::shared();
  if (!drv)
    return drv.takeError();
  int n = 0;
  CUresult rc = (*drv)->cuDeviceGetCount(&n);
  if (rc != CUDA_SUCCESS)
    return (*drv)->error(rc, "cuDeviceGetCount");
  return n;
}

Result<Device> Device::open(int ordinal) {
  auto drv = CudaDriver::shared();
  if (!drv)
    return drv.takeError();
  return open(**drv, ordinal);
}

Result<Device> Device::open(const CudaDriver &api, int ordinal) {
  int n = 0;
  CUresult rc = api.cuDeviceGetCount(&n);
  if (rc != CUDA_SUCCESS)
    return api.error(rc, "cuDeviceGetCount");
  if (n == 0)
    return makeError(ErrorKind::NoDevice, "the driver reports no CUDA devices");
  if (ordinal < 0 || ordinal >= n)
    return makeError(ErrorKind::NoDevice, "device " + std::to_string(ordinal) +
                                              " does not exist (" + std::to_string(n) +
                                              " device(s) present)");
  auto ctx = std::make_shared<DeviceContext>();
  ctx->api = &api;
  rc = api.cuDeviceGet(&ctx->device, ordinal);
  if (rc != CUDA_SUCCESS)
    return api.error(rc, "cuDeviceGet(" + std::to_string(ordinal) + ")");

  DeviceInfo &info = ctx->info;
  info.ordinal = ordinal;
  info.driverVersion = api.driverVersion();
  char name[256] = {0};
  rc = api.cuDeviceGetName(name, sizeof name - 1, ctx->device);
  if (rc != CUDA_SUCCESS)
    return api.error(rc, "cuDeviceGetName");
  info.name = name;
  rc = api.cuDeviceTotalMem(&info.totalMemory, ctx->device);
  if (rc != CUDA_SUCCESS)
    return api.error(rc, "cuDeviceTotalMem");

  struct Query {
    CUdevice_attribute attr;
    int *out;
    const char *what;
  };
  int gridDims[3] = {0, 0, 0};
  const Query queries[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &info.ccMajor, "compute capability major"},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &info.ccMinor, "compute capability minor"},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &info.smCount, "multiprocessor count"},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &info.maxThreadsPerBlock, "max threads"},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &info.maxBlockDim[0], "max block x"},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, &info.maxBlockDim[1], "max block y"},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, &info.maxBlockDim[2], "max block z"},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &gridDims[0], "max grid x"},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &gridDims[1], "max grid y"},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &gridDims[2], "max grid z"},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, &info.maxSharedPerBlock, "max smem"},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &info.maxSharedPerBlockOptin,
       "max opt-in smem"},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
       &info.maxSharedPerMultiprocessor, "max smem per SM"},
      {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, &info.clockRateKHz, "clock rate"},
      {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &info.l2CacheBytes, "L2 size"},
  };
  for (const Query &q : queries) {
    rc = api.cuDeviceGetAttribute(q.out, q.attr, ctx->device);
    if (rc != CUDA_SUCCESS)
      return api.error(rc, std::string("cuDeviceGetAttribute(") + q.what + ")");
  }
  for (int i = 0; i < 3; ++i)
    info.maxGridDim[i] = gridDims[i];

  rc = api.cuDevicePrimaryCtxRetain(&ctx->context, ctx->device);
  if (rc != CUDA_SUCCESS) {
    ctx->context = nullptr;
    return api.error(rc, "cuDevicePrimaryCtxRetain on " + info.name);
  }
  if (Status s = ctx->makeCurrent(); !s)
    return s.takeError();
  return Device(std::move(ctx));
}

Status Device::synchronize(const std::string &what) const {
  if (Status s = ctx_->makeCurrent(); !s)
    return s;
  CUresult rc = api().cuCtxSynchronize();
  if (rc != CUDA_SUCCESS)
    return api().error(rc, what);
  return {};
}

Result<std::pair<std::size_t, std::size_t>> Device::memoryInfo() const {
  if (Status s = ctx_->makeCurrent(); !s)
    return s.takeError();
  std::size_t freeBytes = 0, totalBytes = 0;
  CUresult rc = api().cuMemGetInfo(&freeBytes, &totalBytes);
  if (rc != CUDA_SUCCESS)
    return api().error(rc, "cuMemGetInfo");
  return std::make_pair(freeBytes, totalBytes);
}

// ---- DeviceBuffer ----

static std::string formatBytes(std::size_t bytes) {
  char buf[64];
  if (bytes >= (std::size_t(1) << 30))
    std::snprintf(buf, sizeof buf, "%.2f GiB", double(bytes) / double(1ull << 30));
  else if (bytes >= (std::size_t(1) << 20))
    std::snprintf(buf, sizeof buf, "%.2f MiB", double(bytes) / double(1ull << 20));
  else
    std::snprintf(buf, sizeof buf, "%zu bytes", bytes);
  return buf;
}

Result<DeviceBuffer> DeviceBuffer::alloc(const Device &device, std::size_t bytes,
                                         const std::string &what) {
  DeviceBuffer buf;
  buf.ctx_ = device.context();
  buf.what_ = what;
  if (bytes == 0)
    return buf;
  if (Status s = buf.ctx_->makeCurrent(); !s)
    return s.takeError();
  CUresult rc = device.api().cuMemAlloc(&buf.ptr_, bytes);
  if (rc != CUDA_SUCCESS) {
    buf.ptr_ = 0;
    RuntimeError e = device.api().error(rc, "allocating " + formatBytes(bytes) + " for " + what);
    if (e.kind == ErrorKind::OutOfMemory) {
      if (auto mem = device.memoryInfo())
        e.message += "; " + formatBytes(mem->first) + " free of " + formatBytes(mem->second);
    }
    return e;
  }
  buf.bytes_ = bytes;
  return buf;
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&o) noexcept
    : ctx_(std::move(o.ctx_)), ptr_(o.ptr_), bytes_(o.bytes_), what_(std::move(o.what_)) {
  o.ptr_ = 0;
  o.bytes_ = 0;
}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&o) noexcept {
  if (this != &o) {
    release();
    ctx_ = std::move(o.ctx_);
    ptr_ = o.ptr_;
    bytes_ = o.bytes_;
    what_ = std::move(o.what_);
    o.ptr_ = 0;
    o.bytes_ = 0;
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { release(); }

void DeviceBuffer::release() {
  if (ctx_ && ptr_) {
    (void)ctx_->makeCurrent();
    ctx_->api->cuMemFree(ptr_);
  }
  ptr_ = 0;
  bytes_ = 0;
}

Status DeviceBuffer::copyFromHost(std::span<const std::uint8_t> host) {
  if (host.size() != bytes_)
    return makeError(ErrorKind::InvalidArgument,
                     "copy into " + what_ + ": host data has " + std::to_string(host.size()) +
                         " bytes, the device buffer " + std::to_string(bytes_));
  if (bytes_ == 0)
    return {};
  if (Status s = ctx_->makeCurrent(); !s)
    return s;
  CUresult rc = ctx_->api->cuMemcpyHtoD(ptr_, host.data(), bytes_);
  if (rc != CUDA_SUCCESS)
    return ctx_->api->error(rc, "copying " + what_ + " to the device");
  return {};
}

Status DeviceBuffer::copyToHost(std::span<std::uint8_t> host) const {
  if (host.size() != bytes_)
    return makeError(ErrorKind::InvalidArgument,
                     "copy from " + what_ + ": host space has " + std::to_string(host.size()) +
                         " bytes, the device buffer " + std::to_string(bytes_));
  if (bytes_ == 0)
    return {};
  if (Status s = ctx_->makeCurrent(); !s)
    return s;
  CUresult rc = ctx_->api->cuMemcpyDtoH(host.data(), ptr_, bytes_);
  if (rc != CUDA_SUCCESS)
    return ctx_->api->error(rc, "copying " + what_ + " back to the host");
  return {};
}

Status DeviceBuffer::fill(std::uint8_t value) {
  if (bytes_ == 0)
    return {};
  if (Status s = ctx_->makeCurrent(); !s)
    return s;
  CUresult rc = ctx_->api->cuMemsetD8(ptr_, value, bytes_);
  if (rc != CUDA_SUCCESS)
    return ctx_->api->error(rc, "filling " + what_);
  return {};
}

// ---- Stream ----

Result<Stream> Stream::create(const Device &device) {
  Stream s;
  s.ctx_ = device.context();
  if (Status st = s.ctx_->makeCurrent(); !st)
    return st.takeError();
  CUresult rc = device.api().cuStreamCreate(&s.stream_, CU_STREAM_NON_BLOCKING);
  if (rc != CUDA_SUCCESS) {
    s.stream_ = nullptr;
    return device.api().error(rc, "cuStreamCreate");
  }
  return s;
}

Stream::Stream(Stream &&o) noexcept : ctx_(std::move(o.ctx_)), stream_(o.stream_) {
  o.stream_ = nullptr;
}

Stream &Stream::operator=(Stream &&o) noexcept {
  if (this != &o) {
    if (ctx_ && stream_)
      ctx_->api->cuStreamDestroy(stream_);
    ctx_ = std::move(o.ctx_);
    stream_ = o.stream_;
    o.stream_ = nullptr;
  }
  return *this;
}

Stream::~Stream() {
  if (ctx_ && stream_) {
    (void)ctx_->makeCurrent();
    ctx_->api->cuStreamDestroy(stream_);
  }
}

Status Stream::synchronize(const std::string &what) const {
  if (Status s = ctx_->makeCurrent(); !s)
    return s;
  CUresult rc = ctx_->api->cuStreamSynchronize(stream_);
  if (rc != CUDA_SUCCESS)
    return ctx_->api->error(rc, what);
  return {};
}

// ---- Module and Kernel ----

Result<Module> Module::load(const Device &device, std::span<const std::uint8_t> image,
                            const std::string &label) {
  const CudaDriver &api = device.api();
  if (image.empty())
    return makeError(ErrorKind::InvalidArgument, label + ": empty module image");
  if (Status s = device.context()->makeCurrent(); !s)
    return s.takeError();
  // PTX text must be NUL-terminated; a copy with a trailing NUL is harmless
  // for cubins.
  std::vector<std::uint8_t> copy(image.begin(), image.end());
  copy.push_back(0);
  std::vector<char> errorLog(16 * 1024, 0);
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[] = {errorLog.data(), reinterpret_cast<void *>(errorLog.size() - 1)};
  CUmodule mod = nullptr;
  CUresult rc = api.cuModuleLoadDataEx(&mod, copy.data(), 2, opts, vals);
  if (rc != CUDA_SUCCESS) {
    const DeviceInfo &info = device.info();
    std::string driverCuda = formatCudaVersion(info.driverVersion);
    RuntimeError e = api.error(rc, "loading " + label);
    switch (rc) {
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
      e.message += "; the driver (CUDA " + driverCuda +
                   ") is older than the toolchain that produced the code: use a ptxas no "
                   "newer than CUDA " +
                   driverCuda + " or update the driver";
      break;
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
      e.message += "; it contains no code for " + info.name + " (" + info.archName() +
                   "): rebuild with --target auto";
      break;
    case CUDA_ERROR_INVALID_IMAGE:
      e.message += "; the image is not a cubin this driver (CUDA " + driverCuda +
                   ") understands; it may come from a newer ptxas than the driver";
      break;
    default:
      break;
    }
    if (errorLog[0] != 0)
      e.message += "\nJIT log:\n" + std::string(errorLog.data());
    return e;
  }
  Module m;
  m.ctx_ = device.context();
  m.label_ = label;
  DeviceContextRef ctx = m.ctx_;
  m.module_ = std::shared_ptr<void>(mod, [ctx](void *p) {
    (void)ctx->makeCurrent();
    ctx->api->cuModuleUnload(static_cast<CUmodule>(p));
  });
  return m;
}

Result<std::string> readFileBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return makeError(ErrorKind::Io, "cannot open " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad())
    return makeError(ErrorKind::Io, "cannot read " + path);
  return ss.str();
}

Result<Module> Module::loadFile(const Device &device, const std::string &path) {
  auto bytes = readFileBytes(path);
  if (!bytes)
    return bytes.takeError();
  const std::string &b = *bytes;
  return load(device,
              std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t *>(b.data()),
                                            b.size()),
              path);
}

Result<Kernel> Module::kernel(const std::string &symbol) const {
  if (Status s = ctx_->makeCurrent(); !s)
    return s.takeError();
  CUfunction fn = nullptr;
  CUresult rc =
      ctx_->api->cuModuleGetFunction(&fn, static_cast<CUmodule>(module_.get()), symbol.c_str());
  if (rc != CUDA_SUCCESS) {
    RuntimeError e = ctx_->api->error(rc, "kernel `" + symbol + "` in " + label_);
    if (rc == CUDA_ERROR_NOT_FOUND) {
      e.kind = ErrorKind::KernelNotFound;
      e.message = "kernel `" + symbol + "` not found in " + label_;
    }
    return e;
  }
  Kernel k;
  k.ctx_ = ctx_;
  k.module_ = module_;
  k.fn_ = fn;
  k.name_ = symbol;
  return k;
}

Result<Kernel::Attributes> Kernel::attributes() const {
  if (Status s = ctx_->makeCurrent(); !s)
    return s.takeError();
  Attributes a;
  struct Query {
    CUfunction_attribute attr;
    int *out;
  } queries[] = {{CU_FUNC_ATTRIBUTE_NUM_REGS, &a.numRegs},
                 {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &a.staticSharedBytes},
                 {CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &a.localBytes},
                 {CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &a.maxThreadsPerBlock}};
  for (const Query &q : queries) {
    CUresult rc = ctx_->api->cuFuncGetAttribute(q.out, q.attr, fn_);
    if (rc != CUDA_SUCCESS)
      return ctx_->api->error(rc, "cuFuncGetAttribute of kernel `" + name_ + "`");
  }
  return a;
}

Status Kernel::setMaxDynamicSharedBytes(int bytes) const {
  if (bytes <= dynamicSharedLimit_)
    return {};
  if (Status s = ctx_->makeCurrent(); !s)
    return s;
  CUresult rc =
      ctx_->api->cuFuncSetAttribute(fn_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
  if (rc != CUDA_SUCCESS)
    return ctx_->api->error(rc, "kernel `" + name_ + "`: opting in to " + std::to_string(bytes) +
                                    " bytes of dynamic shared memory");
  dynamicSharedLimit_ = bytes;
  return {};
}

} // namespace kina::runtime
