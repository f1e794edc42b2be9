//===- CompareTest.cpp - Tolerance comparison of results ------------------===//
#include "runtime/Compare.h"
#include "runtime/EventTimer.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kina::runtime;

static HostTensor tensor(DType dt, std::vector<std::int64_t> shape, std::vector<double> v) {
  HostTensor t(dt, std::move(shape));
  for (std::size_t i = 0; i < v.size(); ++i)
    t.set(i, v[i]);
  return t;
}

TEST(Compare, EqualTensorsPass) {
  HostTensor a = tensor(DType::F32, {2, 2}, {1, 2, 3, 4});
  auto r = compareTensors(a, a, defaultTolerance(DType::F32));
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->ok);
  EXPECT_EQ(r->mismatches, 0u);
  EXPECT_EQ(r->maxAbsError, 0);
}

TEST(Compare, ReportsMaxErrorsAndWhere) {
  HostTensor want = tensor(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 0.01});
  HostTensor got = tensor(DType::F32, {2, 3}, {1, 2, 3.5, 4, 5, 0.02});
  auto r = compareTensors(got, want, {1e-4, 1e-5});
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->ok);
  EXPECT_EQ(r->mismatches, 2u);
  EXPECT_NEAR(r->maxAbsError, 0.5, 1e-9);
  EXPECT_EQ(r->maxAbsIndex, 2u);
  EXPECT_NEAR(r->maxRelError, 1.0, 1e-6);
  EXPECT_EQ(r->maxRelIndex, 5u);
  EXPECT_EQ(r->firstMismatch, 2u);
  std::string text = describeComparison(*r, want);
  EXPECT_NE(text.find("max abs error 0.5 at [0, 2]"), std::string::npos) << text;
  EXPECT_NE(text.find("max rel error 1 at [1, 2]"), std::string::npos) << text;
  EXPECT_NE(text.find("2 of 6 elements outside tolerance"), std::string::npos) << text;
  EXPECT_NE(text.find("first at [0, 2]: got 3.5, expected 3"), std::string::npos) << text;
}

TEST(Compare, ToleranceDependsOnDType) {
  // One f16 ulp near 1 is 2^-10 ~ 1e-3: fine for f16, not for f32.
  HostTensor want = tensor(DType::F32, {1}, {1.0});
  HostTensor got = tensor(DType::F32, {1}, {1.0 + 0x1p-10});
  EXPECT_TRUE(compareTensors(got, want, defaultTolerance(DType::F16))->ok);
  EXPECT_FALSE(compareTensors(got, want, defaultTolerance(DType::F32))->ok);
  HostTensor gotBf = tensor(DType::F32, {1}, {1.0 + 0x1p-6});
  EXPECT_TRUE(compareTensors(gotBf, want, defaultTolerance(DType::BF16))->ok);
  EXPECT_FALSE(compareTensors(gotBf, want, defaultTolerance(DType::F16))->ok);
  // Integers are exact.
  HostTensor wi = tensor(DType::I32, {2}, {5, 6});
  HostTensor gi = tensor(DType::I32, {2}, {5, 7});
  EXPECT_FALSE(compareTensors(gi, wi, defaultTolerance(DType::I32))->ok);
  // The reduction length widens atol by sqrt(K).
  EXPECT_DOUBLE_EQ(defaultTolerance(DType::F32, 4096).atol, 1e-5 * 64);
}

TEST(Compare, NanAndInfinity) {
  HostTensor want = tensor(DType::F32, {3}, {NAN, INFINITY, 1});
  HostTensor same = tensor(DType::F32, {3}, {NAN, INFINITY, 1});
  EXPECT_TRUE(compareTensors(same, want, {1e-3, 1e-3})->ok);
  HostTensor bad = tensor(DType::F32, {3}, {0, -INFINITY, NAN});
  auto r = compareTensors(bad, want, {1e-3, 1e-3});
  EXPECT_EQ(r->mismatches, 3u);
  EXPECT_TRUE(std::isinf(r->maxAbsError));
}

TEST(Compare, MixedDTypesCompareByValue) {
  HostTensor want = tensor(DType::F32, {2}, {0.1, 0.2});
  HostTensor got = tensor(DType::F16, {2}, {0.1, 0.2});
  EXPECT_TRUE(compareTensors(got, want, defaultTolerance(DType::F16))->ok);
}

TEST(Compare, ShapeMismatchIsAnError) {
  auto r = compareTensors(HostTensor(DType::F32, {2, 3}), HostTensor(DType::F32, {3, 2}), {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("f32[2, 3] with f32[3, 2]"), std::string::npos);
}

TEST(Timing, MedianOfSamples) {
  TimingStats odd = summarizeTimings({5, 1, 3});
  EXPECT_EQ(odd.medianMs, 3);
  EXPECT_EQ(odd.minMs, 1);
  EXPECT_EQ(odd.maxMs, 5);
  EXPECT_EQ(odd.meanMs, 3);
  EXPECT_EQ(odd.samplesMs, (std::vector<double>{5, 1, 3}));
  EXPECT_EQ(summarizeTimings({4, 1, 3, 2}).medianMs, 2.5);
  EXPECT_EQ(summarizeTimings({}).medianMs, 0);
}

TEST(EventTimer, PlannedIterationsReachTheTargetWithinTheCap) {
  EventTimer::Options o;
  o.iterations = 50;
  EXPECT_EQ(EventTimer::plannedIterations(o, 0.01), 50); // no target: the count
  o.targetMs = 100;
  EXPECT_EQ(EventTimer::plannedIterations(o, 1.0), 100);   // 100 runs of 1 ms
  EXPECT_EQ(EventTimer::plannedIterations(o, 5.0), 50);    // never below the count
  EXPECT_EQ(EventTimer::plannedIterations(o, 0.01), 1000); // capped
  EXPECT_EQ(EventTimer::plannedIterations(o, 0.0), 50);    // no estimate
  o.maxIterations = 10;
  EXPECT_EQ(EventTimer::plannedIterations(o, 0.01), 50); // the cap never lowers the count
}
