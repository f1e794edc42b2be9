//===- LaunchGuardTest.cpp - The launch guard refuses bad launches --------===//
//
// Runs without a GPU: devices are DeviceInfo values built by hand.
//
//===----------------------------------------------------------------------===//
#include "GemmFixture.h"
#include "runtime/LaunchGuard.h"
#include "runtime/TargetCompat.h"

#include <cstring>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace kina::runtime;

static DeviceInfo h200() {
  DeviceInfo d;
  d.name = "NVIDIA H200";
  d.ccMajor = 9;
  d.ccMinor = 0;
  d.smCount = 132;
  d.driverVersion = 13000;
  d.maxSharedPerBlockOptin = 227 * 1024;
  return d;
}

static DeviceInfo a100() {
  DeviceInfo d = h200();
  d.name = "NVIDIA A100-SXM4-80GB";
  d.ccMajor = 8;
  d.ccMinor = 0;
  d.maxSharedPerBlockOptin = 163 * 1024;
  return d;
}

static LaunchSpec gemm() {
  auto s = parseLaunchSpec(kGemmTcLaunchJson, "gemm_tc.launch.json");
  EXPECT_TRUE(s);
  return s.take();
}

TEST(LaunchGuard, AcceptsValidDimsAndComputesThePlan) {
  LaunchSpec s = gemm();
  auto plan = checkLaunch(s, {{"M", 1024}, {"N", 384}, {"K", 64}}, h200());
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->config.grid, (Dim3{8, 3, 1}));
  EXPECT_EQ(plan->config.block, (Dim3{128, 1, 1}));
  ASSERT_EQ(plan->params.size(), 6u);
  EXPECT_EQ(plan->params[0].shape, (std::vector<std::int64_t>{1024, 64}));
  EXPECT_EQ(plan->params[0].bytes, 1024u * 64 * 2);
  EXPECT_EQ(plan->params[2].bytes, 1024u * 384 * 4);
  EXPECT_EQ(plan->params[5].value, 64);
  EXPECT_EQ(*plan->flops, 2.0 * 1024 * 384 * 64);
  EXPECT_EQ(plan->reductionLength, 64);
}

TEST(LaunchGuard, RefusesM1000NamingTheClause) {
  LaunchSpec s = gemm();
  auto plan = checkDims(s, {{"M", 1000}, {"N", 128}, {"K", 16}});
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().kind, ErrorKind::RequiresFailed);
  EXPECT_EQ(plan.error().message,
            "kernel `gemm_tc` cannot launch: requires (M mod 128 = 0) fails: M = 1000, "
            "1000 mod 128 = 104");
  EXPECT_EQ(plan.error().diagId(), kina::DiagId::LaunchRequiresFailed);
}

// The PTX computes element offsets in 32 bits: a tensor of 2^31 elements or
// more would wrap them (newcomer r_big_u8). Refused, naming the tensor and its
// element count; one element fewer than 2^31 per tensor is accepted.
TEST(LaunchGuard, RefusesTensorsOver32BitElementOffsets) {
  auto plan = checkDims(gemm(), {{"M", 1 << 24}, {"N", 128}, {"K", 128}});
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().diagId(), kina::DiagId::InvalidLaunchDims);
  EXPECT_NE(plan.error().message.find("tensor `a` has 2147483648 elements; a tensor has at most "
                                      "2147483647 (2^31 - 1)"),
            std::string::npos)
      << plan.error().message;
  auto fits = checkDims(gemm(), {{"M", 1 << 23}, {"N", 128}, {"K", 128}});
  EXPECT_TRUE(fits) << fits.error().message;
}

TEST(LaunchGuard, ReportsEveryFailingClause) {
  auto plan = checkDims(gemm(), {{"M", 1000}, {"N", 128}, {"K", 24}});
  ASSERT_FALSE(plan);
  const std::string &m = plan.error().message;
  EXPECT_NE(m.find("requires (M mod 128 = 0) fails: M = 1000, 1000 mod 128 = 104"),
            std::string::npos);
  EXPECT_NE(m.find("\nrequires (K mod 16 = 0) fails: K = 24, 24 mod 16 = 8"), std::string::npos);
  EXPECT_EQ(m.find("N mod 128"), std::string::npos);
}

