//===- DeviceTest.cpp - The no-device path and CUDA error classification --===//
//
// On a machine without libcuda.so.1 (CI, this repository's dev machines)
// opening a device must give ErrorKind::NoDevice with the reason. On a GPU
// machine those assertions are skipped (GTEST_SKIP), never passed.
//
//===----------------------------------------------------------------------===//
#include "runtime/CudaDriver.h"
#include "runtime/Device.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

using namespace kina::runtime;

static bool libcudaPresent() {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  return h != nullptr; // deliberately not closed: the driver dislikes unloading
}

TEST(Device, OpenReportsNoDeviceWithoutLibcuda) {
  if (libcudaPresent())
    GTEST_SKIP() << "libcuda.so.1 is present: this test covers machines without a GPU driver";
  auto dev = Device::open(0);
  ASSERT_FALSE(dev);
  EXPECT_EQ(dev.error().kind, ErrorKind::NoDevice);
  EXPECT_TRUE(dev.error().isNoDevice());
  EXPECT_NE(dev.error().message.find("libcuda.so.1"), std::string::npos) << dev.error().message;
  EXPECT_EQ(dev.error().diagId(), kina::DiagId::NoCudaDevice);
  auto n = Device::count();
  ASSERT_FALSE(n);
  EXPECT_EQ(n.error().kind, ErrorKind::NoDevice);
}

TEST(Device, AMissingLibraryIsNoDeviceEvenWithAGpu) {
  auto drv = CudaDriver::load("/nonexistent/libcuda.so.1");
  ASSERT_FALSE(drv);
  EXPECT_EQ(drv.error().kind, ErrorKind::NoDevice);
  EXPECT_NE(drv.error().message.find("cannot load /nonexistent/libcuda.so.1"), std::string::npos);
}

TEST(Device, ALibraryWithoutTheDriverApiIsRefused) {
  // libm is a real shared library that lacks every cu* symbol.
  auto drv = CudaDriver::load("libm.so.6");
  ASSERT_FALSE(drv);
  EXPECT_EQ(drv.error().kind, ErrorKind::DriverTooOld);
  EXPECT_NE(drv.error().message.find("cuInit"), std::string::npos);
}

TEST(Device, OpensARealDeviceWhenPresent) {
  if (!libcudaPresent())
    GTEST_SKIP() << "no libcuda.so.1 on this machine";
  auto dev = Device::open(0);
  if (!dev && dev.error().isNoDevice())
    GTEST_SKIP() << "no CUDA device: " << dev.error().message;
  ASSERT_TRUE(dev) << dev.error().message;
  EXPECT_GT(dev->info().ccMajor, 0);
  EXPECT_GT(dev->info().smCount, 0);
  EXPECT_FALSE(dev->info().name.empty());
}

TEST(CudaErrors, ClassifiedByKind) {
  using namespace kina::runtime::cuda;
  EXPECT_EQ(classifyCudaError(CUDA_ERROR_NO_DEVICE), ErrorKind::NoDevice);
  EXPECT_EQ(classifyCudaError(CUDA_ERROR_STUB_LIBRARY), ErrorKind::NoDevice);
  EXPECT_EQ(classifyCudaError(CUDA_ERROR_UNSUPPORTED_PTX_VERSION), ErrorKind::DriverTooOld);
  EXPECT_EQ(classifyCudaError(CUDA_ERROR_NO_BINARY_FOR_GPU), ErrorKind::NoBinaryForDevice);
  EXPECT_EQ(classifyCudaError(CUDA_ERROR_OUT_OF_MEMORY), ErrorKind::OutOfMemory);
  EXPECT_EQ(classifyCudaError(CUDA_ERROR_ILLEGAL_ADDRESS), ErrorKind::LaunchFailed);
  EXPECT_EQ(classifyCudaError(CUDA_ERROR_LAUNCH_FAILED), ErrorKind::LaunchFailed);
  EXPECT_EQ(classifyCudaError(CUDA_ERROR_INVALID_VALUE), ErrorKind::Cuda);
  EXPECT_EQ(cudaErrorNameFallback(CUDA_ERROR_MISALIGNED_ADDRESS), "CUDA_ERROR_MISALIGNED_ADDRESS");
  EXPECT_EQ(cudaErrorNameFallback(12345), "CUDA error 12345");
  EXPECT_EQ(formatCudaVersion(13000), "13.0");
  EXPECT_EQ(formatCudaVersion(12080), "12.8");
}

TEST(CudaErrors, EveryKindHasARuntimeCatalogueEntry) {
  for (ErrorKind k :
       {ErrorKind::NoDevice, ErrorKind::DriverTooOld, ErrorKind::NoBinaryForDevice,
        ErrorKind::OutOfMemory, ErrorKind::LaunchFailed, ErrorKind::RequiresFailed,
        ErrorKind::TargetMismatch, ErrorKind::ResourceLimit, ErrorKind::InvalidDims,
        ErrorKind::InvalidMetadata, ErrorKind::InvalidNpy, ErrorKind::KernelNotFound,
        ErrorKind::Io, ErrorKind::Cuda, ErrorKind::InvalidArgument}) {
    EXPECT_NE(errorKindName(k), "unknown");
    EXPECT_GE(int(diagIdFor(k)), int(kina::DiagId::NoCudaDevice));
  }
}
