//===- DType.cpp - Element types and 16-bit float conversions -------------===//
//
// Names and sizes of DType, and software float <-> half/bfloat16 conversion
// used for random fills, .npy data and the result comparison.
//
//===----------------------------------------------------------------------===//
#include "runtime/DType.h"

#include <cctype>
#include <cstring>
#include <string>

namespace kina::runtime {

std::string_view dtypeName(DType t) {
  switch (t) {
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::I8:
    return "i8";
  case DType::U8:
    return "u8";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  }
  return "?";
}

std::optional<DType> parseDType(std::string_view text) {
  std::string lower;
  for (char c : text)
    lower.push_back(char(std::tolower(static_cast<unsigned char>(c))));
  for (DType t : {DType::F16, DType::BF16, DType::F32, DType::F64, DType::I8, DType::U8, DType::I32,
                  DType::I64})
    if (lower == dtypeName(t))
      return t;
  return std::nullopt;
}

std::size_t dtypeSize(DType t) {
  switch (t) {
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::I8:
  case DType::U8:
    return 1;
  }
  return 0;
}

bool isFloat(DType t) {
  return t == DType::F16 || t == DType::BF16 || t == DType::F32 || t == DType::F64;
}

static std::uint32_t bitsOf(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
static float floatOf(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

float halfToFloat(std::uint16_t h) {
  std::uint32_t sign = std::uint32_t(h & 0x8000) << 16;
  std::uint32_t exp = (h >> 10) & 0x1f;
  std::uint32_t man = h & 0x3ff;
  if (exp == 0x1f) // inf / NaN
    return floatOf(sign | 0x7f800000u | (man << 13));
  if (exp == 0) {
    if (man == 0)
      return floatOf(sign);
    // Subnormal: value = man * 2^-24, exact in float.
    float v = float(man) * floatOf(0x33800000u); // 2^-24
    return sign ? -v : v;
  }
  return floatOf(sign | ((exp + 112) << 23) | (man << 13));
}

std::uint16_t floatToHalf(float f) {
  std::uint32_t u = bitsOf(f);
  std::uint16_t sign = std::uint16_t((u >> 16) & 0x8000);
  std::uint32_t absu = u & 0x7fffffffu;
  if (absu > 0x7f800000u) // NaN: keep it quiet and non-zero
    return sign | 0x7e00 | std::uint16_t((absu >> 13) & 0x3ff);
  if (absu >= 0x477ff000u) // >= 65520 rounds to infinity
    return sign | 0x7c00;
  if (absu < 0x38800000u) { // below the smallest normal half (2^-14)
    // Subnormal half: value / 2^-24 rounded to nearest even.
    if (absu < 0x33000000u) // < 2^-25: rounds to zero
      return sign;
    std::uint32_t exp = absu >> 23;
    std::uint32_t man = (absu & 0x7fffff) | 0x800000;
    std::uint32_t shift = 126 - exp; // 13 + (113 - exp)
    std::uint32_t res = man >> shift;
    std::uint32_t rem = man & ((1u << shift) - 1);
    std::uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (res & 1)))
      ++res;
    return sign | std::uint16_t(res);
  }
  // Normal: rebias exponent, round mantissa to 10 bits (carry may bump exp).
  std::uint32_t res = ((absu >> 13) - (112u << 10));
  std::uint32_t rem = absu & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (res & 1)))
    ++res;
  return sign | std::uint16_t(res);
}

float bf16ToFloat(std::uint16_t b) { return floatOf(std::uint32_t(b) << 16); }

std::uint16_t floatToBf16(float f) {
  std::uint32_t u = bitsOf(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: quiet, keep sign
    return std::uint16_t((u >> 16) | 0x40);
  std::uint32_t lsb = (u >> 16) & 1;
  u += 0x7fff + lsb;
  return std::uint16_t(u >> 16);
}

} // namespace kina::runtime
