//===- LaunchSpecTest.cpp - Launch metadata JSON: round trip and errors ---===//
#include "GemmFixture.h"
#include "runtime/LaunchSpec.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace kina::runtime;

TEST(LaunchSpec, ParsesGemmTc) {
  auto s = parseLaunchSpec(kGemmTcLaunchJson, "gemm_tc.launch.json");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->kernel, "gemm_tc");
  EXPECT_EQ(s->target, "sm_90a");
  EXPECT_EQ(s->dims, (std::vector<std::string>{"M", "N", "K"}));
  EXPECT_EQ(s->grid[0].text(), "M/128");
  EXPECT_EQ(s->grid[2].text(), "1");
  EXPECT_EQ(s->block, (Dim3{128, 1, 1}));
  EXPECT_EQ(s->staticSharedBytes, 8192);
  ASSERT_EQ(s->params.size(), 6u);
  EXPECT_EQ(s->params[0].dtype, DType::F16);
  EXPECT_EQ(s->params[2].role, ParamRole::Output);
  EXPECT_EQ(s->params[2].shape[1].text(), "N");
  EXPECT_EQ(s->params[3].kind, ParamKind::Dim);
  EXPECT_EQ(s->params[3].value.text(), "M");
  ASSERT_EQ(s->requirements.size(), 3u);
  EXPECT_EQ(s->requirements[2].modulus, 16);
  EXPECT_EQ(s->requirements[2].clause(), "requires (K mod 16 = 0)");
  ASSERT_TRUE(s->flops);
  EXPECT_EQ(s->flops->text(), "2*M*N*K");
}

TEST(LaunchSpec, RoundTripsThroughJson) {
  auto s = parseLaunchSpec(kGemmTcLaunchJson, "x");
  ASSERT_TRUE(s);
  std::string text = launchSpecToText(*s);
  auto again = parseLaunchSpec(text, "again");
  ASSERT_TRUE(again) << again.error().message << "\n" << text;
  EXPECT_EQ(launchSpecToText(*again), text);
  EXPECT_EQ(launchSpecToJson(*again), launchSpecToJson(*s));
}

static std::string errorFor(const std::string &text) {
  auto s = parseLaunchSpec(text, "k.launch.json");
  EXPECT_FALSE(s) << text;
  if (s)
    return "";
  EXPECT_EQ(s.error().kind, ErrorKind::InvalidMetadata);
  return s.error().message;
}

static std::string mutate(const std::function<void(nlohmann::json &)> &edit) {
  nlohmann::json j = nlohmann::json::parse(kGemmTcLaunchJson);
  edit(j);
  return j.dump();
}

TEST(LaunchSpec, ErrorsNameTheJsonPath) {
  EXPECT_NE(errorFor("{not json").find("not valid JSON"), std::string::npos);
  EXPECT_NE(errorFor("[1,2]").find("must be a JSON object"), std::string::npos);
  EXPECT_NE(errorFor(mutate([](auto &j) { j["schema"] = "kina.launch/9"; }))
                .find("unsupported schema"),
            std::string::npos);
  EXPECT_NE(errorFor(mutate([](auto &j) { j.erase("kernel"); })).find("missing \"kernel\""),
            std::string::npos);
  EXPECT_NE(errorFor(mutate([](auto &j) { j["grid"][1] = "N/"; })).find("grid[1]"),
            std::string::npos);
  EXPECT_NE(errorFor(mutate([](auto &j) { j["grid"][0] = "Q/128"; }))
                .find("grid[0]: formula `Q/128` uses `Q`, which is not in \"dims\""),
            std::string::npos);
  EXPECT_NE(errorFor(mutate([](auto &j) { j["block"] = nlohmann::json::array({0}); }))
                .find("block[0]"),
            std::string::npos);
  EXPECT_NE(errorFor(mutate([](auto &j) { j["params"][1]["dtype"] = "f128"; }))
                .find("params[1].dtype: unknown dtype \"f128\""),
            std::string::npos);
  EXPECT_NE(errorFor(mutate([](auto &j) { j["params"][2]["role"] = "scratch"; }))
                .find("params[2].role"),
            std::string::npos);
  EXPECT_NE(errorFor(mutate([](auto &j) { j["params"][0]["shape"][1] = 3.5; }))
                .find("params[0].shape[1]"),
            std::string::npos);
  EXPECT_NE(errorFor(mutate([](auto &j) { j["params"][4]["name"] = "a"; })).find("duplicate"),
            std::string::npos);
  EXPECT_NE(errorFor(mutate([](auto &j) { j["requires"][0]["modulus"] = 0; }))
                .find("requires[0].modulus: must be positive"),
            std::string::npos);
  EXPECT_NE(errorFor(mutate([](auto &j) { j["dims"] = {"M", "M"}; })).find("duplicate dim"),
            std::string::npos);
  EXPECT_NE(errorFor(mutate([](auto &j) { j["dynamic_smem_bytes"] = -1; }))
                .find("dynamic_smem_bytes"),
            std::string::npos);
  EXPECT_NE(errorFor(mutate([](auto &j) { j["params"][3]["type"] = "u8"; }))
                .find("params[3].type"),
            std::string::npos);
}

