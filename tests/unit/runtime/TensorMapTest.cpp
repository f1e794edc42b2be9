//===- TensorMapTest.cpp - Tensor-map rules and parameters, no GPU --------===//
//
// checkTensorMap() against cuTensorMapEncodeTiled's documented rules, with
// the arguments worked out by hand; tensor_map parameters through the launch
// metadata, the launch guard and packArguments (which refuses to guess
// without an encoder).
//
//===----------------------------------------------------------------------===//
#include "runtime/TensorMap.h"
#include "runtime/LaunchGuard.h"

#include <gtest/gtest.h>

using namespace kina::runtime;

namespace {

TensorMapRequest gemmA() {
  TensorMapRequest r;
  r.tensor = "a";
  r.dtype = DType::BF16;
  r.address = 0x7f0000000000ull;
  r.shape = {4096, 4096}; // [M, K]
  r.box = {128, 64};
  return r;
}

std::string message(const Result<TensorMapEncoding> &r) {
  return r ? std::string() : r.error().message;
}

} // namespace

TEST(TensorMap, GemmOperandEncodesInnerFirst) {
  auto e = checkTensorMap(gemmA());
  ASSERT_TRUE(e) << message(e);
  EXPECT_EQ(e->dataType, cuda::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(e->rank, 2u);
  EXPECT_EQ(e->globalDim, (std::vector<unsigned long long>{4096, 4096}));
  EXPECT_EQ(e->globalStrides, (std::vector<unsigned long long>{4096 * 2})); // lda * 2 bytes
  EXPECT_EQ(e->boxDim, (std::vector<unsigned>{64, 128}));                   // {K box, M box}
  EXPECT_EQ(e->elementStrides, (std::vector<unsigned>{1, 1}));
  EXPECT_EQ(e->swizzle, cuda::CU_TENSOR_MAP_SWIZZLE_128B);
  // A non-square tensor: B [N, K] = [512, 192]: dims {192, 512}, stride 384 B.
  TensorMapRequest b = gemmA();
  b.shape = {512, 192};
  b.box = {256, 64};
  auto eb = checkTensorMap(b);
  ASSERT_TRUE(eb) << message(eb);
  EXPECT_EQ(eb->globalDim, (std::vector<unsigned long long>{192, 512}));
  EXPECT_EQ(eb->globalStrides, (std::vector<unsigned long long>{384}));
  EXPECT_EQ(eb->boxDim, (std::vector<unsigned>{64, 256}));
  EXPECT_NE(eb->describe(b).find("globalDim={192, 512}, globalStrides={384}, boxDim={64, 256}"),
            std::string::npos)
      << eb->describe(b);
}

TEST(TensorMap, RulesAreCheckedBeforeTheDriver) {
  struct Case {
    std::function<void(TensorMapRequest &)> mutate;
    std::string expect;
  };
  std::vector<Case> cases = {
      {[](TensorMapRequest &r) { r.address += 8; }, "its address is not 16-byte aligned"},
      {[](TensorMapRequest &r) { r.shape = {4096, 4100}; },
       "the stride of dimension 0 is 8200 bytes, not a multiple of 16 (make the row length a "
       "multiple of 8 elements)"},
      {[](TensorMapRequest &r) { r.box = {512, 64}; },
       "box extent 512 of dimension 0 is outside 1..256"},
      {[](TensorMapRequest &r) { r.box = {128, 32}; },
       "the inner box is 64 bytes; the 128-byte swizzle needs exactly 128"},
      {[](TensorMapRequest &r) {
         r.box = {128, 4};
         r.swizzle128B = false;
       },
       "the inner box is 8 bytes, not a multiple of 16"},
      {[](TensorMapRequest &r) { r.shape = {64, 32}; }, "is larger than the tensor [64, 32]"},
      {[](TensorMapRequest &r) { r.shape = {0, 64}; },
       "extent 0 of dimension 0 is outside 1..2^32"},
      {[](TensorMapRequest &r) { r.dtype = DType::I64; }, "element type"},
      {[](TensorMapRequest &r) { r.box = {64}; }, "has a different rank"},
      {[](TensorMapRequest &r) {
         r.shape = {1, 1, 1, 1, 1, 64};
         r.box = {1, 1, 1, 1, 1, 64};
       },
       "rank 6 is outside 1..5"},
  };
  for (const Case &c : cases) {
    TensorMapRequest r = gemmA();
    c.mutate(r);
    auto e = checkTensorMap(r);
    ASSERT_FALSE(e) << c.expect;
    EXPECT_EQ(e.error().kind, ErrorKind::TensorMapInvalid);
    EXPECT_EQ(e.error().diagId(), kina::DiagId::TensorMapInvalid);
    EXPECT_NE(e.error().message.find("tensor `a` cannot be read through a TMA tensor map: "),
              std::string::npos);
    EXPECT_NE(e.error().message.find(c.expect), std::string::npos) << e.error().message;
  }
}

TEST(TensorMap, LaunchMetadataParameters) {
  const char *json = R"({
    "schema": "kina.launch/1", "kernel": "k", "entry": "k", "target": "sm_90a",
    "dims": ["M"],
    "params": [
      {"name": "a", "kind": "tensor", "dtype": "BF16", "shape": ["M", "64"], "abi": "ptr",
       "writable": false, "result": false},
      {"name": "out", "kind": "tensor", "dtype": "BF16", "shape": ["M", "64"], "abi": "ptr",
       "writable": true, "result": true},
      {"name": "M", "kind": "dim", "abi": "i32"},
      {"name": "a.map64x64", "kind": "tensor_map", "tensor": "a", "dtype": "BF16",
       "box": [64, 64], "swizzle": "128B", "abi": "tensormap"}
    ],
    "grid": [{"text": "M / 64", "expr": {"op": "div", "lhs": {"dim": "M"}, "rhs": {"const": 64}}},
             {"text": "1", "expr": {"const": 1}}, {"text": "1", "expr": {"const": 1}}],
    "block": [128, 1, 1], "static_shared_bytes": 0, "dynamic_shared_bytes": 9344
  })";
  auto spec = parseLaunchSpec(json, "k.launch.json");
  ASSERT_TRUE(spec) << spec.error().message;
  ASSERT_EQ(spec->params.size(), 4u);
  EXPECT_EQ(spec->params[3].kind, ParamKind::TensorMap);
  EXPECT_EQ(spec->params[3].tensor, "a");
  EXPECT_EQ(spec->params[3].box, (std::vector<std::int64_t>{64, 64}));
  auto plan = checkDims(*spec, DimValues{{"M", 256}});
  ASSERT_TRUE(plan) << plan.error().message;
  const ParamPlan &m = plan->params[3];
  EXPECT_EQ(m.tensorIndex, 0u);
  EXPECT_EQ(m.shape, (std::vector<std::int64_t>{256, 64}));
  // Without an encoder the map cannot be passed: an error, never a garbage argument.
  auto args = packArguments(*plan, {nullptr, nullptr});
  ASSERT_FALSE(args);
  EXPECT_NE(args.error().message.find("needs a TensorMapCache"), std::string::npos);
  // A map naming no tensor is malformed metadata.
  std::string bad = json;
  bad.replace(bad.find(R"("tensor": "a")"), 13, R"("tensor": "x")");
  auto badSpec = parseLaunchSpec(bad, "k.launch.json");
  ASSERT_FALSE(badSpec);
  EXPECT_NE(badSpec.error().message.find("`x` is not an earlier tensor parameter"),
            std::string::npos)
      << badSpec.error().message;
}
