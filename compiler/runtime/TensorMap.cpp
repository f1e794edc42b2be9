//===- TensorMap.cpp - TMA tensor maps for kernel parameters --------------===//
//
// The rules of cuTensorMapEncodeTiled (CUDA driver API, "Tensor Map Object
// Management") checked up front, then the encoding through the driver.
//
//===----------------------------------------------------------------------===//
#include "runtime/TensorMap.h"

#include "runtime/CudaDriver.h"

#include <cstdio>

namespace kina::runtime {

namespace {

Result<TensorMapEncoding> invalid(const TensorMapRequest &r, const std::string &why) {
  return makeError(ErrorKind::TensorMapInvalid,
                   "tensor `" + r.tensor + "` cannot be read through a TMA tensor map: " + why);
}

std::string list(const std::vector<std::int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

} // namespace

std::string TensorMapEncoding::describe(const TensorMapRequest &r) const {
  auto join = [](const auto &v) {
    std::string s = "{";
    for (size_t i = 0; i < v.size(); ++i)
      s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "}";
  };
  char addr[32];
  std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(r.address));
  return "cuTensorMapEncodeTiled(dataType=" + std::to_string(int(dataType)) +
         ", rank=" + std::to_string(rank) + ", globalAddress=" + addr +
         ", globalDim=" + join(globalDim) + ", globalStrides=" + join(globalStrides) +
         ", boxDim=" + join(boxDim) + ", elementStrides=" + join(elementStrides) +
         ", interleave=NONE, swizzle=" +
         (swizzle == cuda::CU_TENSOR_MAP_SWIZZLE_128B ? "128B" : "NONE") +
         ", l2Promotion=L2_256B, oobFill=NONE)";
}

Result<TensorMapEncoding> checkTensorMap(const TensorMapRequest &r) {
  TensorMapEncoding e;
  switch (r.dtype) {
  case DType::BF16:
    e.dataType = cuda::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    break;
  case DType::F16:
    e.dataType = cuda::CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    break;
  case DType::F32:
    e.dataType = cuda::CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    break;
  case DType::U8:
    e.dataType = cuda::CU_TENSOR_MAP_DATA_TYPE_UINT8;
    break;
  default:
    return invalid(r, "element type " + std::string(dtypeName(r.dtype)) +
                          " is not supported (BF16, F16, F32, U8 are)");
  }
  const std::size_t rank = r.shape.size();
  if (rank < 1 || rank > 5)
    return invalid(r, "rank " + std::to_string(rank) + " is outside 1..5");
  if (r.box.size() != rank)
    return invalid(r, "box " + list(r.box) + " has a different rank than shape " + list(r.shape));
  if (r.address % 16 != 0)
    return invalid(r, "its address is not 16-byte aligned");
  const std::uint64_t elem = dtypeSize(r.dtype);
  e.rank = static_cast<unsigned>(rank);
  std::uint64_t stride = elem;
  for (std::size_t i = rank; i-- > 0;) {
    std::int64_t extent = r.shape[i], box = r.box[i];
    if (extent < 1 || extent > (std::int64_t(1) << 32))
      return invalid(r, "extent " + std::to_string(extent) + " of dimension " + std::to_string(i) +
                            " is outside 1..2^32");
    if (box < 1 || box > 256)
      return invalid(r, "box extent " + std::to_string(box) + " of dimension " + std::to_string(i) +
                            " is outside 1..256");
    if (box > extent)
      return invalid(r, "box " + list(r.box) + " is larger than the tensor " + list(r.shape));
    e.globalDim.push_back(static_cast<unsigned long long>(extent));
    e.boxDim.push_back(static_cast<unsigned>(box));
    e.elementStrides.push_back(1);
    if (i + 1 < rank) {
      if (stride % 16 != 0)
        return invalid(r, "the stride of dimension " + std::to_string(i) + " is " +
                              std::to_string(stride) +
                              " bytes, not a multiple of 16 (make the row length a multiple of " +
                              std::to_string(16 / elem) + " elements)");
      if (stride >= (std::uint64_t(1) << 40))
        return invalid(r,
                       "the stride of dimension " + std::to_string(i) + " is 2^40 bytes or more");
      e.globalStrides.push_back(stride);
    }
    stride *= static_cast<std::uint64_t>(extent);
  }
  std::uint64_t innerBytes = static_cast<std::uint64_t>(r.box.back()) * elem;
  if (innerBytes % 16 != 0)
    return invalid(r, "the inner box is " + std::to_string(innerBytes) +
                          " bytes, not a multiple of 16");
  if (r.swizzle128B && innerBytes != 128)
    return invalid(r, "the inner box is " + std::to_string(innerBytes) +
                          " bytes; the 128-byte swizzle needs exactly 128");
  e.swizzle = r.swizzle128B ? cuda::CU_TENSOR_MAP_SWIZZLE_128B : cuda::CU_TENSOR_MAP_SWIZZLE_NONE;
  return e;
}

Result<cuda::CUtensorMap> TensorMapCache::get(const TensorMapRequest &r) {
  Key key{r.address, r.shape, r.box, int(r.dtype), r.swizzle128B};
  if (auto it = cache_.find(key); it != cache_.end())
    return it->second;
  auto enc = checkTensorMap(r);
  if (!enc)
    return enc.takeError();
  if (!api_.cuTensorMapEncodeTiled)
    return makeError(ErrorKind::DriverTooOld,
                     "the CUDA driver has no cuTensorMapEncodeTiled (needs CUDA 12.0 or newer) "
                     "for tensor `" +
                         r.tensor + "`");
  cuda::CUtensorMap map{};
  ++encodeCalls_;
  cuda::CUresult rc = api_.cuTensorMapEncodeTiled(
      &map, enc->dataType, enc->rank, reinterpret_cast<void *>(r.address), enc->globalDim.data(),
      enc->globalStrides.data(), enc->boxDim.data(), enc->elementStrides.data(),
      cuda::CU_TENSOR_MAP_INTERLEAVE_NONE, enc->swizzle, cuda::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      cuda::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (rc != cuda::CUDA_SUCCESS) {
    RuntimeError err = api_.error(rc, enc->describe(r));
    return makeError(ErrorKind::TensorMapEncode, "tensor `" + r.tensor + "`: " + err.message);
  }
  cache_.emplace(key, map);
  return map;
}

} // namespace kina::runtime
