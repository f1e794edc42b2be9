//===- InterpreterHopperTest.cpp - Reference semantics of Hopper ops ------===//
//
// The interpreter runs warpgroups as coroutines that block on barrier
// waits. These tests run the hand-built GEMM of tests/unit/ir against a
// direct computation, then break its protocol one way at a time and expect
// the run to fail with the reason (deadlock, a round the parity wait cannot
// tell apart, too many arrivals), never to compute a result.
//
//===----------------------------------------------------------------------===//
#include "HopperKernels.h"
#include "reference/Interpreter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

using namespace kina;
using namespace kina::ir;

namespace {

Block &role(Kernel &k, size_t which) {
  size_t seen = 0;
  for (Op &op : k.body.ops)
    if (auto *r = op.as<RoleOp>())
      if (seen++ == which)
        return r->body;
  static Block none;
  return none;
}

template <typename T> T *find(Block &b) {
  for (Op &op : b.ops) {
    if (auto *o = op.as<T>())
      return o;
    if (auto *f = op.as<ForOp>())
      if (T *o = find<T>(f->body))
        return o;
  }
  return nullptr;
}

struct Gemm {
  int64_t m, n, k;
  std::vector<reference::Buffer> params;
};

/// Random BF16-exact inputs; the result preallocated with NaN.
Gemm inputs(const Kernel &kernel, int64_t m, int64_t n, int64_t k) {
  Gemm g{m, n, k, {}};
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(-8, 8);
  auto buffer = [&](std::vector<int64_t> shape, DType t, bool fill) {
    reference::Buffer b;
    b.shape = shape;
    b.dtype = t;
    b.data.assign(static_cast<size_t>(shape[0] * shape[1]), NAN);
    if (fill)
      for (double &x : b.data)
        x = small(rng) / 4.0; // exact in BF16 and F16
    return b;
  };
  DType t = kernel.params[0].dtype;
  g.params.push_back(buffer({m, k}, t, true));
  g.params.push_back(buffer({n, k}, t, true));
  g.params.push_back(buffer({m, n}, t, false));
  return g;
}

std::vector<int64_t> dims(const Kernel &kernel, const Gemm &g) {
  std::vector<int64_t> d;
  for (const Dim &dim : kernel.dims)
    d.push_back(dim.name == "M" ? g.m : dim.name == "N" ? g.n : g.k);
  return d;
}

} // namespace

TEST(InterpreterHopper, GemmMatchesDirectProduct) {
  for (DType t : {DType::BF16, DType::F16}) {
    Kernel kernel = fixtures::hopperGemm({t});
    Gemm g = inputs(kernel, 256, 512, 320); // K/64 = 5: the ring wraps
    auto err = reference::execute(kernel, dims(kernel, g), g.params, 2);
    ASSERT_FALSE(err) << *err;
    const auto &a = g.params[0].data, &b = g.params[1].data, &c = g.params[2].data;
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        double want = 0;
        for (int64_t kk = 0; kk < g.k; ++kk)
          want += a[i * g.k + kk] * b[j * g.k + kk];
        ASSERT_EQ(c[i * g.n + j], reference::roundTo(t, want)) << i << ", " << j;
      }
  }
}

TEST(InterpreterHopper, ProducerWaitingItsOwnRoundDeadlocks) {
  Kernel kernel = fixtures::hopperGemm();
  // `wait empty[s] round (k / 3)`: the first pass waits for a release that
  // only follows its own copies.
  auto *wait = find<BarrierWaitOp>(role(kernel, 0));
  ASSERT_NE(wait, nullptr);
  wait->round = wait->round + IndexExpr::constant(1);
  Gemm g = inputs(kernel, 128, 256, 192);
  auto err = reference::execute(kernel, dims(kernel, g), g.params);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("deadlock"), std::string::npos) << *err;
}

TEST(InterpreterHopper, ConsumerReadingARoundEarlyFails) {
  Kernel kernel = fixtures::hopperGemm();
  // `wait full[s] round (k / 3 - 1)`: the parity wait would return on the
  // previous round's completion.
  auto *wait = find<BarrierWaitOp>(role(kernel, 1));
  ASSERT_NE(wait, nullptr);
  wait->round = wait->round - IndexExpr::constant(1);
  Gemm g = inputs(kernel, 128, 256, 192);
  auto err = reference::execute(kernel, dims(kernel, g), g.params);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("cannot tell these rounds apart"), std::string::npos) << *err;
}

