//===- DType.h - Element types of kernel parameters -------------*- C++ -*-===//
//
// The element types a kernel parameter can have at run time, their sizes and
// spellings ("f16" in launch metadata, "F16" in Kina source: both parse), and
// bit-exact conversions between float and IEEE half / bfloat16 (round to
// nearest even; NaN stays NaN; overflow gives infinity).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace kina::runtime {

enum class DType { F16, BF16, F32, F64, I8, U8, I32, I64 };

/// Lower-case metadata spelling: "f16", "bf16", "f32", "f64", "i8", "u8",
/// "i32", "i64".
std::string_view dtypeName(DType t);
/// Accepts the metadata spelling and Kina's ("F16", "BF16", ...).
std::optional<DType> parseDType(std::string_view text);
std::size_t dtypeSize(DType t);
bool isFloat(DType t);

float halfToFloat(std::uint16_t bits);
std::uint16_t floatToHalf(float value);
float bf16ToFloat(std::uint16_t bits);
std::uint16_t floatToBf16(float value);

} // namespace kina::runtime
