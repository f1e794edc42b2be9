//===- Nccl.h - NCCL, opened with dlopen (issue 19) -------------*- C++ -*-===//
//
// The collectives of host functions on a mesh (all_reduce, all_gather,
// reduce_scatter; algebraic/PassA.h Backend::Collective) run on NCCL, which
// Kina never links. load() looks, in order, at KINA_LIBNCCL (a file: when
// set, the only place looked at), the project's .deps/nccl (scripts/setup.sh
// unpacks the pinned nvidia-nccl-cu13 wheel there; found by walking up from
// the running binary), NVIDIA's wheel under the Python prefixes
// (site-packages/nvidia/nccl/lib), and the library path (libnccl.so.2).
// Every symbol Kina calls must be there; when none loads, the error lists
// every path tried (K1350). ncclGetVersion needs no GPU; ncclCommInitAll
// does, and its failure is an error naming NCCL's reason, never a crash.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/CudaApi.h"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace kina::runtime {

/// ncclDataType_t values Kina uses.
enum class NcclType : int { F16 = 6, F32 = 7, F64 = 8, BF16 = 9 };

/// The NCCL type of a host-function dtype name (`BF16`), or nullopt-like
/// false when NCCL has none Kina uses.
bool ncclTypeOf(const std::string &dtype, NcclType &out);

class Nccl {
public:
  /// The paths load() tries, in order.
  static std::vector<std::string> searchPaths();
  /// Loads NCCL, or null with `error` saying why (every path tried, or the
  /// symbols a library lacks).
  static std::unique_ptr<Nccl> load(std::string &error);
  ~Nccl();
  Nccl(const Nccl &) = delete;
  Nccl &operator=(const Nccl &) = delete;

  const std::string &path() const { return path_; }
  /// ncclGetVersion: 22707 for 2.27.7.
  int version() const { return version_; }
  /// `2.27.7`.
  std::string versionString() const;

  /// One communicator per device of `devices` (ncclCommInitAll), in mesh
  /// order; "" or NCCL's error (no GPU, fewer devices than asked).
  std::string initAll(const std::vector<int> &devices, std::vector<void *> &comms) const;
  void destroy(std::vector<void *> &comms) const;
  /// In-place sum over the communicators' devices, one call per device in
  /// a group (ncclGroupStart/End). `buffers[i]` is device i's, `count`
  /// elements each; `streams[i]` its stream.
  std::string allReduce(const std::vector<cuda::CUdeviceptr> &buffers, size_t count, NcclType type,
                        const std::vector<void *> &comms,
                        const std::vector<cuda::CUstream> &streams) const;
  /// Each device's `count` elements concatenated into every device's `recv`.
  std::string allGather(const std::vector<cuda::CUdeviceptr> &send,
                        const std::vector<cuda::CUdeviceptr> &recv, size_t count, NcclType type,
                        const std::vector<void *> &comms,
                        const std::vector<cuda::CUstream> &streams) const;
  /// The sum, device i keeping block i of `count` elements.
  std::string reduceScatter(const std::vector<cuda::CUdeviceptr> &send,
                            const std::vector<cuda::CUdeviceptr> &recv, size_t count, NcclType type,
                            const std::vector<void *> &comms,
                            const std::vector<cuda::CUstream> &streams) const;

private:
  Nccl() = default;
  std::string result(int status, const char *what) const;
  struct Api;
  void *lib_ = nullptr;
  std::string path_;
  int version_ = 0;
  std::unique_ptr<Api> api_;
};

} // namespace kina::runtime
