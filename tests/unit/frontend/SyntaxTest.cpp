//===- SyntaxTest.cpp - Parser and CST lowering ---------------------------===//
#include "syntax/Lower.h"
#include "syntax/Parser.h"

#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace kina;

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

syntax::ParseResult parseText(const std::string &text) {
  SourceFile file("t.kina", text);
  return syntax::parse(file);
}

TEST(Syntax, CstNodeNamesExistInTheGrammar) {
  // Every node kind and field the lowering reads must exist in node-types.json.
  auto types = nlohmann::json::parse(readFile(KINA_SOURCE_DIR "/grammar/src/node-types.json"));
  std::set<std::string> kinds, fields;
  for (const auto &t : types) {
    kinds.insert(t["type"].get<std::string>());
    if (t.contains("fields"))
      for (auto it = t["fields"].begin(); it != t["fields"].end(); ++it)
        fields.insert(it.key());
  }
#define KINA_CST_NODE(NAME) EXPECT_TRUE(kinds.count(#NAME)) << #NAME;
#define KINA_CST_NODE_AS(MEMBER, NAME) EXPECT_TRUE(kinds.count(#NAME)) << #NAME;
#define KINA_CST_FIELD(NAME) EXPECT_TRUE(fields.count(#NAME)) << #NAME;
#include "syntax/CstNodes.def"
#undef KINA_CST_NODE
#undef KINA_CST_FIELD
  const auto &ids = syntax::CstIds::get();
  EXPECT_NE(ids.kernel_definition, 0);
  EXPECT_NE(ids.f_name, 0);
}

TEST(Syntax, SeedGemmParsesWithoutSyntaxErrors) {
  auto r = parseText(readFile(KINA_SOURCE_DIR "/tests/lit/syntax/seed_gemm_tc.kina"));
  for (const Diagnostic &d : r.diagnostics)
    EXPECT_NE(d.info().diagClass, DiagClass::Syntax) << d.message;
  ASSERT_EQ(r.module.items.size(), 1u);
  const syntax::Item &k = r.module.items[0];
  EXPECT_EQ(k.name.name, "gemm_tc");
  EXPECT_EQ(k.dims.size(), 3u);
  EXPECT_EQ(k.requirements.size(), 4u);
  EXPECT_EQ(k.params.size(), 2u);
  EXPECT_TRUE(k.requirements[3].isCapability);
}

TEST(Syntax, ExpressionsRoundTripThroughThePrinter) {
  auto r = parseText("kernel k [M] (a : Tensor[F16, [M], on=cuda:global]) : Tensor[F16, [M], "
                     "on=cuda:global] { let x = block_id 0 * 128 + warp_id 1 * (64 - 3) mod 2 in }");
  ASSERT_EQ(r.module.items.size(), 1u);
  const syntax::Stmt &let = r.module.stmt(r.module.items[0].body[0]);
  EXPECT_EQ(syntax::printExpr(r.module, let.value), "block_id 0 * 128 + warp_id 1 * (64 - 3) mod 2");
}

TEST(Syntax, SpansAreUtf8Safe) {
  SourceFile file("t.kina", "// héllo\nkernel");
  EXPECT_EQ(file.charLineCol(10).column, 0u);
  EXPECT_EQ(file.byteLineCol(10).line, 1u);
  EXPECT_EQ(file.charLineCol(8).column, 7u); // 'é' is two bytes, one code point
  EXPECT_EQ(file.utf16LineCol(8).column, 7u);
}

TEST(Syntax, AdversarialInputsNeverCrash) {
  std::string deep(20000, '(');
  auto r1 = parseText("kernel k (a : Tensor[F16, [" + deep + "1" + std::string(20000, ')') +
                      "], on=cuda:global]) : Tensor[F16, [1], on=cuda:global] {}");
  EXPECT_FALSE(r1.diagnostics.empty());
  EXPECT_EQ(r1.diagnostics[0].id, DiagId::NestingTooDeep);
  auto r2 = parseText(std::string("\xff\xfe kernel"));
  ASSERT_FALSE(r2.diagnostics.empty());
  EXPECT_EQ(r2.diagnostics[0].id, DiagId::InvalidUtf8);
  auto r3 = parseText("");
  ASSERT_EQ(r3.diagnostics.size(), 1u);
  EXPECT_EQ(r3.diagnostics[0].id, DiagId::EmptyFile);
  std::string junk;
  for (int i = 0; i < 5000; ++i)
    junk += "<- ] [ .. ..+ { } kernel let in ";
  auto r4 = parseText(junk);
  EXPECT_FALSE(r4.diagnostics.empty());
}

} // namespace
