//===- MathAlgorithms.h - The math builtins, written once for two backends -*- C++ -*-===//
//
// The accurate math builtins (sqrt .. gelu_tanh, pow; docs/math.md) as
// sequences of IEEE double operations: +, -, *, /, fma, sqrt, floor,
// comparisons, selects and exponent-field bit operations, nothing else (no
// libdevice, no approximate instructions). They are templates over a
// backend `A`: codegen/mlir/ElementwiseToMLIR.cpp instantiates them with a
// backend that builds MLIR (arith/llvm ops on f64), and
// tests/unit/math/MathAlgorithmsTest.cpp with one that computes in C++
// doubles. Both do the same IEEE operations in the same order, so the CPU
// test measures the error of exactly what the GPU runs, against long double
// libm, over ranges of F32 inputs (tests/gpu/math checks the hardware).
//
// F16, BF16 and F32 elements are widened to double, computed here and
// rounded once to the element type; every polynomial below is accurate to
// about 1e-15 relative, far below half an F32 ulp (6e-8), so results are
// within 1 ulp of F32 (the test states the measured maximum).
//
// Polynomials are Chebyshev interpolants of libm's long double functions,
// computed once per process (fitPolynomial) and evaluated in monomial form
// in a variable scaled to [-1, 1] (Horner with fma).
//
// Backend concept (F: a double value, B: a boolean):
//   F constant(double);  F add(F, F), sub(F, F), mul(F, F), div(F, F);
//   F fma(F a, F b, F c) = a * b + c (one rounding);  F sqrt(F);
//   F floor(F);  F abs(F);  F neg(F);  B lt(F, F), le(F, F);  B isNan(F);
//   B orB(B, B);  F select(B, F, F);
//   F pow2i(F n): 2^n for an integral n in [-1022, 1023];
//   F exponent(F x): the unbiased binary exponent of a positive normal x;
//   F mantissa(F x): x scaled by a power of two into [1, 2).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

namespace kina::codegen::math {

/// A polynomial p(u), u = (x - mid) / half, with monomial coefficients in u.
struct Polynomial {
  double mid = 0, invHalf = 1;
  std::vector<double> coeffs; ///< coeffs[i] multiplies u^i
};

/// The degree-n Chebyshev interpolant of f on [lo, hi] (long double nodes),
/// converted to monomials in u.
template <class Fn> Polynomial fitPolynomial(Fn f, long double lo, long double hi, int n) {
  const long double pi = 3.141592653589793238462643383279502884L;
  long double mid = (lo + hi) / 2, half = (hi - lo) / 2;
  std::vector<long double> values(n + 1), cheb(n + 1, 0.0L);
  for (int k = 0; k <= n; ++k) {
    long double t = std::cos(pi * (k + 0.5L) / (n + 1));
    values[k] = f(mid + half * t);
  }
  for (int j = 0; j <= n; ++j) {
    long double s = 0;
    for (int k = 0; k <= n; ++k)
      s += values[k] * std::cos(pi * j * (k + 0.5L) / (n + 1));
    cheb[j] = s * 2 / (n + 1);
  }
  cheb[0] /= 2;
  // T_j as monomials: T_0 = 1, T_1 = u, T_{j+1} = 2u T_j - T_{j-1}.
  std::vector<long double> mono(n + 1, 0.0L), prev(n + 1, 0.0L), cur(n + 1, 0.0L);
  prev[0] = 1;
  mono[0] += cheb[0];
  if (n >= 1) {
    cur[1] = 1;
    mono[1] += cheb[1];
  }
  for (int j = 2; j <= n; ++j) {
    std::vector<long double> next(n + 1, 0.0L);
    for (int i = 0; i < n; ++i)
      next[i + 1] += 2 * cur[i];
    for (int i = 0; i <= n; ++i)
      next[i] -= prev[i];
    for (int i = 0; i <= n; ++i)
      mono[i] += cheb[j] * next[i];
    prev = cur;
    cur = next;
  }
  Polynomial p;
  p.mid = static_cast<double>(mid);
  p.invHalf = static_cast<double>(1 / half);
  for (long double c : mono)
    p.coeffs.push_back(static_cast<double>(c));
  return p;
}

/// The fitted polynomials, computed once.
struct Fits {
  Polynomial exp2;     ///< 2^f on [-0.5, 0.5]
  Polynomial tanhOdd;  ///< tanh(sqrt s) / sqrt s on s in [0, 0.390625] (|x| < 0.625)
  Polynomial erfOdd;   ///< erf(sqrt s) / sqrt s on s in [0, 4] (|x| < 2)
  Polynomial erfcNear; ///< z erfc(z) e^(z^2) on [2, 4]
  Polynomial erfcFar;  ///< z erfc(z) e^(z^2) on [4, 10.5]

