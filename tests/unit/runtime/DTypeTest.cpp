//===- DTypeTest.cpp - f16/bf16 conversions and dtype names ---------------===//
#include "runtime/DType.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace kina::runtime;

static std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
static float fromBits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

TEST(DType, NamesParseBothSpellings) {
  EXPECT_EQ(parseDType("f16"), DType::F16);
  EXPECT_EQ(parseDType("BF16"), DType::BF16);
  EXPECT_EQ(parseDType("F32"), DType::F32);
  EXPECT_EQ(parseDType("i8"), DType::I8);
  EXPECT_EQ(parseDType("I32"), DType::I32);
  EXPECT_EQ(parseDType("f64"), DType::F64);
  EXPECT_EQ(parseDType("U8"), DType::U8);
  EXPECT_FALSE(parseDType("f128"));
  EXPECT_EQ(dtypeSize(DType::BF16), 2u);
  EXPECT_EQ(dtypeName(DType::BF16), "bf16");
}

TEST(DType, HalfKnownValues) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00); // ties to even -> infinity
  EXPECT_EQ(floatToHalf(65519.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(INFINITY), 0x7c00);
  EXPECT_EQ(floatToHalf(-INFINITY), 0xfc00);
  EXPECT_EQ(floatToHalf(0x1p-24f), 0x0001);  // smallest subnormal
  EXPECT_EQ(floatToHalf(0x1p-25f), 0x0000);  // tie rounds to even (zero)
  EXPECT_EQ(floatToHalf(0x1.8p-25f), 0x0001);
  EXPECT_EQ(floatToHalf(0x1p-14f), 0x0400);  // smallest normal
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even -> 1.
  EXPECT_EQ(floatToHalf(1.0f + 0x1p-11f), 0x3c00);
  EXPECT_EQ(floatToHalf(1.0f + 0x1p-10f + 0x1p-11f), 0x3c02);
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
  EXPECT_EQ(halfToFloat(0x0001), 0x1p-24f);
  EXPECT_EQ(halfToFloat(0x3555), 0x1.554p-2f);
}

TEST(DType, HalfRoundTripsEveryPattern) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    float f = halfToFloat(std::uint16_t(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(((h >> 10) & 0x1f) == 0x1f && (h & 0x3ff)) << h;
      EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(f))));
      continue;
    }
    ASSERT_EQ(floatToHalf(f), h) << "pattern " << h;
  }
}

#ifdef __FLT16_MAX__
// GCC's _Float16 conversions are an independent oracle for rounding.
TEST(DType, HalfMatchesCompilerConversion) {
  std::uint64_t x = 12345;
  for (int i = 0; i < 2000000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    float f = fromBits(std::uint32_t(x >> 32));
    if (std::isnan(f))
      continue;
    _Float16 ref = (_Float16)f;
    std::uint16_t refBits;
    std::memcpy(&refBits, &ref, 2);
    ASSERT_EQ(floatToHalf(f), refBits) << std::hexfloat << f;
  }
}
#endif

TEST(DType, Bf16KnownValuesAndRounding) {
  EXPECT_EQ(floatToBf16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBf16(-1.0f), 0xbf80);
  EXPECT_EQ(floatToBf16(fromBits(0x3f808000)), 0x3f80); // tie -> even
  EXPECT_EQ(floatToBf16(fromBits(0x3f818000)), 0x3f82); // tie -> even (up)
  EXPECT_EQ(floatToBf16(fromBits(0x3f808001)), 0x3f81);
  EXPECT_EQ(floatToBf16(fromBits(0x7f7fffff)), 0x7f80); // overflow -> inf
  EXPECT_EQ(floatToBf16(INFINITY), 0x7f80);
  std::uint16_t nan = floatToBf16(fromBits(0x7f800001)); // signalling payload in low bits
  EXPECT_TRUE(std::isnan(bf16ToFloat(nan)));
  EXPECT_EQ(bf16ToFloat(0x4049), fromBits(0x40490000));
}

TEST(DType, Bf16RoundTripsEveryPattern) {
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    float f = bf16ToFloat(std::uint16_t(b));
    if (std::isnan(f))
      continue;
    ASSERT_EQ(floatToBf16(f), b) << "pattern " << b;
    ASSERT_EQ(bits(f) >> 16, b);
  }
}
