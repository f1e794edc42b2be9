//===- InterpreterConvertTest.cpp - convertTo rounds once -----------------===//
//
// `convert` to F16 or BF16 rounds the source value once to nearest even, as
// the generated code does (cvt.rn.f16.f64, cvt.rn.bf16.{f64,s32,s64}, LLVM's
// round-to-odd expansion of f64 -> bf16 on sm_80), and so does a literal on a
// 16-bit tile (an arith.constant of that type). Regression: the interpreter
// rounded through F32 first, so a value just above a 16-bit midpoint that F32
// cannot tell from the midpoint rounded to even: F64 1 + 2^-11 + 2^-40 became
// F16 1.0 where the GPU gives 1 + 2^-10.
//
//===----------------------------------------------------------------------===//
#include "reference/Interpreter.h"

#include <cmath>

#include <gtest/gtest.h>

namespace {

using kina::ir::DType;
using kina::reference::convertTo;
using kina::reference::roundTo;

TEST(InterpreterConvert, F64ToF16RoundsOnce) {
  EXPECT_EQ(convertTo(DType::F16, 1 + std::ldexp(1, -11) + std::ldexp(1, -40)),
            1 + std::ldexp(1, -10));
  EXPECT_EQ(convertTo(DType::F16, -(1 + std::ldexp(1, -11) + std::ldexp(1, -40))),
            -(1 + std::ldexp(1, -10)));
  // The midpoint itself still goes to even.
  EXPECT_EQ(convertTo(DType::F16, 1 + std::ldexp(1, -11)), 1.0);
  // Subnormal halves: just above half the smallest one rounds up.
  EXPECT_EQ(convertTo(DType::F16, std::ldexp(1, -25) + std::ldexp(1, -60)), std::ldexp(1, -24));
  EXPECT_EQ(convertTo(DType::F16, std::ldexp(1, -25)), 0.0);
  // Overflow: 65520 and above is inf, just below is 65504.
  EXPECT_EQ(convertTo(DType::F16, 65519.999), 65504.0);
  EXPECT_EQ(convertTo(DType::F16, 65520.0), INFINITY);
  EXPECT_EQ(convertTo(DType::F16, -1e300), -INFINITY);
  EXPECT_TRUE(std::isnan(convertTo(DType::F16, NAN)));
  EXPECT_TRUE(std::signbit(convertTo(DType::F16, -0.0)));
}

TEST(InterpreterConvert, ToBF16RoundsOnce) {
  EXPECT_EQ(convertTo(DType::BF16, 1 + std::ldexp(1, -8) + std::ldexp(1, -40)),
            1 + std::ldexp(1, -7));
  // I32 2^24 + 2^16 + 1: F32 makes it the BF16 midpoint 2^24 + 2^16 (which
  // goes to even, 2^24); once rounded it is 2^24 + 2^17.
  EXPECT_EQ(convertTo(DType::BF16, 16842753.0), 16908288.0);
  EXPECT_EQ(convertTo(DType::BF16, 16842752.0), 16777216.0);
  // The largest BF16 is (2 - 2^-7) 2^127; from (2 - 2^-8) 2^127 up it is inf.
  EXPECT_EQ(convertTo(DType::BF16, 3.39e38), 3.3895313892515355e38);
  EXPECT_EQ(convertTo(DType::BF16, 3.4e38), INFINITY);
  EXPECT_EQ(convertTo(DType::BF16, -1e300), -INFINITY);
  EXPECT_EQ(convertTo(DType::BF16, std::ldexp(1, -134) + std::ldexp(1, -160)), std::ldexp(1, -133));
  EXPECT_TRUE(std::isnan(convertTo(DType::BF16, NAN)));
}

TEST(InterpreterConvert, ArithmeticRoundingIsUnchanged) {
  // roundTo (an arithmetic result) still rounds as before: through F32, as
  // the math builtins' code does (docs/math.md).
  EXPECT_EQ(roundTo(DType::F16, 1 + std::ldexp(1, -11) + std::ldexp(1, -40)), 1.0);
  EXPECT_EQ(roundTo(DType::F32, 1 + std::ldexp(1, -24) + std::ldexp(1, -40)),
            1 + std::ldexp(1, -23));
}

} // namespace