  static const Fits &get() {
    static const Fits fits = [] {
      Fits f;
      f.exp2 = fitPolynomial([](long double x) { return std::exp2(x); }, -0.5L, 0.5L, 13);
      f.tanhOdd = fitPolynomial(
          [](long double s) {
            long double x = std::sqrt(s);
            return x == 0 ? 1.0L : std::tanh(x) / x;
          },
          0.0L, 0.390625L, 14);
      f.erfOdd = fitPolynomial(
          [](long double s) {
            long double x = std::sqrt(s);
            return x == 0 ? 1.1283791670955125738961589031215452L : std::erf(x) / x;
          },
          0.0L, 4.0L, 24);
      auto scaled = [](long double z) { return z * std::erfc(z) * std::exp(z * z); };
      f.erfcNear = fitPolynomial(scaled, 2.0L, 4.0L, 22);
      f.erfcFar = fitPolynomial(scaled, 4.0L, 10.5L, 22);
      return f;
    }();
    return fits;
  }
};

/// The algorithms over backend A. Every function takes and returns doubles.
template <class A> class Algorithms {
public:
  using F = typename A::F;
  using B = typename A::B;

  explicit Algorithms(A &a) : a_(a), fits_(Fits::get()) {}

  F c(double v) { return a_.constant(v); }

  F poly(const Polynomial &p, F x) {
    F u = a_.mul(a_.sub(x, c(p.mid)), c(p.invHalf));
    F r = c(p.coeffs.back());
    for (size_t i = p.coeffs.size() - 1; i-- > 0;)
      r = a_.fma(r, u, c(p.coeffs[i]));
    return r;
  }

  /// 2^x. x is clamped to [-2000, 2000] (beyond, the result is 0 or inf in
  /// double already) and split as n + f, n = round(x), |f| <= 1/2; 2^n is
  /// applied as two normal powers of two so underflow and overflow round
  /// correctly. NaN passes through.
  F exp2(F x) {
    F xc =
        a_.select(a_.lt(x, c(-2000.0)), c(-2000.0), a_.select(a_.lt(c(2000.0), x), c(2000.0), x));
    F n = a_.floor(a_.add(xc, c(0.5)));
    F f = a_.sub(xc, n); // exact: n is an integer within 1/2 of xc
    F p = poly(fits_.exp2, f);
    F n1 = a_.floor(a_.mul(n, c(0.5)));
    F n2 = a_.sub(n, n1);
    F r = a_.mul(a_.mul(p, a_.pow2i(n1)), a_.pow2i(n2));
    return a_.select(a_.isNan(x), x, r);
  }

  /// e^x = 2^(x log2 e): the product's relative error (2^-53) costs at most
  /// |x log2 e| 2^-53 relative in the result, below 1e-13 for every x whose
  /// e^x is a finite F32.
  F exp(F x) { return exp2(a_.mul(x, c(1.4426950408889634074))); }

  /// log(m) for m in [sqrt(1/2), sqrt(2)]: 2 atanh(t), t = (m - 1) / (m + 1),
  /// |t| <= 0.1716, by its series to t^25 (truncation below 1e-19).
  F logReduced(F m) {
    F t = a_.div(a_.sub(m, c(1.0)), a_.add(m, c(1.0)));
    F s = a_.mul(t, t);
    F r = c(1.0 / 25.0);
    for (int k = 11; k >= 0; --k)
      r = a_.fma(r, s, c(1.0 / (2 * k + 1)));
    return a_.mul(a_.mul(c(2.0), t), r);
  }

  /// x = m 2^e with m in [sqrt(1/2), sqrt(2)), for positive normal x.
  void reduce(F x, F &m, F &e) {
    F m0 = a_.mantissa(x), e0 = a_.exponent(x);
    B high = a_.lt(c(1.4142135623730951), m0);
    m = a_.select(high, a_.mul(m0, c(0.5)), m0);
    e = a_.select(high, a_.add(e0, c(1.0)), e0);
  }

  /// log or log2 of x: NaN for x < 0 and NaN, -inf at 0, inf at inf.
  F logAny(F x, bool base2) {
    B bad = a_.orB(a_.isNan(x), a_.lt(x, c(0.0)));
    B zero = a_.le(x, c(0.0));
    B inf = a_.lt(c(1.7976931348623157e308), x);
    // Keep the reduction's input a positive normal double on every lane.
    F safe = a_.select(a_.orB(bad, a_.orB(zero, inf)), c(1.0), x);
    F m, e;
    reduce(safe, m, e);
    F l = logReduced(m);
    F r = base2 ? a_.fma(l, c(1.4426950408889634074), e) : a_.fma(e, c(0.693147180559945309417), l);
    r = a_.select(inf, x, r);
    r = a_.select(zero, c(-INFINITY), r);
    return a_.select(bad, c(NAN), r);
  }
  F log(F x) { return logAny(x, false); }
  F log2(F x) { return logAny(x, true); }

  /// Multiplies by -1 where x < 0 (the odd functions below).
  F withSignOf(F x, F magnitude) {
    return a_.select(a_.lt(x, c(0.0)), a_.neg(magnitude), magnitude);
  }

  /// tanh: |x| < 0.625 by the odd polynomial, else 1 - 2 / (e^(2|x|) + 1).
  F tanh(F x) {
    F ax = a_.abs(x);
    F small = a_.mul(ax, poly(fits_.tanhOdd, a_.mul(ax, ax)));
    F big = a_.sub(c(1.0), a_.div(c(2.0), a_.add(exp(a_.mul(c(2.0), ax)), c(1.0))));
    F r = a_.select(a_.lt(ax, c(0.625)), small, big);
    return a_.select(a_.isNan(x), x, withSignOf(x, r));
  }

  /// erfc(z) for z >= 2: e^(-z^2) (z erfc(z) e^(z^2)) / z; 0 beyond 10.5
  /// (erfc(10.5) < 1e-49, 0 in F32).
  F erfcTail(F z) {
    F zc = a_.select(a_.lt(c(10.5), z), c(10.5), z);
    F scaled = a_.select(a_.lt(zc, c(4.0)), poly(fits_.erfcNear, zc), poly(fits_.erfcFar, zc));
    F r = a_.div(a_.mul(exp(a_.neg(a_.mul(zc, zc))), scaled), zc);
    return a_.select(a_.lt(c(10.5), z), c(0.0), r);
  }

  F erf(F x) {
    F ax = a_.abs(x);
    F safeBig = a_.select(a_.lt(ax, c(2.0)), c(2.0), ax);
    F safeSmall = a_.select(a_.lt(ax, c(2.0)), ax, c(0.0));
    F small = a_.mul(safeSmall, poly(fits_.erfOdd, a_.mul(safeSmall, safeSmall)));
    F big = a_.sub(c(1.0), erfcTail(safeBig));
    F r = a_.select(a_.lt(ax, c(2.0)), small, big);
    return a_.select(a_.isNan(x), x, withSignOf(x, r));
  }

  /// erfc(z) for every z, without cancellation for z >= 2 or z <= -2.
  F erfc(F z) {
    F az = a_.abs(z);
    F safeBig = a_.select(a_.lt(az, c(2.0)), c(2.0), az);
    F safeSmall = a_.select(a_.lt(az, c(2.0)), z, c(0.0));
    F tail = erfcTail(safeBig);
    F mid = a_.sub(c(1.0), a_.mul(safeSmall, poly(fits_.erfOdd, a_.mul(safeSmall, safeSmall))));
    F r =
        a_.select(a_.lt(az, c(2.0)), mid, a_.select(a_.lt(z, c(0.0)), a_.sub(c(2.0), tail), tail));
    return a_.select(a_.isNan(z), z, r);
  }

  F sigmoid(F x) { return a_.div(c(1.0), a_.add(c(1.0), exp(a_.neg(x)))); }
  F silu(F x) { return a_.div(x, a_.add(c(1.0), exp(a_.neg(x)))); }
  /// gelu(x) = x Phi(x) = x erfc(-x / sqrt 2) / 2.
  F gelu(F x) { return a_.mul(a_.mul(c(0.5), x), erfc(a_.mul(x, c(-0.70710678118654752440)))); }
  /// x (1 + tanh(u)) / 2 = x / (1 + e^(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3):
  /// the second form has no cancellation for negative x.
  F geluTanh(F x) {
    F x3 = a_.mul(a_.mul(x, x), x);
    F u = a_.mul(c(0.79788456080286535588), a_.fma(c(0.044715), x3, x));
    F r = a_.div(x, a_.add(c(1.0), exp(a_.mul(c(-2.0), u))));
    // x^3 overflows to inf for |x| > 5.6e102: 2u = +-inf gives x / inf = 0
    // for negative x and x / 1 = x for positive x, as wanted.
    return r;
  }
  /// pow(x, y) = 2^(y log2 x) for x >= 0; pow(x, 0) = 1 (also for NaN x);
  /// NaN for x < 0.
  F pow(F x, F y) {
    F r = exp2(a_.mul(y, log2(x)));
    r = a_.select(a_.lt(x, c(0.0)), c(NAN), r);
    // 0^y: log2 0 = -inf; y * -inf is -inf (y > 0) or +inf (y < 0).
    return a_.select(a_.le(a_.abs(y), c(0.0)), c(1.0), r);
  }
  F rsqrt(F x) { return a_.div(c(1.0), a_.sqrt(x)); }

private:
  A &a_;
  const Fits &fits_;
};

} // namespace kina::codegen::math
