//===- TensorMap.h - TMA tensor maps for kernel parameters ------*- C++ -*-===//
//
// A Hopper kernel takes one 128-byte CUtensorMap per (tensor, box) that its
// tma_loads read through (launch metadata kind "tensor_map", see
// docs/launch-metadata.md). The runtime builds them with the driver's
// cuTensorMapEncodeTiled (dlopen'ed, CudaDriver.h), after checking the
// driver's documented rules itself so that a bad tensor is a clear K1325
// naming the tensor and the rule rather than CUDA_ERROR_INVALID_VALUE:
//
//   * the global address is 16-byte aligned;
//   * rank 1..5, every extent in 1 .. 2^32;
//   * every stride (bytes, all but the innermost) a multiple of 16 and
//     below 2^40;
//   * every box extent in 1 .. 256 and no larger than the tensor's;
//   * the inner box a multiple of 16 bytes, and for the 128-byte swizzle
//     exactly 128 bytes (what the kernel's shared layout assumes).
//
// Maps are cached per (address, shape, box, dtype, swizzle): a benchmark
// loop encodes each once.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/CudaApi.h"
#include "runtime/DType.h"
#include "runtime/RuntimeError.h"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace kina::runtime {

class CudaDriver;

struct TensorMapRequest {
  std::string tensor; ///< parameter name, for messages
  DType dtype = DType::BF16;
  std::uint64_t address = 0;       ///< device address of element 0
  std::vector<std::int64_t> shape; ///< row-major, outermost first (dense)
  std::vector<std::int64_t> box;   ///< same order as shape
  bool swizzle128B = true;
};

/// The arguments of cuTensorMapEncodeTiled for a request (inner first).
struct TensorMapEncoding {
  cuda::CUtensorMapDataType dataType = cuda::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  unsigned rank = 0;
  std::vector<unsigned long long> globalDim;     ///< rank entries, inner first
  std::vector<unsigned long long> globalStrides; ///< rank - 1 entries, bytes
  std::vector<unsigned> boxDim;                  ///< rank entries, inner first
  std::vector<unsigned> elementStrides;          ///< all 1
  cuda::CUtensorMapSwizzle swizzle = cuda::CU_TENSOR_MAP_SWIZZLE_128B;
  /// The call as text, for K1326 messages.
  std::string describe(const TensorMapRequest &r) const;
};

/// Checks the rules above; TensorMapInvalid (K1325) names the first broken
/// one. Pure: needs no driver.
Result<TensorMapEncoding> checkTensorMap(const TensorMapRequest &request);

/// Encodes tensor maps through the driver and caches them.
class TensorMapCache {
public:
  explicit TensorMapCache(const CudaDriver &api) : api_(api) {}
  /// The map for `request` (checked first, then encoded once).
  Result<cuda::CUtensorMap> get(const TensorMapRequest &request);
  std::size_t encodeCalls() const { return encodeCalls_; }

private:
  using Key =
      std::tuple<std::uint64_t, std::vector<std::int64_t>, std::vector<std::int64_t>, int, bool>;
  const CudaDriver &api_;
  std::map<Key, cuda::CUtensorMap> cache_;
  std::size_t encodeCalls_ = 0;
};

} // namespace kina::runtime
