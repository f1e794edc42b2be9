//===- LaunchGuard.h - Checking a launch before it happens ------*- C++ -*-===//
//
// The launch guard turns launch metadata plus concrete dims into a LaunchPlan
// (grid, block, shared memory, every parameter's shape and size), refusing
// launches that would be wrong, with a message that names the reason:
//   - a dim missing, unknown, or not positive                  (InvalidDims)
//   - a `requires` fact false for the dims, e.g.
//     "requires (M mod 128 = 0) fails: M = 1000, 1000 mod 128 = 104"
//                                                           (RequiresFailed)
//   - a cubin target the device cannot run (sm_90a on sm_80) (TargetMismatch)
//   - grid, block or shared memory beyond the device's limits (ResourceLimit)
// Nothing is loaded or launched before it passes. checkDims needs no device,
// so the CLI refuses bad dims even on a machine without a GPU; the device
// checks need only a DeviceInfo, which tests build by hand.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/Device.h"
#include "runtime/LaunchSpec.h"
#include "runtime/TensorMap.h"

#include <map>
#include <optional>
#include <string_view>

namespace kina::runtime {

/// One parameter with its values for the launch; self-contained (copies
/// what it needs from the ParamSpec).
struct ParamPlan {
  std::string name;
  ParamKind kind = ParamKind::Tensor;
  DType dtype = DType::F32;          ///< tensors
  ParamRole role = ParamRole::Input; ///< tensors
  std::vector<std::int64_t> shape;   ///< tensors
  std::size_t bytes = 0;             ///< tensors
  int intBits = 32;                  ///< dims
  std::int64_t value = 0;            ///< dims
  std::string scalarType;            ///< scalars: "f32", ... (ParamSpec::scalarType)
  double scalar = 0.0;               ///< scalars: the value passed (set by the caller)
  // Tensor maps: which tensor parameter (index among the tensor parameters),
  // its shape, and the box (same rank).
  std::size_t tensorIndex = 0;
  std::string tensor;
  std::vector<std::int64_t> box;
  bool swizzle128B = true;
};

/// A deterministic value for scalar parameter `index` when none is given:
/// seeded, in [0.5, 1.5) for floats and in [1, 8] for integers, so that a
/// dropped or zeroed scalar changes the result (neither 0 nor 1).
double defaultScalarValue(std::string_view scalarType, std::uint64_t seed, std::size_t index);

/// Parses "eps=1e-5,alpha=2" into values by name. Errors are InvalidArgument.
Result<std::map<std::string, double>> parseScalarsArgument(const std::string &text);

struct LaunchPlan {
  DimValues dims;
  LaunchConfig config;
  std::vector<ParamPlan> params; ///< same order as LaunchSpec::params
  std::optional<double> flops;   ///< when the metadata has "flops"
  std::int64_t reductionLength = 1;
  /// Bytes of all tensor parameters (for GB/s).
  std::size_t tensorBytes() const;
};

/// Parses "M=1024,N=512,K=64" (spaces allowed). Errors are InvalidDims.
Result<DimValues> parseDimsArgument(const std::string &text);

/// Device-independent checks and evaluation: dims, `requires`, grid and
/// parameter shapes.
Result<LaunchPlan> checkDims(const LaunchSpec &spec, const DimValues &dims);
/// Target and resource checks of a plan against a device.
Status checkDevice(const LaunchSpec &spec, const LaunchPlan &plan, const DeviceInfo &device);
/// Both, in that order.
Result<LaunchPlan> checkLaunch(const LaunchSpec &spec, const DimValues &dims,
                               const DeviceInfo &device);

/// Kernel arguments for `plan`: `tensorBuffers[i]` is the device buffer of
/// the i-th *tensor* parameter (in parameter order); scalars (ParamPlan::
/// scalar, rounded to their type) and dims are passed by value with their
/// declared width.
///
/// Tensor-map parameters are encoded for the buffer of their tensor through
/// `maps` (checked first: K1325); a plan with tensor maps and no cache is an
/// InvalidArgument error.
Result<KernelArgs> packArguments(const LaunchPlan &plan,
                                 const std::vector<const DeviceBuffer *> &tensorBuffers,
                                 TensorMapCache *maps = nullptr);

} // namespace kina::runtime
