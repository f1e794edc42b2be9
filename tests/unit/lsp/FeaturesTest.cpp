//===- FeaturesTest.cpp - Signature help and completion, as plain data ----===//
//
// rust-analyzer style: a fixture with the cursor marked `$0`, the feature
// function called on an Analysis snapshot, the expected plain result.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"
#include "Signatures.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

using namespace kina;
using namespace kina::lsp;
using ::testing::Contains;
using ::testing::Not;

namespace {

struct Fixture {
  Analysis analysis;
  uint32_t cursor = 0;
  explicit Fixture(std::string text, const std::string &target = "sm_80") {
    cursor = static_cast<uint32_t>(text.find("$0"));
    EXPECT_NE(cursor, std::string::npos);
    text.erase(cursor, 2);
    analysis.setTarget(target);
    analysis.setFile("u", std::make_shared<const SourceFile>("u", text), 1);
  }
  std::optional<SignatureInfo> signature() { return analysis.snapshot()->signatureHelp("u", cursor); }
  std::vector<std::string> labels(CompletionCategory cat) {
    std::vector<std::string> out;
    for (const CompletionEntry &e : analysis.snapshot()->completion("u", cursor))
      if (e.category == cat)
        out.push_back(e.label);
    return out;
  }
};

const char *kKernelHead = "kernel k\n    [M]\n    requires (M mod 128 = 0)\n"
                          "    requires capability(sm_80, mma_m16n16k16_f16_f16_f32)\n"
                          "    (a : Tensor[F16, [M, 16], on=cuda:global])\n"
                          "    : (c : Tensor[F32, [M, 64], on=cuda:global]) {\n"
                          "  block_grid [M/128] {\n"
                          "    shared a_smem : Tile[F16, [64, 16], on=cuda:shared]\n"
                          "    shared b_smem : Tile[F16, [16, 64], on=cuda:shared]\n"
                          "    register c_reg : Tile[F32, [64, 64], on=cuda:register]\n";

std::string kernelWith(const std::string &body) {
  return std::string(kKernelHead) + body + "\n  }\n}\n";
}

TEST(SignatureHelp, PrimitiveOpWhileTypingArguments) {
  // Right after the op and a space: the first parameter.
  Fixture f1(kernelWith("    c_reg <- wmma_mma $0"));
  auto s = f1.signature();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->label, "wmma_mma (c : register tile [m, n]) (a : shared tile [m, k]) "
                      "(b : shared tile [k, n]) : register tile [m, n]");
  EXPECT_EQ(s->parameters.size(), 3u);
  EXPECT_EQ(s->activeParameter, 0u);
  // After the first argument and a space: the second.
  Fixture f2(kernelWith("    c_reg <- wmma_mma c_reg $0"));
  ASSERT_TRUE(f2.signature());
  EXPECT_EQ(f2.signature()->activeParameter, 1u);
  // Still typing the second argument (an indexed tile): the second.
  Fixture f3(kernelWith("    c_reg <- wmma_mma c_reg a_smem[0 ..+ 64, 0 ..+ 16$0"));
  ASSERT_TRUE(f3.signature());
  EXPECT_EQ(f3.signature()->activeParameter, 1u);
}

TEST(SignatureHelp, ParsedApplicationAcrossLines) {
  // A complete, multi-line application (as in the seed): the AST finds it.
  Fixture f(kernelWith("    c_reg <- wmma_mma c_reg\n"
                       "                      a_smem\n"
                       "                      $0b_smem"));
  auto s = f.signature();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->label.rfind("wmma_mma ", 0), 0u);
  EXPECT_EQ(s->activeParameter, 2u);
}

