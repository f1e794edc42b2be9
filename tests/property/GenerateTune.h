//===- GenerateTune.h - Tunable kernels for the property test ---*- C++ -*-===//
//
// Tune parameters (docs/language.md "Tunable parameters") in the check =>
// build property: about one program in five gets an elementwise kernel whose
// warp count and column tile are `tune` parameters with a random default,
// used in the requires, the grid, the warp grid, a let and the tile shapes.
// The default point checks clean and is what build and run compile; its
// launch dims satisfy the requires at that point.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Generator.h"

#include <cstdint>

namespace kina::property {

void appendTunedKernel(GeneratedProgram &p, uint64_t seed);

} // namespace kina::property
