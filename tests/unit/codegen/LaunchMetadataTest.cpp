//===- LaunchMetadataTest.cpp - Launch metadata JSON and formulas ---------===//
#include "Fixtures.h"
#include "codegen/LaunchMetadata.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace kina;
using namespace kina::codegen;

TEST(LaunchMetadata, SeedGemm) {
  LaunchMetadata m = makeLaunchMetadata(ir::fixtures::seedGemm(), "sm_90a", "8.0", 36864, 0);
  auto j = toJson(m);
  EXPECT_EQ(j["schema"], "kina.launch/1");
  EXPECT_EQ(j["entry"], "gemm_tc");
  EXPECT_EQ(j["block"], nlohmann::json::array({128, 1, 1}));
  EXPECT_EQ(j["grid"][0]["text"], "M / 128");
  EXPECT_EQ(j["grid"][0]["expr"],
            nlohmann::json::parse(R"({"op":"div","lhs":{"dim":"M"},"rhs":{"const":128}})"));
  ASSERT_EQ(j["params"].size(), 6u);
  EXPECT_EQ(j["params"][0]["abi"], "ptr");
  EXPECT_EQ(j["params"][2]["result"], true);
  EXPECT_EQ(j["params"][3]["kind"], "dim");
  EXPECT_EQ(j["params"][3]["abi"], "i32");
  EXPECT_EQ(j["requires"][0]["text"], "M mod 128 = 0");
  EXPECT_EQ(j["static_shared_bytes"], 36864);
}

TEST(LaunchMetadata, RoundTripAndEvaluate) {
  LaunchMetadata m = makeLaunchMetadata(ir::fixtures::pipelinedGemm(), "sm_80", "7.0", 0, 65536);
  auto back = launchMetadataFromJson(toJsonText(m));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(toJson(*back), toJson(m));
  std::map<std::string, int64_t> dims{{"M", 4096}, {"N", 2048}, {"K", 1024}};
  EXPECT_EQ(*evaluate(*back, back->grid[0].expr, dims), 32);
  EXPECT_EQ(*evaluate(*back, back->grid[1].expr, dims), 16);
  EXPECT_EQ(*evaluate(*back, back->requires_[0].expr, dims), 1);
  dims["M"] = 1000;
  EXPECT_EQ(*evaluate(*back, back->requires_[0].expr, dims), 0);
  dims.erase("N");
  auto missing = evaluate(*back, back->grid[1].expr, dims);
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("no value for dim 'N'"), std::string::npos);
}

TEST(LaunchMetadata, MalformedJsonIsAnError) {
  for (const char *text : {"", "[]", R"({"schema":"other"})",
                           R"({"schema":"kina.launch/1","dims":[],"params":[],"grid":[{}],"block":[1,1,1]})",
                           R"({"schema":"kina.launch/1","dims":["M"],"params":[],"grid":[{"expr":{"dim":"Q"}},{"expr":{"const":1}},{"expr":{"const":1}}],"block":[1,1,1]})"}) {
    auto m = launchMetadataFromJson(text);
    EXPECT_FALSE(static_cast<bool>(m)) << text;
    if (!m)
      llvm::consumeError(m.takeError());
  }
}

TEST(LaunchMetadata, GemmFlopsAndReduction) {
  std::map<std::string, int64_t> dims{{"M", 256}, {"N", 384}, {"K", 96}};
  for (const ir::Kernel &k : {ir::fixtures::seedGemm(), ir::fixtures::pipelinedGemm()}) {
    LaunchMetadata m = makeLaunchMetadata(k, "sm_80", "7.0", 0, 0);
    ASSERT_TRUE(m.flops.has_value()) << k.name;
    ASSERT_TRUE(m.reduction.has_value()) << k.name;
    EXPECT_EQ(*evaluate(m, m.flops->expr, dims), 2 * 256 * 384 * 96) << k.name;
    EXPECT_EQ(*evaluate(m, m.reduction->expr, dims), 96) << k.name;
    auto back = launchMetadataFromJson(toJsonText(m));
    ASSERT_TRUE(static_cast<bool>(back));
    EXPECT_EQ(back->flops->text, m.flops->text);
  }
  EXPECT_FALSE(makeLaunchMetadata(ir::fixtures::rowSoftmax(), "sm_80", "7.0", 0, 0).flops);
}
