//===- RuntimeError.cpp - Error kinds and their catalogue codes -----------===//
//
// Maps each runtime error kind to its name and its K13xx catalogue entry.
//
//===----------------------------------------------------------------------===//
#include "runtime/RuntimeError.h"

namespace kina::runtime {

std::string_view errorKindName(ErrorKind kind) {
  switch (kind) {
  case ErrorKind::NoDevice: return "no-device";
  case ErrorKind::DriverTooOld: return "driver-too-old";
  case ErrorKind::NoBinaryForDevice: return "no-binary-for-device";
  case ErrorKind::OutOfMemory: return "out-of-memory";
  case ErrorKind::LaunchFailed: return "launch-failed";
  case ErrorKind::RequiresFailed: return "requires-failed";
  case ErrorKind::TargetMismatch: return "target-mismatch";
  case ErrorKind::ResourceLimit: return "resource-limit";
  case ErrorKind::InvalidDims: return "invalid-dims";
  case ErrorKind::InvalidMetadata: return "invalid-metadata";
  case ErrorKind::InvalidNpy: return "invalid-npy";
  case ErrorKind::KernelNotFound: return "kernel-not-found";
  case ErrorKind::Io: return "io";
  case ErrorKind::Cuda: return "cuda";
  case ErrorKind::InvalidArgument: return "invalid-argument";
  case ErrorKind::TensorMapInvalid: return "tensor-map-invalid";
  case ErrorKind::TensorMapEncode: return "tensor-map-encode";
  case ErrorKind::ClusterInvalid: return "cluster-invalid";
  }
  return "unknown";
}

DiagId diagIdFor(ErrorKind kind) {
  switch (kind) {
  case ErrorKind::NoDevice: return DiagId::NoCudaDevice;
  case ErrorKind::DriverTooOld: return DiagId::CudaDriverTooOld;
  case ErrorKind::NoBinaryForDevice: return DiagId::CubinNotForDevice;
  case ErrorKind::TargetMismatch: return DiagId::CubinNotForDevice;
  case ErrorKind::OutOfMemory: return DiagId::DeviceOutOfMemory;
  case ErrorKind::LaunchFailed: return DiagId::KernelLaunchFailed;
  case ErrorKind::RequiresFailed: return DiagId::LaunchRequiresFailed;
  case ErrorKind::ResourceLimit: return DiagId::LaunchLimitExceeded;
  case ErrorKind::InvalidDims: return DiagId::InvalidLaunchDims;
  case ErrorKind::InvalidMetadata: return DiagId::InvalidLaunchMetadata;
  case ErrorKind::InvalidNpy: return DiagId::InvalidNpyInput;
  case ErrorKind::KernelNotFound: return DiagId::KernelSymbolNotFound;
  case ErrorKind::Io: return DiagId::RuntimeIoError;
  case ErrorKind::Cuda: return DiagId::CudaDriverError;
  case ErrorKind::InvalidArgument: return DiagId::CudaDriverError;
  case ErrorKind::TensorMapInvalid: return DiagId::TensorMapInvalid;
  case ErrorKind::TensorMapEncode: return DiagId::TensorMapEncodeFailed;
  case ErrorKind::ClusterInvalid: return DiagId::ClusterLaunchInvalid;
  }
  return DiagId::CudaDriverError;
}

} // namespace kina::runtime
