//===- HostTensor.h - Kernel inputs and outputs in host memory --*- C++ -*-===//
//
// A dense, row-major (C order) array of one DType: what `kina run` fills with
// random values or reads from .npy, copies to and from the device, and
// compares against the CPU reference. Elements are stored in the device
// encoding (f16/bf16 as their 16-bit patterns, little-endian).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/DType.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kina::runtime {

struct HostTensor {
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> bytes;

  HostTensor() = default;
  /// Zero-filled tensor. Shape extents must be >= 0.
  HostTensor(DType dtype, std::vector<std::int64_t> shape);

  std::size_t numel() const;
  std::size_t byteSize() const { return bytes.size(); }
  std::span<const std::uint8_t> span() const { return bytes; }
  std::span<std::uint8_t> span() { return bytes; }

  /// Element `i` (flat index) converted to double.
  double get(std::size_t i) const;
  /// Stores `v` converted to the dtype (rounded to nearest even for
  /// f16/bf16/f32; integers are rounded and saturated).
  void set(std::size_t i, double v);

  /// "[12, 40]" for flat index `i`.
  std::string indexString(std::size_t i) const;
  /// "f16[128, 64]".
  std::string typeString() const;
};

/// Product of the extents; 1 for a scalar (empty shape).
std::size_t shapeNumel(const std::vector<std::int64_t> &shape);
/// "[128, 64]".
std::string shapeString(const std::vector<std::int64_t> &shape);

} // namespace kina::runtime
