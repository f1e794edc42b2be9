//===- Launch.cpp - cuLaunchKernelEx with named errors --------------------===//
//
// Packs the launch configuration, opts in to large dynamic shared memory and
// reports failures with the kernel name, grid, block and CUDA error.
//
//===----------------------------------------------------------------------===//
#include "runtime/Launch.h"
#include "runtime/CudaDriver.h"

namespace kina::runtime {

using namespace cuda;

std::string Dim3::str() const {
  std::string s = "[";
  s += std::to_string(x);
  s += ", ";
  s += std::to_string(y);
  s += ", ";
  s += std::to_string(z);
  s += "]";
  return s;
}

KernelArgs &KernelArgs::tensorMap(const cuda::CUtensorMap &map) {
  maps_.emplace_back(slots_.size(), std::make_shared<cuda::CUtensorMap>(map));
  slots_.push_back(0); // placeholder: pointers() hands out the map itself
  return *this;
}

std::vector<void *> KernelArgs::pointers() const {
  std::vector<void *> out;
  out.reserve(slots_.size());
  for (const std::uint64_t &slot : slots_)
    out.push_back(const_cast<std::uint64_t *>(&slot));
  for (const auto &[index, map] : maps_)
    out[index] = map.get();
  return out;
}

Status launch(const Kernel &kernel, const LaunchConfig &config, const KernelArgs &args,
              const Stream *stream) {
  const DeviceContextRef &ctx = kernel.context();
  const CudaDriver &api = *ctx->api;
  std::string what = "launching kernel `" + kernel.name() + "` with grid " + config.grid.str() +
                     ", block " + config.block.str() + ", " +
                     std::to_string(config.dynamicSharedBytes) + " bytes dynamic shared memory";
  if (config.grid.volume() == 0 || config.block.volume() == 0)
    return makeError(ErrorKind::InvalidArgument, what + ": empty grid or block");
  if (Status s = ctx->makeCurrent(); !s)
    return s;
  constexpr std::uint32_t kDefaultDynamicLimit = 48 * 1024;
  if (config.dynamicSharedBytes > kDefaultDynamicLimit) {
    if (Status s = kernel.setMaxDynamicSharedBytes(int(config.dynamicSharedBytes)); !s)
      return s;
  }
  std::vector<void *> params = args.pointers();
  CUstream hStream = stream ? stream->handle() : nullptr;
  bool wantsCluster = config.cluster.volume() > 1;
  CUresult rc;
  if (api.cuLaunchKernelEx) {
    CUlaunchAttribute attr{};
    CUlaunchConfig cfg{};
    cfg.gridDimX = config.grid.x;
    cfg.gridDimY = config.grid.y;
    cfg.gridDimZ = config.grid.z;
    cfg.blockDimX = config.block.x;
    cfg.blockDimY = config.block.y;
    cfg.blockDimZ = config.block.z;
    cfg.sharedMemBytes = config.dynamicSharedBytes;
    cfg.hStream = hStream;
    if (wantsCluster) {
      attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attr.value.clusterDim.x = config.cluster.x;
      attr.value.clusterDim.y = config.cluster.y;
      attr.value.clusterDim.z = config.cluster.z;
      cfg.attrs = &attr;
      cfg.numAttrs = 1;
    }
    rc = api.cuLaunchKernelEx(&cfg, kernel.handle(), params.data(), nullptr);
  } else {
    if (wantsCluster)
      return makeError(ErrorKind::DriverTooOld,
                       what + ": thread-block clusters need cuLaunchKernelEx (CUDA 11.8+)");
    rc = api.cuLaunchKernel(kernel.handle(), config.grid.x, config.grid.y, config.grid.z,
                            config.block.x, config.block.y, config.block.z,
                            config.dynamicSharedBytes, hStream, params.data(), nullptr);
  }
  if (rc != CUDA_SUCCESS) {
    RuntimeError e = api.error(rc, what);
    // A rejected launch is a launch failure whatever the code (e.g. INVALID_VALUE
    // for a block larger than the device allows).
    if (e.kind == ErrorKind::Cuda)
      e.kind = ErrorKind::LaunchFailed;
    return e;
  }
  return {};
}

} // namespace kina::runtime