// A later formula that divides by a dim the failed requirement was about
// (the index-width requirements of codegen/IndexWidth.h: N / 256) cannot be
// evaluated; the refusal names the failed requirement, not the division.
TEST(LaunchGuard, AFailedRequirementOutranksALaterInexactDivision) {
  LaunchSpec s = gemm();
  s.requirements = {{DimExpr::parse("N").take(), 256, 0, "", std::nullopt},
                    {DimExpr::parse("N/256").take(), 1, 0, "", std::nullopt}};
  auto plan = checkDims(s, {{"M", 128}, {"N", 384}, {"K", 16}});
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().kind, ErrorKind::RequiresFailed);
  EXPECT_NE(plan.error().message.find("N mod 256 = 0) fails"), std::string::npos)
      << plan.error().message;
  EXPECT_EQ(plan.error().message.find("not exact"), std::string::npos);
  // Alone, the inexact division is still an error of its own.
  s.requirements.erase(s.requirements.begin());
  plan = checkDims(s, {{"M", 128}, {"N", 384}, {"K", 16}});
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("not exact"), std::string::npos);
}

TEST(LaunchGuard, CompoundRequiresShowsTheValue) {
  LaunchSpec s = gemm();
  s.requirements = {{DimExpr::parse("M+N").take(), 256, 0, "", std::nullopt}};
  auto plan = checkDims(s, {{"M", 128}, {"N", 384}, {"K", 16}});
  ASSERT_TRUE(plan) << plan.error().message;
  plan = checkDims(s, {{"M", 128}, {"N", 512}, {"K", 16}});
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().message, "kernel `gemm_tc` cannot launch: requires (M+N mod 256 = 0) "
                                  "fails: M = 128, N = 512, M+N = 640, 640 mod 256 = 128");
}

TEST(LaunchGuard, RefusesSm90aCubinOnSm80Device) {
  LaunchSpec s = gemm();
  auto plan = checkLaunch(s, {{"M", 128}, {"N", 128}, {"K", 16}}, a100());
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().kind, ErrorKind::TargetMismatch);
  EXPECT_EQ(plan.error().message,
            "kernel `gemm_tc` was compiled for sm_90a, which runs on compute capability 9.0 "
            "only; device 0 (NVIDIA A100-SXM4-80GB) is compute capability 8.0 (sm_80): rebuild "
            "with --target auto or --target sm_80");
}

TEST(LaunchGuard, Sm80CubinDoesNotRunOnHopper) {
  LaunchSpec s = gemm();
  s.target = "sm_80";
  EXPECT_TRUE(checkLaunch(s, {{"M", 128}, {"N", 128}, {"K", 16}}, a100()));
  auto plan = checkLaunch(s, {{"M", 128}, {"N", 128}, {"K", 16}}, h200());
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().kind, ErrorKind::TargetMismatch);
}

TEST(LaunchGuard, TargetCompatibilityRule) {
  auto t = [](const char *n) { return *parseCubinTarget(n); };
  EXPECT_TRUE(cubinRunsOn(t("sm_80"), 8, 0));
  EXPECT_TRUE(cubinRunsOn(t("sm_80"), 8, 6));
  EXPECT_FALSE(cubinRunsOn(t("sm_86"), 8, 0));
  EXPECT_FALSE(cubinRunsOn(t("sm_80"), 9, 0));
  EXPECT_TRUE(cubinRunsOn(t("sm_90a"), 9, 0));
  EXPECT_FALSE(cubinRunsOn(t("sm_90a"), 10, 0));
  EXPECT_TRUE(cubinRunsOn(t("sm_100f"), 10, 3));
  EXPECT_FALSE(cubinRunsOn(t("sm_100a"), 10, 3));
  EXPECT_EQ(t("sm_120").major, 12);
  EXPECT_FALSE(parseCubinTarget("compute_90"));
  EXPECT_FALSE(parseCubinTarget("sm_"));
  EXPECT_FALSE(parseCubinTarget("sm_9x"));
}

TEST(LaunchGuard, DimsMustBeCompleteKnownAndPositive) {
  LaunchSpec s = gemm();
  auto p = checkDims(s, {{"M", 128}, {"N", 128}});
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().kind, ErrorKind::InvalidDims);
  EXPECT_NE(p.error().message.find("--dims lacks K"), std::string::npos);
  p = checkDims(s, {{"M", 128}, {"N", 128}, {"K", 16}, {"Q", 1}});
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("has no dim `Q` (its dims: M, N, K)"), std::string::npos);
  p = checkDims(s, {{"M", 0}, {"N", 128}, {"K", 16}});
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("M = 0 must be positive"), std::string::npos);
}