TEST(InterpreterHopper, WrongExpectTxNeverCompletes) {
  Kernel kernel = fixtures::hopperGemm();
  auto *arrive = find<BarrierArriveOp>(role(kernel, 0));
  ASSERT_NE(arrive, nullptr);
  ASSERT_GT(arrive->expectTxBytes, 0);
  arrive->expectTxBytes += 1024; // more bytes than the copies deliver
  Gemm g = inputs(kernel, 128, 256, 192);
  auto err = reference::execute(kernel, dims(kernel, g), g.params);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("deadlock"), std::string::npos) << *err;
}

TEST(InterpreterHopper, TooManyArrivalsFail) {
  Kernel kernel = fixtures::hopperGemm();
  for (BarrierDecl &b : kernel.barriers)
    if (b.arrivals == 2)
      b.arrivals = 1; // two consumer warpgroups release each stage
  // K/64 = 7 iterations: the producer comes back to each stage. Each
  // consumer's release completes a phase of its own, so the producer's wait
  // for round r finds r + 2 phases completed.
  Gemm g = inputs(kernel, 128, 256, 448);
  auto err = reference::execute(kernel, dims(kernel, g), g.params);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("cannot tell these rounds apart"), std::string::npos) << *err;
}

namespace {

/// Erases the first op of type T (depth first, in program order); false when
/// there is none.
template <typename T> bool eraseFirst(Block &b) {
  for (size_t i = 0; i < b.ops.size(); ++i) {
    if (b.ops[i].as<T>()) {
      b.ops.erase(b.ops.begin() + static_cast<std::ptrdiff_t>(i));
      return true;
    }
    if (auto *f = b.ops[i].as<ForOp>())
      if (eraseFirst<T>(f->body))
        return true;
  }
  return false;
}

/// Elements of c that differ from the direct product a * transpose(b).
int64_t wrongElements(const Gemm &g, DType t) {
  const auto &a = g.params[0].data, &b = g.params[1].data, &c = g.params[2].data;
  int64_t wrong = 0;
  for (int64_t i = 0; i < g.m; ++i)
    for (int64_t j = 0; j < g.n; ++j) {
      double want = 0;
      for (int64_t kk = 0; kk < g.k; ++kk)
        want += a[i * g.k + kk] * b[j * g.k + kk];
      wrong += c[i * g.n + j] != reference::roundTo(t, want);
    }
  return wrong;
}

} // namespace

// The persistent GEMM on 3 blocks: 4 tiles of 128 x 256, so block 0 runs
// tiles 0 and 3 and its ring counter continues across them (K/64 = 5), the
// epilogue goes through the shared stage and a TMA store per tile.
TEST(InterpreterHopper, PersistentGemmMatchesDirectProduct) {
  for (DType t : {DType::BF16, DType::F16}) {
    Kernel kernel = fixtures::hopperGemmPersistent({t, 3, 1, true});
    Gemm g = inputs(kernel, 256, 512, 320);
    auto err = reference::execute(kernel, dims(kernel, g), g.params, 2);
    ASSERT_FALSE(err) << *err;
    EXPECT_EQ(wrongElements(g, t), 0) << dtypeName(t);
  }
}

// A TMA store reads its shared stage when a tma_store_wait retires its group:
// without the wait before the epilogue rewrites the stage, block 0's first
// tile is stored with its second tile's values, as the GPU's asynchronous
// read may do.
TEST(InterpreterHopper, TmaStoreReadsItsStageWhenItsGroupRetires) {
  Kernel kernel = fixtures::hopperGemmPersistent({DType::BF16, 3, 1, true});
  ASSERT_TRUE(eraseFirst<TmaStoreWaitOp>(role(kernel, 1)));
  Gemm g = inputs(kernel, 256, 512, 320);
  auto err = reference::execute(kernel, dims(kernel, g), g.params, 2);
  ASSERT_FALSE(err) << *err;
  EXPECT_GT(wrongElements(g, DType::BF16), 0);
}