TEST(LaunchSpec, DefaultsAndOptionalFields) {
  auto s = parseLaunchSpec(R"({"schema": "kina.launch/1", "kernel": "relu", "target": "sm_80",
      "dims": ["N"], "grid": ["N cdiv 256"], "block": [256],
      "params": [{"name": "x", "kind": "tensor", "dtype": "F32", "shape": ["N"], "role": "inout"},
                 {"name": "n", "kind": "dim", "type": "i64", "value": "N"}]})",
                           "relu");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->symbol, "relu");
  EXPECT_EQ(s->staticSharedBytes, -1);
  EXPECT_TRUE(s->requirements.empty());
  EXPECT_EQ(s->params[1].intBits, 64);
  EXPECT_FALSE(s->flops);
}

TEST(LaunchSpec, MissingFileIsIoError) {
  auto s = loadLaunchSpec("/nonexistent/k.launch.json");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, ErrorKind::Io);
}

TEST(LaunchSpec, ReadsCodegensTreeForm) {
  auto s = parseLaunchSpec(kGemmTcCodegenJson, "codegen.launch.json");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->symbol, "gemm_tc");
  EXPECT_EQ(s->grid[0].text(), "M/128");
  EXPECT_EQ(*s->grid[0].evaluate({{"M", 1024}}), 8);
  EXPECT_EQ(s->staticSharedBytes, 8192);
  EXPECT_EQ(s->params[0].dtype, DType::F16);
  EXPECT_EQ(s->params[0].role, ParamRole::Input);
  EXPECT_EQ(s->params[2].role, ParamRole::Output);
  EXPECT_EQ(s->params[3].intBits, 32);
  ASSERT_EQ(s->requirements.size(), 3u);
  // `M mod 128 = 0` trees become modular facts (for the detailed message).
  EXPECT_FALSE(s->requirements[0].condition);
  EXPECT_EQ(s->requirements[0].modulus, 128);
  EXPECT_EQ(s->requirements[0].expr.text(), "M");
  EXPECT_EQ(s->requirements[0].clause(), "requires (M mod 128 = 0)");
  // And it survives a round trip through our writer.
  auto again = parseLaunchSpec(launchSpecToText(*s), "again");
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(launchSpecToJson(*again), launchSpecToJson(*s));
}

TEST(LaunchSpec, TreeFormErrorsNameThePath) {
  nlohmann::json j = nlohmann::json::parse(kGemmTcCodegenJson);
  j["grid"][1]["expr"]["op"] = "pow";
  auto s = launchSpecFromJson(j);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("grid[1].expr.op: unknown operator \"pow\""),
            std::string::npos)
      << s.error().message;
  j = nlohmann::json::parse(kGemmTcCodegenJson);
  j["requires"][0]["expr"]["lhs"] = nlohmann::json::object();
  s = launchSpecFromJson(j);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("requires[0].expr.lhs"), std::string::npos);
}

TEST(LaunchSpec, CorruptedTextNeverCrashes) {
  const std::string good = kGemmTcCodegenJson;
  std::uint64_t x = 99;
  auto next = [&] {
    x += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  static const char alphabet[] = "{}[]\":,0123456789-+ abcdefMNK/*modcdivtruefalsenull";
  for (int i = 0; i < 3000; ++i) {
    std::string text = good;
    int edits = 1 + int(next() % 3);
    for (int e = 0; e < edits; ++e)
      text[next() % text.size()] = alphabet[next() % (sizeof alphabet - 1)];
    auto s = parseLaunchSpec(text, "fuzz");
    if (s) { // whatever parses must also serialise and re-parse
      EXPECT_TRUE(parseLaunchSpec(launchSpecToText(*s), "again")) << text;
    }
  }
}