TEST(LaunchGuard, RefusesDeviceLimits) {
  LaunchSpec s = gemm();
  s.dynamicSharedBytes = 200 * 1024;
  auto p = checkLaunch(s, {{"M", 128}, {"N", 128}, {"K", 16}}, h200());
  ASSERT_TRUE(p) << p.error().message; // 200 KiB + 8 KiB static fits 227 KiB
  s.target = "sm_80";
  p = checkLaunch(s, {{"M", 128}, {"N", 128}, {"K", 16}}, a100());
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().kind, ErrorKind::ResourceLimit);
  EXPECT_NE(p.error().message.find("needs 212992 bytes of shared memory per block"),
            std::string::npos);

  LaunchSpec big = gemm();
  big.block = {2048, 1, 1};
  p = checkLaunch(big, {{"M", 128}, {"N", 128}, {"K", 16}}, h200());
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().kind, ErrorKind::ResourceLimit);

  LaunchSpec tall = gemm();
  tall.grid[1] = DimExpr::parse("N").take();
  tall.requirements.clear();
  p = checkLaunch(tall, {{"M", 128}, {"N", 70000}, {"K", 16}}, h200());
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("grid y = `N` = 70000 exceeds the device limit 65535"),
            std::string::npos);
}

TEST(LaunchGuard, InexactGridFormulaWithoutRequiresIsRefused) {
  LaunchSpec s = gemm();
  s.requirements.clear();
  auto p = checkDims(s, {{"M", 1000}, {"N", 128}, {"K", 16}});
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().kind, ErrorKind::InvalidDims);
  EXPECT_NE(p.error().message.find("grid x: formula `M/128`: 1000 / 128 is not exact"),
            std::string::npos);
}

TEST(LaunchGuard, ParseDimsArgument) {
  auto d = parseDimsArgument("M=1024, N=512,K=64");
  ASSERT_TRUE(d);
  EXPECT_EQ(*d, (DimValues{{"M", 1024}, {"N", 512}, {"K", 64}}));
  for (const char *bad : {"M", "M=", "M=1,,N=2", "M=1;N=2", "1=2", "M=1,M=2", "M=-3",
                          "M=99999999999999999999"}) {
    auto r = parseDimsArgument(bad);
    EXPECT_FALSE(r) << bad;
    if (!r) {
      EXPECT_EQ(r.error().kind, ErrorKind::InvalidDims);
    }
  }
}

TEST(LaunchGuard, PackArgumentsFollowsParameterOrder) {
  auto plan = checkDims(gemm(), {{"M", 128}, {"N", 256}, {"K", 32}});
  ASSERT_TRUE(plan);
  // The plan is self-contained: it outlives the LaunchSpec it came from.
  EXPECT_EQ(plan->params[2].name, "out");
  EXPECT_EQ(plan->params[2].role, ParamRole::Output);
  // Without a device the buffers are null DeviceBuffers; sizes must match.
  std::vector<DeviceBuffer> none(3);
  auto args = packArguments(*plan, {&none[0], &none[1], &none[2]});
  ASSERT_FALSE(args);
  EXPECT_NE(args.error().message.find("device buffer for `a` has 0 bytes, expected 8192"),
            std::string::npos)
      << args.error().message;
  args = packArguments(*plan, {&none[0]});
  ASSERT_FALSE(args);
}

TEST(LaunchGuard, RefusesM1000WithCodegensConditionForm) {
  auto s = parseLaunchSpec(kGemmTcCodegenJson, "codegen.launch.json");
  ASSERT_TRUE(s) << s.error().message;
  auto plan = checkDims(*s, {{"M", 1000}, {"N", 128}, {"K", 16}});
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().kind, ErrorKind::RequiresFailed);
  EXPECT_EQ(plan.error().message,
            "kernel `gemm_tc` cannot launch: requires (M mod 128 = 0) fails: M = 1000, "
            "1000 mod 128 = 104");
  auto ok = checkLaunch(*s, {{"M", 256}, {"N", 128}, {"K", 32}}, h200());
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->config.grid, (Dim3{2, 1, 1}));
}

TEST(LaunchGuard, GeneralConditionFromCodegen) {
  // `requires (K >= 64)` of the pipelined GEMMs arrives as a condition tree.
  nlohmann::json j = nlohmann::json::parse(kGemmTcCodegenJson);
  j["requires"].push_back(nlohmann::json::parse(
      R"({"text": "K >= 64", "expr": {"op": "ge", "lhs": {"dim": "K"}, "rhs": {"const": 64}}})"));
  auto s = launchSpecFromJson(j);
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_TRUE(s->requirements[3].condition);
  auto plan = checkDims(*s, {{"M", 128}, {"N", 128}, {"K", 32}});
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().message,
            "kernel `gemm_tc` cannot launch: requires (K >= 64) fails: K = 32");
  EXPECT_TRUE(checkDims(*s, {{"M", 128}, {"N", 128}, {"K", 64}}));
}