TEST(SignatureHelp, OtherOps) {
  Fixture conv(kernelWith("    let x = convert F16 $0"));
  ASSERT_TRUE(conv.signature());
  EXPECT_EQ(conv.signature()->label, "convert (DT : dtype) (x : register tile) : register tile");
  EXPECT_EQ(conv.signature()->activeParameter, 1u);
  Fixture fd(kernelWith("    let i = floor_div $0"));
  ASSERT_TRUE(fd.signature());
  EXPECT_EQ(fd.signature()->parameters,
            (std::vector<std::string>{"e : index", "n : positive constant"}));
  Fixture add(kernelWith("    let s = add (row_sum c_reg) $0"));
  ASSERT_TRUE(add.signature());
  EXPECT_EQ(add.signature()->label.rfind("add ", 0), 0u);
  EXPECT_EQ(add.signature()->activeParameter, 1u);
  // Nothing callable around: no signature.
  Fixture none(kernelWith("    c_reg <- $0"));
  EXPECT_FALSE(none.signature());
}

TEST(SignatureHelp, TileFunctionFromItsDeclaration) {
  std::string text = "tile step\n    (acc : Tile[F32, [64, 64], on=cuda:register])\n"
                     "    (x : Tile[F16, [64, 16], on=cuda:shared])\n"
                     "    : Tile[F32, [64, 64], on=cuda:register] {\n  return acc\n}\n\n" +
                     kernelWith("    c_reg <- step c_reg $0");
  Fixture f(text);
  auto s = f.signature();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->label, "step (acc : Tile[F32, [64, 64], on=cuda:register]) "
                      "(x : Tile[F16, [64, 16], on=cuda:shared]) : "
                      "Tile[F32, [64, 64], on=cuda:register]");
  EXPECT_EQ(s->activeParameter, 1u);
  EXPECT_EQ(s->documentation, "tile function `step`");
}

TEST(Completion, NamesInScopeBeforeTheCursor) {
  Fixture f(kernelWith("    c_reg <- wmma_mma c_reg $0"));
  auto names = f.labels(CompletionCategory::Name);
  EXPECT_THAT(names, Contains("a_smem"));
  EXPECT_THAT(names, Contains("b_smem"));
  EXPECT_THAT(names, Contains("c_reg"));
  EXPECT_THAT(names, Contains("a"));
  EXPECT_THAT(names, Contains("M"));
  EXPECT_THAT(names, Contains("k")); // the item itself

  Fixture g(kernelWith("    c_reg <- fill 0.0\n    $0\n    let after = 1 in\n    block_sync"));
  auto names2 = g.labels(CompletionCategory::Name);
  EXPECT_THAT(names2, Contains("c_reg"));
  EXPECT_THAT(names2, Not(Contains("after")));
}

TEST(Completion, NamesFilteredByPrefix) {
  Fixture f(kernelWith("    c_reg <- wmma_mma c_reg a_$0"));
  auto names = f.labels(CompletionCategory::Name);
  EXPECT_THAT(names, Contains("a_smem"));
  EXPECT_THAT(names, Not(Contains("b_smem")));
}

TEST(Completion, CapabilitiesOfTheConfiguredTarget) {
  std::string head = "kernel k\n    requires capability(sm_80, $0)\n    (a : F32) : F32 {\n}\n";
  Fixture sm80(head, "sm_80");
  auto caps = sm80.labels(CompletionCategory::Capability);
  EXPECT_THAT(caps, Contains("cp_async"));
  EXPECT_THAT(caps, Contains("mma_m16n16k16_f16_f16_f32"));
  EXPECT_THAT(caps, Not(Contains("sm_80")));
  // Only capabilities there: no keywords.
  EXPECT_TRUE(sm80.labels(CompletionCategory::Keyword).empty());
  // An older target lacks cp_async (an sm_80 feature).
  Fixture sm75(head, "sm_75");
  EXPECT_THAT(sm75.labels(CompletionCategory::Capability), Not(Contains("cp_async")));
  // The first argument is the target.
  Fixture first("kernel k\n    requires capability(sm_9$0\n", "sm_80");
  auto targets = first.labels(CompletionCategory::Capability);
  EXPECT_THAT(targets, Contains("sm_90a"));
  EXPECT_THAT(targets, Not(Contains("sm_80")));
}

} // namespace
