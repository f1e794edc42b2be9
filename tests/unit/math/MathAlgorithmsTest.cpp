// The accurate math builtins as the GPU computes them (MathAlgorithms.h on
// a C++ double backend doing the same IEEE operations), rounded to F32, and
// compared with long double libm over ranges of F32 inputs: every F32 bit
// pattern in the range, strided so that each test covers ~200k inputs, plus
// the range ends. The bounds asserted are the ones docs/math.md states.
#include "codegen/MathAlgorithms.h"

#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>

namespace {

using kina::codegen::math::Algorithms;

struct Cpu {
  using F = double;
  using B = bool;
  F constant(double v) { return v; }
  F add(F a, F b) { return a + b; }
  F sub(F a, F b) { return a - b; }
  F mul(F a, F b) { return a * b; }
  F div(F a, F b) { return a / b; }
  F fma(F a, F b, F c) { return std::fma(a, b, c); }
  F sqrt(F a) { return std::sqrt(a); }
  F floor(F a) { return std::floor(a); }
  F abs(F a) { return std::fabs(a); }
  F neg(F a) { return -a; }
  B lt(F a, F b) { return a < b; }
  B le(F a, F b) { return a <= b; }
  B isNan(F a) { return a != a; }
  B orB(B a, B b) { return a || b; }
  F select(B c, F a, F b) { return c ? a : b; }
  F pow2i(F n) {
    return std::bit_cast<double>(static_cast<uint64_t>(static_cast<int64_t>(n) + 1023) << 52);
  }
  F exponent(F x) {
    return static_cast<double>(static_cast<int64_t>((std::bit_cast<uint64_t>(x) >> 52) & 0x7ff) -
                               1023);
  }
  F mantissa(F x) {
    uint64_t b = std::bit_cast<uint64_t>(x);
    return std::bit_cast<double>((b & ((uint64_t(1) << 52) - 1)) | (uint64_t(1023) << 52));
  }
};

/// The F32 ulp at the magnitude of r (2^-149 in the subnormal range).
long double ulpF32(long double r) {
  r = std::fabs(r);
  if (r < FLT_MIN)
    return std::ldexp(1.0L, -149);
  int e;
  std::frexp(r, &e); // r = m 2^e, m in [0.5, 1)
  return std::ldexp(1.0L, e - 1 - 23);
}

struct Result {
  double maxUlp = 0;
  float worstInput = 0;
  long count = 0;
};

/// Every `stride`-th F32 from lo to hi (same sign), plus both ends.
Result sweep(float lo, float hi, const std::function<double(double)> &gpu,
             const std::function<long double(long double)> &ref) {
  Result res;
  auto one = [&](float x) {
    float got = static_cast<float>(gpu(static_cast<double>(x)));
    long double want = ref(static_cast<long double>(x));
    ++res.count;
    if (std::isnan(want)) {
      if (!std::isnan(got)) {
        res.maxUlp = INFINITY;
        res.worstInput = x;
      }
      return;
    }
    long double wantF = static_cast<float>(want); // inf where the F32 result overflows
    if (std::isinf(wantF)) {
      if (got != wantF) {
        res.maxUlp = INFINITY;
        res.worstInput = x;
      }
      return;
    }
    double err =
        static_cast<double>(std::fabs(static_cast<long double>(got) - want) / ulpF32(want));
    if (!(err <= res.maxUlp)) {
      res.maxUlp = err;
      res.worstInput = x;
    }
  };
  auto walk = [&](float a, float b) { // 0 <= a <= b or b <= a <= 0: by bit pattern
    uint32_t ia = std::bit_cast<uint32_t>(a), ib = std::bit_cast<uint32_t>(b);
    if (ia > ib)
      std::swap(ia, ib);
    uint64_t stride = std::max<uint64_t>(1, (static_cast<uint64_t>(ib) - ia) / 200000);
    for (uint64_t i = ia; i <= ib; i += stride)
      one(std::bit_cast<float>(static_cast<uint32_t>(i)));
    one(std::bit_cast<float>(ib));
  };
  if (lo < 0 && hi > 0) {
    walk(lo, -0.0f);
    walk(0.0f, hi);
  } else {
    walk(lo, hi);
  }
  return res;
}

Cpu cpu;
Algorithms<Cpu> alg(cpu);

void expectWithin(const char *name, float lo, float hi, double bound,
                  const std::function<double(double)> &gpu,
                  const std::function<long double(long double)> &ref) {
  Result r = sweep(lo, hi, gpu, ref);
  std::printf("%-10s [%g, %g]: %ld inputs, max %.4f ulp (at %.9g)\n", name, lo, hi, r.count,
              r.maxUlp, r.worstInput);
  EXPECT_LE(r.maxUlp, bound) << name << " worst at x = " << r.worstInput;
}

const long double kSqrt1_2 = 0.70710678118654752440084436210484903928L;
const long double kSqrt2OverPi = 0.79788456080286535587989211986876373695L;

// Half an ulp is the rounding to F32; what is left is the algorithm's error
// in double, which is below 1e-13 relative (0.000002 ulp) here.
constexpr double kBound = 0.501;

TEST(MathAlgorithms, Exp2) {
  auto g = [](double x) { return alg.exp2(x); };
  auto r = [](long double x) { return std::exp2(x); };
  expectWithin("exp2", -160.0f, 130.0f, kBound, g, r);
  expectWithin("exp2", -1.0f, 1.0f, kBound, g, r);
}

TEST(MathAlgorithms, Log) {
  auto g = [](double x) { return alg.log(x); };
  auto r = [](long double x) { return std::log(x); };
  expectWithin("log", 1.4e-45f, FLT_MAX, kBound, g, r);
  expectWithin("log", 0.5f, 2.0f, kBound, g, r);
  expectWithin("log", -10.0f, -1e-30f, kBound, g, r); // NaN
}

TEST(MathAlgorithms, Log2) {
  auto g = [](double x) { return alg.log2(x); };
  auto r = [](long double x) { return std::log2(x); };
  expectWithin("log2", 1.4e-45f, FLT_MAX, kBound, g, r);
  expectWithin("log2", 0.5f, 2.0f, kBound, g, r);
}

TEST(MathAlgorithms, Tanh) {
  auto g = [](double x) { return alg.tanh(x); };
  auto r = [](long double x) { return std::tanh(x); };
  expectWithin("tanh", -20.0f, 20.0f, kBound, g, r);
  expectWithin("tanh", -1.0f, 1.0f, kBound, g, r);
  expectWithin("tanh", 1e-30f, 1e-3f, kBound, g, r);
}

TEST(MathAlgorithms, Erf) {
  auto g = [](double x) { return alg.erf(x); };
  auto r = [](long double x) { return std::erf(x); };
  expectWithin("erf", -12.0f, 12.0f, kBound, g, r);
  expectWithin("erf", 1.5f, 4.5f, kBound, g, r);
  expectWithin("erf", 1e-30f, 1e-2f, kBound, g, r);
}

TEST(MathAlgorithms, Sigmoid) {
  auto g = [](double x) { return alg.sigmoid(x); };
  auto r = [](long double x) { return 1 / (1 + std::exp(-x)); };
  expectWithin("sigmoid", -110.0f, 110.0f, kBound, g, r);
}

TEST(MathAlgorithms, Silu) {
  auto g = [](double x) { return alg.silu(x); };
  auto r = [](long double x) { return x / (1 + std::exp(-x)); };
  expectWithin("silu", -110.0f, 110.0f, kBound, g, r);
  expectWithin("silu", -1e30f, 1e30f, kBound, g, r);
}

TEST(MathAlgorithms, Gelu) {
  auto g = [](double x) { return alg.gelu(x); };
  auto r = [](long double x) { return 0.5L * x * std::erfc(-x * kSqrt1_2); };
  expectWithin("gelu", -15.0f, 15.0f, kBound, g, r);
  expectWithin("gelu", -1e30f, 1e30f, kBound, g, r);
}

TEST(MathAlgorithms, GeluTanh) {
  auto g = [](double x) { return alg.geluTanh(x); };
  auto r = [](long double x) {
    long double u = kSqrt2OverPi * (x + 0.044715L * x * x * x);
    return x / (1 + std::exp(-2 * u));
  };
  expectWithin("gelu_tanh", -60.0f, 60.0f, kBound, g, r);
}

TEST(MathAlgorithms, Rsqrt) {
  auto g = [](double x) { return alg.rsqrt(x); };
  auto r = [](long double x) { return 1 / std::sqrt(x); };
  expectWithin("rsqrt", 1.4e-45f, FLT_MAX, kBound, g, r);
}

TEST(MathAlgorithms, Pow) {
  for (float y : {-3.5f, -1.0f, -0.5f, 0.5f, 1.0f, 2.0f, 3.0f, 7.25f}) {
    auto g = [y](double x) { return alg.pow(x, y); };
    auto r = [y](long double x) { return std::pow(x, static_cast<long double>(y)); };
    std::string name = "pow y=" + std::to_string(y).substr(0, 5);
    expectWithin(name.c_str(), 1e-12f, 1e12f, kBound, g, r);
  }
  EXPECT_EQ(alg.pow(0.0, 0.0), 1.0);
  EXPECT_EQ(alg.pow(0.0, 2.0), 0.0);
  EXPECT_EQ(alg.pow(0.0, -1.0), INFINITY);
  EXPECT_TRUE(std::isnan(alg.pow(-2.0, 2.0)));
  EXPECT_EQ(alg.pow(NAN, 0.0), 1.0);
}

TEST(MathAlgorithms, SpecialValues) {
  EXPECT_TRUE(std::isnan(alg.exp2(NAN)));
  EXPECT_EQ(alg.exp2(INFINITY), INFINITY);
  EXPECT_EQ(alg.exp2(-INFINITY), 0.0);
  EXPECT_EQ(alg.log(0.0), -INFINITY);
  EXPECT_EQ(alg.log(INFINITY), INFINITY);
  EXPECT_TRUE(std::isnan(alg.log(-1.0)));
  EXPECT_TRUE(std::isnan(alg.log(NAN)));
  EXPECT_EQ(alg.log2(1.0), 0.0);
  EXPECT_EQ(alg.log2(8.0), 3.0);
  EXPECT_EQ(alg.tanh(INFINITY), 1.0);
  EXPECT_EQ(alg.tanh(-INFINITY), -1.0);
  EXPECT_TRUE(std::isnan(alg.tanh(NAN)));
  EXPECT_EQ(alg.erf(INFINITY), 1.0);
  EXPECT_EQ(alg.erf(-INFINITY), -1.0);
  EXPECT_TRUE(std::isnan(alg.erf(NAN)));
  EXPECT_EQ(alg.sigmoid(-INFINITY), 0.0);
  EXPECT_EQ(alg.sigmoid(INFINITY), 1.0);
  EXPECT_EQ(alg.gelu(INFINITY), INFINITY);
  EXPECT_EQ(alg.gelu(0.0), 0.0);
  EXPECT_EQ(alg.rsqrt(0.0), INFINITY);
}

} // namespace