// Scalar kernel parameters `(eps : F32)` (shared decision 2): the codegen
// metadata form is read, the value is packed by value with its width, and a
// random run's default is seeded, neither 0 nor 1.
TEST(LaunchGuard, ScalarParametersArePackedByValue) {
  const char *json = R"({
    "schema": "kina.launch/1", "kernel": "shift", "entry": "shift", "target": "sm_80",
    "dims": ["M"],
    "params": [
      {"name": "x", "kind": "tensor", "abi": "ptr", "dtype": "F32", "shape": ["M"],
       "writable": false, "result": false},
      {"name": "eps", "kind": "scalar", "abi": "f32", "dtype": "F32"},
      {"name": "h", "kind": "scalar", "abi": "f16", "dtype": "F16"},
      {"name": "out", "kind": "tensor", "abi": "ptr", "dtype": "F32", "shape": ["M"],
       "writable": true, "result": true},
      {"name": "M", "kind": "dim", "abi": "i32"}],
    "grid": [{"text": "1", "expr": {"const": 1}}, {"text": "1", "expr": {"const": 1}},
             {"text": "1", "expr": {"const": 1}}],
    "block": [32, 1, 1]})";
  auto spec = parseLaunchSpec(json, "shift.launch.json");
  ASSERT_TRUE(spec) << spec.error().message;
  ASSERT_EQ(spec->params.size(), 5u);
  EXPECT_EQ(spec->params[1].kind, ParamKind::Scalar);
  EXPECT_EQ(spec->params[1].scalarType, "f32");
  EXPECT_EQ(spec->params[2].scalarType, "f16");
  auto plan = checkDims(*spec, DimValues{{"M", 64}});
  ASSERT_TRUE(plan) << plan.error().message;
  plan->params[1].scalar = 1.5;
  plan->params[2].scalar = -2.0;
  // Packing needs the tensor buffers; without them it refuses, naming x.
  auto args = packArguments(*plan, {});
  ASSERT_FALSE(args);
  EXPECT_NE(args.error().message.find("`x`"), std::string::npos);

  double d = defaultScalarValue("f32", 1, 1);
  EXPECT_GE(d, 0.5);
  EXPECT_LT(d, 1.5);
  EXPECT_NE(d, 1.0);
  EXPECT_EQ(defaultScalarValue("f32", 1, 1), d); // deterministic
  EXPECT_NE(defaultScalarValue("f32", 2, 1), d); // seeded
  double i = defaultScalarValue("i32", 1, 1);
  EXPECT_GE(i, 1.0);
  EXPECT_LE(i, 8.0);

  auto given = parseScalarsArgument("eps=1e-5, h = 2");
  ASSERT_TRUE(given) << given.error().message;
  EXPECT_DOUBLE_EQ(given->at("eps"), 1e-5);
  EXPECT_DOUBLE_EQ(given->at("h"), 2.0);
  EXPECT_FALSE(parseScalarsArgument("eps"));
  EXPECT_FALSE(parseScalarsArgument("eps=abc"));
  EXPECT_FALSE(parseScalarsArgument("eps=1,eps=2"));
}