// Every store completes by the end of its warpgroup (the compiler's final
// full wait), also without the role's last tma_store_wait.
TEST(InterpreterHopper, TmaStoresCompleteAtTheEndOfTheWarpgroup) {
  Kernel kernel = fixtures::hopperGemmPersistent({DType::BF16, 3, 1, true});
  Block &consumer = role(kernel, 1);
  ASSERT_TRUE(!consumer.ops.empty() && consumer.ops.back().as<TmaStoreWaitOp>());
  consumer.ops.pop_back();
  Gemm g = inputs(kernel, 256, 512, 320);
  auto err = reference::execute(kernel, dims(kernel, g), g.params, 2);
  ASSERT_FALSE(err) << *err;
  EXPECT_EQ(wrongElements(g, DType::BF16), 0);
}

namespace {

/// Every op of type T (depth first, through loops, roles and ifs).
template <typename T> void forEach(Block &b, const std::function<void(T &)> &f) {
  for (Op &op : b.ops) {
    if (auto *o = op.as<T>())
      f(*o);
    if (auto *l = op.as<ForOp>())
      forEach<T>(l->body, f);
    else if (auto *r = op.as<RoleOp>())
      forEach<T>(r->body, f);
    else if (auto *i = op.as<IfOp>()) {
      forEach<T>(i->thenBody, f);
      forEach<T>(i->elseBody, f);
    }
  }
}

} // namespace

// The 2x1-cluster GEMM (s3.md "Cluster multicast"): the CTAs of a cluster
// run together, a multicast box lands in both CTAs and counts on both
// barriers, a cluster arrival releases the stage in both. 4 CTAs (2
// clusters) over 512 x 512: 8 tiles, 2 per CTA, K/64 = 5 (the ring wraps
// inside and across tiles); B shared, and A shared (N-adjacent tiles).
TEST(InterpreterHopper, ClusterMulticastGemmMatchesDirectProduct) {
  for (auto cfg : {fixtures::ClusterGemmConfig{DType::BF16, 4, false},
                   fixtures::ClusterGemmConfig{DType::F16, 4, false},
                   fixtures::ClusterGemmConfig{DType::BF16, 4, true},
                   fixtures::ClusterGemmConfig{DType::BF16, 2, false}}) {
    Kernel kernel = fixtures::hopperGemmCluster(cfg);
    Gemm g = inputs(kernel, 512, 512, 320);
    auto err = reference::execute(kernel, dims(kernel, g), g.params, 2);
    ASSERT_FALSE(err) << kernel.name << ": " << *err;
    EXPECT_EQ(wrongElements(g, cfg.input), 0) << kernel.name;
  }
}

// Without `multicast` each CTA fills only its half of the B stage and its
// full barrier expects bytes that never come: a deadlock, not a result.
TEST(InterpreterHopper, ClusterCopyWithoutMulticastDeadlocks) {
  Kernel kernel = fixtures::hopperGemmCluster({DType::BF16, 4, false});
  forEach<TmaLoadOp>(kernel.body, [](TmaLoadOp &t) { t.multicast = false; });
  Gemm g = inputs(kernel, 512, 512, 320);
  auto err = reference::execute(kernel, dims(kernel, g), g.params, 2);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("deadlock"), std::string::npos) << *err;
}

// Local releases of a stage that counts 4 (2 consumers x 2 CTAs): the
// producer waits for arrivals from the peer that never come.
TEST(InterpreterHopper, ClusterReleaseWithoutClusterArrivalDeadlocks) {
  Kernel kernel = fixtures::hopperGemmCluster({DType::BF16, 4, false});
  forEach<BarrierArriveOp>(kernel.body, [](BarrierArriveOp &a) { a.cluster = false; });
  Gemm g = inputs(kernel, 512, 512, 448);
  auto err = reference::execute(kernel, dims(kernel, g), g.params, 2);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("deadlock"), std::string::npos) << *err;
}

// Cluster arrivals on a stage that counts 2: each CTA's stage gets 4
// arrivals per round, more than its count.
TEST(InterpreterHopper, ClusterArrivalsOverTheCountFail) {
  Kernel kernel = fixtures::hopperGemmCluster({DType::BF16, 4, false});
  for (BarrierDecl &b : kernel.barriers)
    if (b.arrivals == 4)
      b.arrivals = 2;
  Gemm g = inputs(kernel, 512, 512, 448);
  auto err = reference::execute(kernel, dims(kernel, g), g.params, 2);
  ASSERT_TRUE(err);
  EXPECT_TRUE(err->find("more arrivals") != std::string::npos ||
              err->find("cannot tell these rounds apart") != std::string::npos)
      << *err;
}
