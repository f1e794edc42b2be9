// Tune parameters: parsing, instantiation (names to integers, constant
// folding) and the declaration checks.
#include "syntax/TuneParams.h"
#include "sema/Frontend.h"
#include "syntax/Parser.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace kina;

namespace {

syntax::ParseOptions pristine() {
  syntax::ParseOptions o;
  o.instantiateTuneDefaults = false;
  return o;
}

const char *kKernel = R"(kernel k [M]
    tune BM in {64, 128, 256} = 128
    tune S in {2, 3} = 3
    requires (M mod BM = 0)
    (a : Tensor[F32, [M], on=cuda:global])
    : (c : Tensor[F32, [M], on=cuda:global]) {
  block_grid [M / BM] {
    shared t : Tile[F32, [S, BM * 2], on=cuda:shared]
  }
}
)";

std::vector<std::string> codes(const std::vector<Diagnostic> &ds) {
  std::vector<std::string> out;
  for (const Diagnostic &d : ds)
    out.emplace_back(d.info().code);
  return out;
}

} // namespace

TEST(TuneParams, ParsesDeclarations) {
  SourceFile file("t.kina", kKernel);
  syntax::ParseResult p = syntax::parse(file, pristine());
  ASSERT_TRUE(p.diagnostics.empty());
  ASSERT_EQ(p.module.items.size(), 1u);
  const syntax::Item &item = p.module.items[0];
  ASSERT_EQ(item.tuneParams.size(), 2u);
  EXPECT_EQ(item.tuneParams[0].name.name, "BM");
  EXPECT_EQ(item.tuneParams[0].values, (std::vector<int64_t>{64, 128, 256}));
  EXPECT_EQ(item.tuneParams[0].defaultValue, 128);
  EXPECT_EQ(item.tuneParams[1].defaultValue, 3);
  EXPECT_EQ(syntax::latticeSize(item), 6u);
  EXPECT_EQ(syntax::formatPoint(item, syntax::latticePoint(item, 0)), "BM=64,S=2");
  EXPECT_EQ(syntax::formatPoint(item, syntax::latticePoint(item, 5)), "BM=256,S=3");
  EXPECT_EQ(syntax::formatPoint(item, syntax::defaultPoint(item)), "BM=128,S=3");
}

TEST(TuneParams, InstantiationFoldsConstants) {
  SourceFile file("t.kina", kKernel);
  syntax::ParseResult p = syntax::parse(file, pristine());
  syntax::Module m = p.module;
  syntax::instantiateItem(m, 0, {{"BM", 256}, {"S", 2}});
  // Every use of a parameter is gone; `BM * 2` folded to 512.
  bool sawName = false, saw512 = false;
  for (const syntax::Expr &e : m.exprs) {
    sawName |= e.kind == syntax::ExprKind::Name && (e.name.name == "BM" || e.name.name == "S");
    saw512 |= e.kind == syntax::ExprKind::Integer && e.intValue == 512;
  }
  EXPECT_FALSE(sawName);
  EXPECT_TRUE(saw512);
  // `M / BM` keeps M: only constant subtrees fold.
  bool sawM = false;
  for (const syntax::Expr &e : m.exprs)
    sawM |= e.kind == syntax::ExprKind::Name && e.name.name == "M";
  EXPECT_TRUE(sawM);
}

std::string addTuned() {
  std::ifstream in(KINA_SOURCE_DIR "/tests/lit/tune/Inputs/add_tuned.kina");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(TuneParams, DefaultPointChecksClean) {
  SourceFile file("add_tuned.kina", addTuned());
  sema::Analysis a = sema::analyze(file);
  EXPECT_TRUE(codes(a.diagnostics).empty()) << a.diagnostics.front().message;
}

TEST(TuneParams, RequestedPointOutsideTheSet) {
  SourceFile file("add_tuned.kina", addTuned());
  sema::FrontendOptions fe;
  fe.tunePoint = {{"WARPS", 100}, {"X", 1}};
  sema::Analysis a = sema::analyze(file, fe);
  EXPECT_EQ(codes(a.diagnostics), (std::vector<std::string>{"K0173", "K0173"}));
  // A point inside the set that breaks a budget: the checker says which.
  fe.tunePoint = {{"WARPS", 64}};
  EXPECT_EQ(codes(sema::analyze(file, fe).diagnostics), (std::vector<std::string>{"K0802"}));
}

TEST(TuneParams, DeclarationErrors) {
  SourceFile file("t.kina", R"(kernel k [M]
    tune M in {64} = 64
    tune BM in {64, 64, 0} = 32
    tune BM in {1} = 1
    (a : Tensor[F32, [M], on=cuda:global])
    : (c : Tensor[F32, [M], on=cuda:global]) {
  block_grid [1] {
    warpgroup_grid [1] {
      role r (warpgroup 0) registers R {
        let BM = 1 in
        wgmma_wait 0
      }
    }
  }
}
)");
  syntax::ParseResult p = syntax::parse(file, pristine());
  ASSERT_TRUE(p.diagnostics.empty()) << p.diagnostics.front().message;
  std::vector<std::string> got = codes(syntax::checkTuneDeclarations(p.module));
  std::sort(got.begin(), got.end());
  // K0175 (R), K0171 (M, BM twice, let BM), K0172 (64 twice, 0), K0170 (32).
  EXPECT_EQ(got, (std::vector<std::string>{"K0170", "K0171", "K0171", "K0171", "K0172", "K0172",
                                           "K0175"}));
}

TEST(TuneParams, PointSpec) {
  syntax::TunePoint p;
  std::string error;
  EXPECT_TRUE(syntax::parsePointSpec({"BM=128,BN=256", "S=3"}, p, error));
  EXPECT_EQ(p.size(), 3u);
  EXPECT_EQ(p["BN"], 256);
  syntax::TunePoint q;
  EXPECT_FALSE(syntax::parsePointSpec({"BM=1,BM=2"}, q, error));
  EXPECT_FALSE(syntax::parsePointSpec({"BM"}, q, error));
  EXPECT_FALSE(syntax::parsePointSpec({"BM=x"}, q, error));
}

TEST(TuneParams, ParseInstantiatesTheDefaultPoint) {
  // What the language server sees: the default instance, and the
  // declaration errors among the parse's diagnostics.
  SourceFile file("t.kina", kKernel);
  syntax::ParseResult p = syntax::parse(file);
  EXPECT_TRUE(p.diagnostics.empty());
  bool sawBM = false, saw256 = false;
  for (const syntax::Expr &e : p.module.exprs) {
    sawBM |= e.kind == syntax::ExprKind::Name && e.name.name == "BM";
    saw256 |= e.kind == syntax::ExprKind::Integer && e.intValue == 256; // BM * 2 at BM = 128
  }
  EXPECT_FALSE(sawBM);
  EXPECT_TRUE(saw256);
  SourceFile bad("b.kina", R"(kernel k [M]
    tune BM in {64} = 32
    (a : Tensor[F32, [M], on=cuda:global])
    : (c : Tensor[F32, [M], on=cuda:global]) {
}
)");
  EXPECT_EQ(codes(syntax::parse(bad).diagnostics), (std::vector<std::string>{"K0170"}));
}