// Integer scalars are rounded to the nearest integer and wrap to their width,
// as the interpreter reads them (reference/Interpreter.cpp, roundTo), so
// `--scalars s=3e9` gives the GPU and the interpreter the same I32. Regression:
// they were C++ casts, undefined for out-of-range values (s = 3e9 packed
// INT32_MIN on x86, the interpreter wrapped it) and truncating (b = 255.9 was
// 255 on the GPU, 0 in the interpreter).
TEST(LaunchGuard, IntegerScalarsRoundAndWrapAsTheInterpreterReadsThem) {
  const char *json = R"({
    "schema": "kina.launch/1", "kernel": "k", "entry": "k", "target": "sm_80", "dims": [],
    "params": [
      {"name": "a", "kind": "scalar", "abi": "i32"},
      {"name": "b", "kind": "scalar", "abi": "i32"},
      {"name": "c", "kind": "scalar", "abi": "u8"},
      {"name": "d", "kind": "scalar", "abi": "u8"},
      {"name": "e", "kind": "scalar", "abi": "i8"},
      {"name": "f", "kind": "scalar", "abi": "i8"},
      {"name": "g", "kind": "scalar", "abi": "i64"},
      {"name": "h", "kind": "scalar", "abi": "i64"}],
    "grid": [{"text": "1", "expr": {"const": 1}}, {"text": "1", "expr": {"const": 1}},
             {"text": "1", "expr": {"const": 1}}],
    "block": [32, 1, 1]})";
  auto spec = parseLaunchSpec(json, "k.launch.json");
  ASSERT_TRUE(spec) << spec.error().message;
  auto plan = checkDims(*spec, DimValues{});
  ASSERT_TRUE(plan) << plan.error().message;
  const double given[] = {3e9, 3.5, 300, 255.9, 200, -0.5, 2.5, 1e300};
  for (int i = 0; i < 8; ++i)
    plan->params[i].scalar = given[i];
  auto args = packArguments(*plan, {});
  ASSERT_TRUE(args) << args.error().message;
  auto ptrs = args->pointers();
  ASSERT_EQ(ptrs.size(), 8u);
  std::int32_t i32[2];
  std::memcpy(&i32[0], ptrs[0], 4);
  std::memcpy(&i32[1], ptrs[1], 4);
  EXPECT_EQ(i32[0], -1294967296); // 3e9 - 2^32
  EXPECT_EQ(i32[1], 4);           // ties to even, as nearbyint
  std::uint8_t u8[2];
  std::memcpy(&u8[0], ptrs[2], 1);
  std::memcpy(&u8[1], ptrs[3], 1);
  EXPECT_EQ(u8[0], 44); // 300 - 256
  EXPECT_EQ(u8[1], 0);  // 255.9 rounds to 256, which wraps
  std::int8_t i8[2];
  std::memcpy(&i8[0], ptrs[4], 1);
  std::memcpy(&i8[1], ptrs[5], 1);
  EXPECT_EQ(i8[0], -56);
  EXPECT_EQ(i8[1], 0);
  std::int64_t i64[2];
  std::memcpy(&i64[0], ptrs[6], 8);
  std::memcpy(&i64[1], ptrs[7], 8);
  EXPECT_EQ(i64[0], 2);
  EXPECT_EQ(i64[1], INT64_MAX); // saturates (I64 values are exact to 2^53 only)
}

TEST(LaunchGuard, ScalarValuesTakeTheirTypesWidth) {
  const char *json = R"({
    "schema": "kina.launch/1", "kernel": "k", "entry": "k", "target": "sm_80", "dims": ["M"],
    "params": [
      {"name": "a", "kind": "scalar", "abi": "f32"},
      {"name": "b", "kind": "scalar", "abi": "f16"},
      {"name": "c", "kind": "scalar", "abi": "u8"},
      {"name": "M", "kind": "dim", "abi": "i32"}],
    "grid": [{"text": "1", "expr": {"const": 1}}, {"text": "1", "expr": {"const": 1}},
             {"text": "1", "expr": {"const": 1}}],
    "block": [32, 1, 1]})";
  auto spec = parseLaunchSpec(json, "k.launch.json");
  ASSERT_TRUE(spec) << spec.error().message;
  auto plan = checkDims(*spec, DimValues{{"M", 7}});
  ASSERT_TRUE(plan) << plan.error().message;
  plan->params[0].scalar = 1.5;
  plan->params[1].scalar = -2.0;
  plan->params[2].scalar = 200;
  auto args = packArguments(*plan, {});
  ASSERT_TRUE(args) << args.error().message;
  auto ptrs = args->pointers();
  ASSERT_EQ(ptrs.size(), 4u);
  float f;
  std::memcpy(&f, ptrs[0], 4);
  EXPECT_EQ(f, 1.5f);
  std::uint16_t h;
  std::memcpy(&h, ptrs[1], 2);
  EXPECT_EQ(h, 0xC000); // -2.0 in IEEE half
  std::uint8_t u;
  std::memcpy(&u, ptrs[2], 1);
  EXPECT_EQ(u, 200);
  std::int32_t m;
  std::memcpy(&m, ptrs[3], 4);
  EXPECT_EQ(m, 7);

  auto bad = parseLaunchSpec(std::string(json).replace(std::string(json).find("\"u8\""), 4, "\"q9\""),
                             "k.launch.json");
  EXPECT_FALSE(bad);
}
