//===- SoundnessTest.cpp - Randomized soundness against brute force -------===//
//
// Generates random kernels-in-miniature (divisibility and minimum-size
// requires, a loop bounded by K / d, floor/ceil division, K - c or M / d, a
// 2-warp grid) and random slice-shaped goals, then checks every answer by
// enumerating all small dimension values: a Proved goal must hold for every
// assignment satisfying the facts, a Disproved one must fail for all of
// them. Likewise for divisibility goals. Seeds are fixed: failures
// reproduce.
//
//===----------------------------------------------------------------------===//
#include "SolverTestUtil.h"

#include <cstdlib>
#include <random>

namespace kina::sema::solver::test {
namespace {

using SoundnessTest = SolverTest;

/// KINA_SOLVER_FUZZ_CASES=N multiplies the case counts (default 1) for
/// longer local runs; KINA_SOLVER_FUZZ_SEED shifts the seeds.
int scale() {
  const char *V = std::getenv("KINA_SOLVER_FUZZ_CASES");
  return V ? std::max(1, std::atoi(V)) : 1;
}
unsigned seedShift() {
  const char *V = std::getenv("KINA_SOLVER_FUZZ_SEED");
  return V ? unsigned(std::atoi(V)) : 0;
}

template <typename T> T pick(std::mt19937 &R, std::initializer_list<T> Xs) {
  return *(Xs.begin() + std::uniform_int_distribution<size_t>(0, Xs.size() - 1)(R));
}

TEST_F(SoundnessTest, RandomSliceBoundsAgainstBruteForce) {
  std::mt19937 Rng(20240611 + seedShift());
  DimExpr M = dim("M"), K = dim("K"), k = var("k"), w = var("w", SymbolKind::WarpId);
  int Proved = 0, Disproved = 0, Checked = 0;
  for (int Case = 0; Case < 300 * scale(); ++Case) {
    Context::Scope Kernel(C);
    int64_t DM = pick<int64_t>(Rng, {1, 2, 4, 8, 16}), DK = pick<int64_t>(Rng, {1, 4, 8, 16});
    int64_t MinK = pick<int64_t>(Rng, {0, 0, 8, 16});
    C.assumeDivisible(M, DM);
    C.assumeDivisible(K, DK);
    if (MinK)
      C.assumeLessEqual(cst(MinK), K);
    int64_t D = pick<int64_t>(Rng, {4, 8, 16}), Off = pick<int64_t>(Rng, {1, 2, 5, 8});
    int BoundKind = std::uniform_int_distribution<int>(0, 5)(Rng);
    DimExpr Bound = BoundKind == 0   ? S.exactDiv(K, D)
                    : BoundKind == 1 ? S.floorDiv(K, D)
                    : BoundKind == 2 ? S.ceilDiv(K, D)
                    : BoundKind == 3 ? K - Off
                    : BoundKind == 4 ? cst(Off)
                                     : S.exactDiv(M, D);
    range(k, cst(0), Bound);
    range(w, cst(0), cst(2));
    DimExpr Lhs = k * pick<int64_t>(Rng, {0, 1, 4, 8, 16, 16, -4}) +
                  w * pick<int64_t>(Rng, {0, 0, 1, 2, 8}) +
                  std::uniform_int_distribution<int64_t>(-16, 32)(Rng);
    DimExpr Rhs = K * pick<int64_t>(Rng, {0, 1, 1, 2}) + M * pick<int64_t>(Rng, {0, 0, 1}) +
                  Bound * pick<int64_t>(Rng, {0, 0, 1, 4, 8, 16, -1}) +
                  S.mod(k + pick<int64_t>(Rng, {0, 1, 2}), 3) * pick<int64_t>(Rng, {0, 0, 0, 1, 4});
    int Rel = std::uniform_int_distribution<int>(0, 2)(Rng);
    ProofOptions O;
    O.Suggest = Case % 10 == 0; // suggestions must not disturb the context
    Proof P = Rel == 0   ? C.proveLessEqual(Lhs, Rhs, O)
              : Rel == 1 ? C.proveLess(Lhs, Rhs, O)
                         : C.proveEqual(Lhs, Rhs, O);
    if (P.Result == Verdict::Unknown)
      continue;
    (P.proved() ? Proved : Disproved)++;
    bool AnyModel = false;
    for (int64_t Mv = 1; Mv <= 24; ++Mv)
      for (int64_t Kv = 1; Kv <= 48; ++Kv) {
        if (Mv % DM || Kv % DK || Kv < MinK)
          continue;
        Assignment A;
        A.set(id(M), Mv);
        A.set(id(K), Kv);
        EvalResult B = evaluate(S, Bound, A);
        if (!B) // an inexact `/`: the checker rejects such kernels
          continue;
        for (int64_t Kk = 0; Kk < *B.Value; ++Kk)
          for (int64_t Wv = 0; Wv < 2; ++Wv) {
            A.set(id(k), Kk);
            A.set(id(w), Wv);
            int64_t L = *evaluate(S, Lhs, A).Value, R = *evaluate(S, Rhs, A).Value;
            bool Holds = Rel == 0 ? L <= R : Rel == 1 ? L < R : L == R;
            AnyModel = true;
            ++Checked;
            ASSERT_EQ(Holds, P.proved())
                << "case " << Case << ": " << P.Goal << " M=" << Mv << " K=" << Kv << " k=" << Kk
                << " w=" << Wv << " bound=" << S.str(Bound) << " DM=" << DM << " DK=" << DK
                << " MinK=" << MinK;
          }
      }
    (void)AnyModel;
  }
  // The test must exercise the prover, not only its "cannot prove" exit.
  EXPECT_GT(Proved, 40);
  EXPECT_GT(Disproved, 5);
  EXPECT_GT(Checked, 10000);
}

TEST_F(SoundnessTest, RandomNestedLoopsProductsAndLetsAgainstBruteForce) {
  // for i in (0 .. M), for j in (0 .. i + c), let t = i * s + j, with an
  // optional `requires (M <= K)`; goals mix t, i, j, products i * K and M * K.
  std::mt19937 Rng(99 + seedShift());
  DimExpr M = dim("M"), K = dim("K"), i = var("i"), j = var("j");
  DimExpr t = var("t", SymbolKind::Let);
  int Proved = 0;
  for (int Case = 0; Case < 300 * scale(); ++Case) {
    Context::Scope Kernel(C);
    bool MleK = Rng() % 2;
    if (MleK)
      C.assumeLessEqual(M, K);
    int64_t Ci = pick<int64_t>(Rng, {0, 1, 2}), Step = pick<int64_t>(Rng, {1, 2, 4});
    range(i, cst(0), M);
    range(j, cst(0), i + Ci);
    C.define(id(t), i * Step + j);
    DimExpr Lhs = t * pick<int64_t>(Rng, {0, 1, 1, 2}) + j * pick<int64_t>(Rng, {0, 0, 1, -1}) +
                  S.mul(i, K) * pick<int64_t>(Rng, {0, 0, 1}) +
                  std::uniform_int_distribution<int64_t>(-4, 8)(Rng);
    DimExpr Rhs = M * pick<int64_t>(Rng, {0, 1, 2, 4, 5}) + K * pick<int64_t>(Rng, {0, 0, 1}) +
                  S.mul(M, K) * pick<int64_t>(Rng, {0, 0, 1});
    Proof P = C.proveLess(Lhs, Rhs, {Case % 10 == 0, 192});
    if (P.Result == Verdict::Unknown)
      continue;
    Proved += P.proved();
    for (int64_t Mv = 1; Mv <= 12; ++Mv)
      for (int64_t Kv = 1; Kv <= 12; ++Kv) {
        if (MleK && Mv > Kv)
          continue;
        Assignment A;
        A.set(id(M), Mv);
        A.set(id(K), Kv);
        for (int64_t Iv = 0; Iv < Mv; ++Iv)
          for (int64_t Jv = 0; Jv < Iv + Ci; ++Jv) {
            A.set(id(i), Iv);
            A.set(id(j), Jv);
            A.set(id(t), Iv * Step + Jv);
            int64_t L = *evaluate(S, Lhs, A).Value, R = *evaluate(S, Rhs, A).Value;
            ASSERT_EQ(L < R, P.proved()) << "case " << Case << ": " << P.Goal << " M=" << Mv
                                         << " K=" << Kv << " i=" << Iv << " j=" << Jv
                                         << " Ci=" << Ci << " Step=" << Step << " MleK=" << MleK;
          }
      }
  }
  EXPECT_GT(Proved, 20);
}

TEST_F(SoundnessTest, RandomDivisibilityAgainstBruteForce) {
  std::mt19937 Rng(7 + seedShift());
  DimExpr M = dim("M"), K = dim("K");
  int Proved = 0, Disproved = 0;
  for (int Case = 0; Case < 400 * scale(); ++Case) {
    Context::Scope Kernel(C);
    int64_t DM = pick<int64_t>(Rng, {1, 2, 8, 16, 32}), DK = pick<int64_t>(Rng, {1, 4, 16, 64});
    C.assumeDivisible(M, DM);
    C.assumeDivisible(K, DK);
    bool SumFact = Rng() % 4 == 0;
    if (SumFact)
      C.assumeDivisible(M + K, 32);
    int64_t D = pick<int64_t>(Rng, {2, 4, 16});
    DimExpr E = M * pick<int64_t>(Rng, {0, 1, 2, 3, 4, 8}) + K * pick<int64_t>(Rng, {0, 1, 2, 16}) +
                S.exactDiv(K, D) * pick<int64_t>(Rng, {0, 0, 1, 4}) +
                S.mod(M, 32) * pick<int64_t>(Rng, {0, 0, 1, 2}) + pick<int64_t>(Rng, {0, 0, 0, 8, 3});
    int64_t N = pick<int64_t>(Rng, {2, 4, 8, 16, 32, 64});
    Proof P = C.proveDivisible(E, N, {Case % 8 == 0, 64});
    if (P.Result == Verdict::Unknown)
      continue;
    (P.proved() ? Proved : Disproved)++;
    for (int64_t Mv = 1; Mv <= 128; ++Mv)
      for (int64_t Kv = 1; Kv <= 128; ++Kv) {
        if (Mv % DM || Kv % DK || (SumFact && (Mv + Kv) % 32))
          continue;
        Assignment A;
        A.set(id(M), Mv);
        A.set(id(K), Kv);
        EvalResult V = evaluate(S, E, A);
        if (!V)
          continue; // an inexact K / D
        ASSERT_EQ(*V.Value % N == 0, P.proved())
            << "case " << Case << ": " << P.Goal << " M=" << Mv << " K=" << Kv;
      }
  }
  EXPECT_GT(Proved, 60);
  EXPECT_GT(Disproved, 5);
}

} // namespace
} // namespace kina::sema::solver::test
