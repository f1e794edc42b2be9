//===- CublasLt.h - cuBLASLt, opened with dlopen ---------------*- C++ -*-===//
//
// Pass A may pick cuBLASLt for a GEMM with a bias / ReLU / GELU(tanh)
// epilogue (algebraic/PassA.h). Kina never links it: load() looks, in order,
// at KINA_CUBLASLT (a file: when set, the only place looked at), the
// library path (libcublasLt.so.13, .so.12, .so), CUDA_HOME / CUDA_PATH and
// /usr/local/cuda (lib64, lib), and NVIDIA's nvidia-cublas wheel as PyTorch
// installs it (site-packages/nvidia/cu13/lib, nvidia/cublas/lib under the
// Python prefixes: VIRTUAL_ENV, CONDA_PREFIX, /usr/local, /usr, ~/.local).
// When none loads, the error lists every path tried (K1340).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/CudaApi.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kina::runtime {

/// The epilogues Kina uses (cublasLtEpilogue_t values).
enum class LtEpilogue : uint32_t {
  Default = 1,
  Relu = 2,
  Bias = 4,
  ReluBias = 6,
  Gelu = 32,     ///< tanh-form GELU
  GeluBias = 36, ///< bias, then tanh-form GELU
};

/// Element types cuBLASLt computes here (cudaDataType_t values).
enum class LtType : int { F32 = 0, F16 = 2, BF16 = 14 };

struct CublasLtProblem {
  LtType type = LtType::BF16;
  int64_t M = 0, N = 0, K = 0;
  cuda::CUdeviceptr a = 0; ///< [M, K] row-major
  cuda::CUdeviceptr b = 0; ///< [N, K] row-major when bTransposed, else [K, N]
  bool bTransposed = false;
  cuda::CUdeviceptr bias = 0; ///< [N], with a bias epilogue
  cuda::CUdeviceptr d = 0;    ///< [M, N] row-major
  LtEpilogue epilogue = LtEpilogue::Default;
};

class CublasLt {
public:
  /// Loads the library and creates a handle; the error lists the paths
  /// tried (or the symbol missing).
  static std::unique_ptr<CublasLt> load(std::string &error);
  /// The candidate paths load() tries, in order (for messages and tests).
  static std::vector<std::string> searchPaths();
  ~CublasLt();
  CublasLt(const CublasLt &) = delete;
  CublasLt &operator=(const CublasLt &) = delete;

  const std::string &path() const { return path_; }
  size_t version() const { return version_; }
  /// d = epilogue(a * op(b) [+ bias]), F32 accumulation, on `stream`
  /// (asynchronous). `workspace` of `workspaceBytes` device bytes. Returns
  /// an empty string, or what failed (the status and the problem).
  std::string matmul(const CublasLtProblem &p, cuda::CUdeviceptr workspace, size_t workspaceBytes,
                     cuda::CUstream stream) const;

private:
  CublasLt() = default;
  struct Api;
  std::unique_ptr<Api> api_;
  void *lib_ = nullptr;
  void *handle_ = nullptr;
  std::string path_;
  size_t version_ = 0;
};

} // namespace kina::runtime
