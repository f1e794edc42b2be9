//===- TargetCompat.cpp - Cubin binary compatibility ----------------------===//
//
// Implements the rule stated in TargetCompat.h.
//
//===----------------------------------------------------------------------===//
#include "runtime/TargetCompat.h"

#include <cctype>

namespace kina::runtime {

std::optional<CubinTarget> parseCubinTarget(const std::string &name) {
  static const std::string prefix = "sm_";
  if (name.compare(0, prefix.size(), prefix) != 0)
    return std::nullopt;
  std::string rest = name.substr(prefix.size());
  CubinTarget t;
  if (!rest.empty() && (rest.back() == 'a' || rest.back() == 'f')) {
    t.suffix = rest.back();
    rest.pop_back();
  }
  if (rest.size() < 2 || rest.size() > 4)
    return std::nullopt;
  for (char c : rest)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return std::nullopt;
  t.minor = rest.back() - '0';
  t.major = std::stoi(rest.substr(0, rest.size() - 1));
  if (t.major == 0)
    return std::nullopt;
  return t;
}

bool cubinRunsOn(const CubinTarget &t, int ccMajor, int ccMinor) {
  if (ccMajor != t.major)
    return false;
  if (t.suffix == 'a')
    return ccMinor == t.minor;
  return ccMinor >= t.minor;
}

std::string describeCompatibleDevices(const CubinTarget &t) {
  std::string cc = std::to_string(t.major) + "." + std::to_string(t.minor);
  if (t.suffix == 'a')
    return "compute capability " + cc + " only";
  if (t.minor == 0)
    return "compute capability " + std::to_string(t.major) + ".x";
  return "compute capability " + std::to_string(t.major) + ".x with x >= " +
         std::to_string(t.minor);
}

} // namespace kina::runtime
