//===- CudaApi.h - The subset of the CUDA driver API Kina uses --*- C++ -*-===//
//
// Kina never includes cuda.h and never links libcuda: the driver is opened
// with dlopen at run time (CudaDriver.h). This header declares the handful of
// types, constants and function-pointer signatures the runtime calls, with
// the values and layouts of the CUDA 12/13 cuda.h. Only the runtime includes
// it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>

namespace kina::runtime::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;

// CUresult values (cuda.h `cudaError_enum`).
enum : CUresult {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_INSUFFICIENT_DRIVER = 35,
  CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER = 36,
  CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_LAUNCH_TIMEOUT = 702,
  CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
  CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
  CUDA_ERROR_MISALIGNED_ADDRESS = 716,
  CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
  CUDA_ERROR_INVALID_PC = 718,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
  CUDA_ERROR_SYSTEM_NOT_READY = 802,
  CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
  CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
  CUDA_ERROR_UNKNOWN = 999,
};

// CUdevice_attribute values used by DeviceInfo.
enum CUdevice_attribute : int {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

// CUfunction_attribute values.
enum CUfunction_attribute : int {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};

// CUjit_option values for the error log of cuModuleLoadDataEx.
enum CUjit_option : int {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

inline constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
inline constexpr unsigned CU_EVENT_DEFAULT = 0x0;

// cuLaunchKernelEx configuration (cuda.h CUlaunchAttribute_st / CUlaunchConfig_st).
enum CUlaunchAttributeID : int {
  CU_LAUNCH_ATTRIBUTE_IGNORE = 0,
  CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
};
union CUlaunchAttributeValue {
  char pad[64];
  struct {
    unsigned x, y, z;
  } clusterDim;
};
struct CUlaunchAttribute {
  CUlaunchAttributeID id;
  char pad[8 - sizeof(CUlaunchAttributeID)];
  CUlaunchAttributeValue value;
};
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
};
static_assert(sizeof(CUlaunchAttribute) == 72, "layout of cuda.h CUlaunchAttribute");

// TMA tensor maps (cuda.h CUtensorMap and the cuTensorMapEncodeTiled enums).
struct alignas(64) CUtensorMap {
  unsigned long long opaque[16];
};
static_assert(sizeof(CUtensorMap) == 128, "layout of cuda.h CUtensorMap");
enum CUtensorMapDataType : int {
  CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0,
  CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6,
  CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7,
  CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9,
};
enum CUtensorMapInterleave : int { CU_TENSOR_MAP_INTERLEAVE_NONE = 0 };
enum CUtensorMapSwizzle : int {
  CU_TENSOR_MAP_SWIZZLE_NONE = 0,
  CU_TENSOR_MAP_SWIZZLE_128B = 3,
};
enum CUtensorMapL2promotion : int {
  CU_TENSOR_MAP_L2_PROMOTION_NONE = 0,
  CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2,
  CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3,
};
enum CUtensorMapFloatOOBfill : int { CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0 };

// Function-pointer types of the entry points CudaDriver resolves.
using PFN_cuInit = CUresult (*)(unsigned);
using PFN_cuDriverGetVersion = CUresult (*)(int *);
using PFN_cuGetErrorName = CUresult (*)(CUresult, const char **);
using PFN_cuGetErrorString = CUresult (*)(CUresult, const char **);
using PFN_cuDeviceGetCount = CUresult (*)(int *);
/// Issue 19 (optional symbols): peer access between devices, peer copies.
using PFN_cuDeviceCanAccessPeer = CUresult (*)(int *, CUdevice, CUdevice);
using PFN_cuMemcpyPeer = CUresult (*)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t);
using PFN_cuDeviceGet = CUresult (*)(CUdevice *, int);
using PFN_cuDeviceGetName = CUresult (*)(char *, int, CUdevice);
using PFN_cuDeviceGetAttribute = CUresult (*)(int *, CUdevice_attribute, CUdevice);
using PFN_cuDeviceTotalMem = CUresult (*)(size_t *, CUdevice);
using PFN_cuDevicePrimaryCtxRetain = CUresult (*)(CUcontext *, CUdevice);
using PFN_cuDevicePrimaryCtxRelease = CUresult (*)(CUdevice);
using PFN_cuCtxSetCurrent = CUresult (*)(CUcontext);
using PFN_cuCtxSynchronize = CUresult (*)();
using PFN_cuMemGetInfo = CUresult (*)(size_t *, size_t *);
using PFN_cuModuleLoadDataEx = CUresult (*)(CUmodule *, const void *, unsigned, CUjit_option *,
                                            void **);
using PFN_cuModuleUnload = CUresult (*)(CUmodule);
using PFN_cuModuleGetFunction = CUresult (*)(CUfunction *, CUmodule, const char *);
using PFN_cuFuncGetAttribute = CUresult (*)(int *, CUfunction_attribute, CUfunction);
using PFN_cuFuncSetAttribute = CUresult (*)(CUfunction, CUfunction_attribute, int);
using PFN_cuMemAlloc = CUresult (*)(CUdeviceptr *, size_t);
using PFN_cuMemFree = CUresult (*)(CUdeviceptr);
using PFN_cuMemcpyHtoD = CUresult (*)(CUdeviceptr, const void *, size_t);
using PFN_cuMemcpyDtoH = CUresult (*)(void *, CUdeviceptr, size_t);
using PFN_cuMemsetD8 = CUresult (*)(CUdeviceptr, unsigned char, size_t);
using PFN_cuMemsetD8Async = CUresult (*)(CUdeviceptr, unsigned char, size_t, CUstream);
using PFN_cuStreamCreate = CUresult (*)(CUstream *, unsigned);
using PFN_cuStreamDestroy = CUresult (*)(CUstream);
using PFN_cuStreamSynchronize = CUresult (*)(CUstream);
using PFN_cuEventCreate = CUresult (*)(CUevent *, unsigned);
using PFN_cuEventDestroy = CUresult (*)(CUevent);
using PFN_cuEventRecord = CUresult (*)(CUevent, CUstream);
using PFN_cuEventSynchronize = CUresult (*)(CUevent);
using PFN_cuEventElapsedTime = CUresult (*)(float *, CUevent, CUevent);
using PFN_cuLaunchKernel = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                                        unsigned, unsigned, unsigned, CUstream, void **, void **);
using PFN_cuLaunchKernelEx = CUresult (*)(const CUlaunchConfig *, CUfunction, void **, void **);
using PFN_cuTensorMapEncodeTiled = CUresult (*)(
    CUtensorMap *, CUtensorMapDataType, unsigned, void *, const unsigned long long *,
    const unsigned long long *, const unsigned *, const unsigned *, CUtensorMapInterleave,
    CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
// Pinned host memory and asynchronous copies (host: HostStaging.h).
using PFN_cuMemAllocHost = CUresult (*)(void **, size_t);
using PFN_cuMemFreeHost = CUresult (*)(void *);
using PFN_cuMemcpyHtoDAsync = CUresult (*)(CUdeviceptr, const void *, size_t, CUstream);
using PFN_cuMemcpyDtoHAsync = CUresult (*)(void *, CUdeviceptr, size_t, CUstream);

} // namespace kina::runtime::cuda
