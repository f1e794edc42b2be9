//===- TargetCompat.h - Can this device run that cubin? ---------*- C++ -*-===//
//
// The binary-compatibility rule for cubins, which the launch guard applies
// before loading anything:
//   sm_XY   (e.g. sm_80)   runs on compute capability X.Z with Z >= Y;
//   sm_XYa  (e.g. sm_90a)  runs only on X.Y (architecture-specific features);
//   sm_XYf  (e.g. sm_100f) runs on X.Z with Z >= Y (family-specific).
// A cubin never runs on another major version.
//
// FIXME: this belongs to the target capability registry (compiler/target)
// once it exposes binary compatibility; the runtime should then ask it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <string>

namespace kina::runtime {

struct CubinTarget {
  int major = 0;
  int minor = 0;
  char suffix = 0; ///< 0, 'a' or 'f'
};

/// Parses "sm_90a", "sm_80", "sm_100f", "sm_120".
std::optional<CubinTarget> parseCubinTarget(const std::string &name);

/// True when a cubin for `target` runs on a device of compute capability
/// major.minor.
bool cubinRunsOn(const CubinTarget &target, int ccMajor, int ccMinor);

/// Which devices a target runs on, for messages: "compute capability 9.0
/// only", "compute capability 8.x with x >= 6".
std::string describeCompatibleDevices(const CubinTarget &target);

} // namespace kina::runtime
