//===- VerifierTest.cpp - Malformed tile IR gives K12xx, never a crash ----===//
#include "ir/Verifier.h"
#include "SeedKernels.h"
#include "ir/Builder.h"

#include <gtest/gtest.h>

using namespace kina;
using namespace kina::ir;

namespace {

/// Verifies `k` and returns "K1201: message" lines.
std::vector<std::string> check(const Kernel &k) {
  DiagnosticSink sink;
  verify(k, sink);
  std::vector<std::string> out;
  for (const auto &d : sink.diagnostics())
    out.push_back(std::string(d.info().code) + ": " + d.message);
  return out;
}

::testing::AssertionResult hasDiag(const std::vector<std::string> &diags, const std::string &code,
                                   const std::string &fragment) {
  for (const auto &d : diags)
    if (d.rfind(code, 0) == 0 && d.find(fragment) != std::string::npos)
      return ::testing::AssertionSuccess();
  std::string all;
  for (const auto &d : diags)
    all += "\n  " + d;
  return ::testing::AssertionFailure()
         << "no " << code << " containing '" << fragment << "' among:" << all;
}

Kernel build(KernelBuilder &b) {
  auto k = b.finish();
  EXPECT_TRUE(static_cast<bool>(k));
  return k ? std::move(*k) : Kernel{};
}

} // namespace

TEST(TileIRVerifier, StdlibKernelsVerify) {
  for (const Kernel &k : {fixtures::seedGemm(), fixtures::pipelinedGemm(),
                          fixtures::pipelinedGemm({DType::BF16, DType::F16, 128, 128, 32, 2, 4, 4}),
                          fixtures::elementwiseAddRelu(), fixtures::rowSum(),
                          fixtures::transposeShared(), fixtures::rowSoftmax()})
    EXPECT_EQ(check(k), std::vector<std::string>{}) << k.name;
}

TEST(TileIRVerifier, UndeclaredIdsAreReported) {
  Kernel k = fixtures::seedGemm();
  k.body.ops.push_back(Op{FillOp{99, 0.0}, {}});
  k.body.ops.push_back(Op{LoadOp{0, Access::tensor(42)}, {}});
  auto d = check(k);
  EXPECT_TRUE(hasDiag(d, "K1201", "tile #99 is not declared"));
  EXPECT_TRUE(hasDiag(d, "K1201", "tensor #42 is not declared"));
}

TEST(TileIRVerifier, VariableOutOfScope) {
  KernelBuilder b("k");
  TileId t = b.addRegisterTile("t", DType::F32, {16, 8});
  ParamId p = b.addResult("out", DType::F32, {IndexExpr::constant(64), IndexExpr::constant(8)});
  VarId i = b.beginFor("i", IndexExpr::constant(0), IndexExpr::constant(4));
  b.endFor();
  b.fill(t, 0.0);
  b.store(Access::tensor(p, {SliceDim::range(IndexExpr::var(i) * 16, 16),
                             SliceDim::range(IndexExpr::constant(0), 8)}),
          t);
  EXPECT_TRUE(hasDiag(check(build(b)), "K1201", "variable `i` is used out of scope"));
}

TEST(TileIRVerifier, SliceErrors) {
  KernelBuilder b("k");
  TileId s = b.addSharedTile("s", DType::F16, {64, 32});
  TileId r = b.addRegisterTile("r", DType::F16, {64, 32});
  b.load(r, Access::tile(s, {SliceDim::range(IndexExpr::constant(0), 64)}));
  b.load(r, Access::tile(s, {SliceDim::range(IndexExpr::constant(16), 64),
                             SliceDim::range(IndexExpr::constant(0), 32)}));
  auto d = check(build(b));
  EXPECT_TRUE(hasDiag(d, "K1203", "'s' has 2 dimensions but the slice has 1"));
  EXPECT_TRUE(hasDiag(d, "K1203", "(extent 64) is sliced at `16 ..+ 64`"));
}

TEST(TileIRVerifier, MmaOperandTypes) {
  KernelBuilder b("k");
  TileId a = b.addSharedTile("a", DType::F32, {64, 16});
  TileId bb = b.addSharedTile("b", DType::F16, {16, 64});
  TileId c = b.addRegisterTile("c", DType::F16, {64, 32});
  b.mma(c, c, Access::tile(a), Access::tile(bb));
  auto d = check(build(b));
  EXPECT_TRUE(hasDiag(d, "K1202", "accumulator 'c' must be F32"));
  EXPECT_TRUE(hasDiag(d, "K1202", "operand 'a' must be an F16, BF16 or I8 shared tile"));
  EXPECT_TRUE(hasDiag(d, "K1202", "mma B: shape [16, 64] does not match [16, 32]"));
}

// int8 (docs/language.md "int8 MMA"): I8 A [M, K] and transposed I8 B
// [N, K] shared slices into an I32 accumulator, by mma.sync or dp4a; a plain
// B, an F32 accumulator, or dp4a of F16 operands is a verifier error.
TEST(TileIRVerifier, MmaInt8) {
  for (bool dp4a : {false, true}) {
    KernelBuilder b("k");
    TileId a = b.addSharedTile("a", DType::I8, {64, 64});
    TileId bt = b.addSharedTile("bt", DType::I8, {32, 64}); // [N, K]
    TileId c = b.addRegisterTile("c", DType::I32, {64, 32});
    b.mma(c, c, Access::tile(a), Access::tile(bt), {}, /*transB=*/true, dp4a);
    EXPECT_EQ(check(build(b)), std::vector<std::string>{}) << "dp4a " << dp4a;
  }
  KernelBuilder bad("k");
  TileId a = bad.addSharedTile("a", DType::I8, {64, 64});
  TileId bkn = bad.addSharedTile("bkn", DType::I8, {64, 32}); // [K, N]
  TileId c = bad.addRegisterTile("c", DType::I32, {64, 32});
  TileId f = bad.addRegisterTile("f", DType::F32, {64, 32});
  TileId h = bad.addSharedTile("h", DType::F16, {64, 64});
  TileId ht = bad.addSharedTile("ht", DType::F16, {32, 64});
  bad.mma(c, c, Access::tile(a), Access::tile(bkn));
  bad.mma(f, f, Access::tile(a), Access::tile(bkn));
  bad.mma(f, f, Access::tile(h), Access::tile(ht), {}, /*transB=*/true, /*dp4a=*/true);
  auto d = check(build(bad));
  EXPECT_TRUE(hasDiag(d, "K1202", "I8 operands are a shared A and a transposed shared B"));
  EXPECT_TRUE(hasDiag(d, "K1202", "accumulator 'f' must be F32 (or F16 with F16 operands, I32"));
  EXPECT_TRUE(hasDiag(d, "K1202", "dp4a_mma: the operands must be I8"));
}

// MMA operands (issue 14 part 4): a whole 16-bit register tile as A, a
// transposed shared B [N, K], an F16 accumulator with F16 operands.
TEST(TileIRVerifier, MmaOperandForms) {
  KernelBuilder b("k");
  TileId ar = b.addRegisterTile("ar", DType::F16, {16, 32});
  TileId bt = b.addSharedTile("bt", DType::F16, {64, 32}); // [N, K]
  TileId c16 = b.addRegisterTile("c16", DType::F16, {16, 64});
  b.mma(c16, c16, Access::tile(ar), Access::tile(bt), {}, /*transB=*/true);
  EXPECT_EQ(check(build(b)), std::vector<std::string>{});

  KernelBuilder bad("k");
  TileId ar2 = bad.addRegisterTile("ar", DType::F16, {16, 32});
  TileId bt2 = bad.addSharedTile("bt", DType::F16, {32, 64});
  TileId c = bad.addRegisterTile("c", DType::F32, {16, 64});
  // Not transposed, [32, 64] is fine; transposed it must be [64, 32].
  bad.mma(c, c, Access::tile(ar2), Access::tile(bt2), {}, /*transB=*/true);
  bad.mma(c, c,
          Access::tile(ar2, {SliceDim::range(IndexExpr::constant(0), 16),
                             SliceDim::range(IndexExpr::constant(0), 32)}),
          Access::tile(bt2));
  auto d = check(build(bad));
  EXPECT_TRUE(hasDiag(d, "K1202", "mma B (transposed): shape [32, 64] does not match [64, 32]"));
  EXPECT_TRUE(hasDiag(d, "K1202", "a register A operand is a whole tile"));
}

TEST(TileIRVerifier, IndexExpressionRules) {
  KernelBuilder b("k");
  DimId M = b.addDim("M");
  // A dim-expression divisor is valid IR (the checker proves it positive);
  // a zero or negative constant is not.
  b.setBlockGrid(IndexExpr::binary(IndexExpr::Kind::Div, IndexExpr::dim(M), IndexExpr::constant(0)),
                 IndexExpr::binary(IndexExpr::Kind::Div, IndexExpr::dim(M), IndexExpr::dim(M)));
  b.addRequirement(IndexExpr::dim(M), "M");
  b.beginIf(IndexExpr::dim(M));
  b.endIf();
  auto d = check(build(b));
  EXPECT_TRUE(hasDiag(d, "K1204",
                      "block_grid: `/` needs a positive constant or an expression over the dims "
                      "on the right in `M / 0`"));
  EXPECT_FALSE(hasDiag(d, "K1204", "`M / M`"));
  EXPECT_TRUE(hasDiag(d, "K1204", "requires: expected a condition"));
  EXPECT_TRUE(hasDiag(d, "K1204", "if condition: expected a condition"));
}

TEST(TileIRVerifier, AsyncGroupDiscipline) {
  KernelBuilder b("k");
  DimId M = b.addDim("M");
  ParamId a = b.addTensor("a", DType::F16, {IndexExpr::dim(M), IndexExpr::constant(64)});
  TileId s = b.addSharedTile("s", DType::F16, {16, 64});
  auto copy = [&] {
    b.cpAsync(Access::tile(s), Access::tensor(a, {SliceDim::range(IndexExpr::constant(0), 16),
                                                  SliceDim::range(IndexExpr::constant(0), 64)}));
  };
  copy();
  TokenId t = b.cpAsyncCommit();
  copy(); // never committed
  Kernel k = build(b);
  k.body.ops.push_back(Op{CpAsyncCommitOp{t}, {}});        // committed twice
  k.body.ops.push_back(Op{CpAsyncWaitOp{9, {t + 5}}, {}}); // bad wait
  auto d = check(k);
  EXPECT_TRUE(hasDiag(d, "K1205", "group #0 is committed twice"));
  EXPECT_TRUE(hasDiag(d, "K1205", "group #1 is never committed"));
  EXPECT_TRUE(hasDiag(d, "K1205", "waited on before it is committed"));
  EXPECT_TRUE(hasDiag(d, "K1205", "at most 7 pending groups"));
}

TEST(TileIRVerifier, CopiesInsideIfCommittedAfterIt) {
  // `if c { cp_async ... } cp_async_commit` is the prologue pattern.
  Kernel k = fixtures::pipelinedGemm();
  EXPECT_EQ(check(k), std::vector<std::string>{});
}

TEST(TileIRVerifier, StoresNeedExplicitConvertAndWritableTargets) {
  KernelBuilder b("k");
  ParamId in = b.addTensor("in", DType::F16, {IndexExpr::constant(16), IndexExpr::constant(8)});
  ParamId out = b.addResult("out", DType::F16, {IndexExpr::constant(16), IndexExpr::constant(8)});
  TileId r = b.addRegisterTile("r", DType::F32, {16, 8});
  b.fill(r, 0.0);
  b.store(Access::tensor(out), r);
  b.store(Access::tensor(in), r, /*convert=*/true);
  auto d = check(build(b));
  EXPECT_TRUE(hasDiag(d, "K1202", "storing F32 into F16 needs an explicit convert"));
  EXPECT_TRUE(hasDiag(d, "K1202", "tensor 'in' is read-only"));
}

TEST(TileIRVerifier, BadTileDeclarations) {
  KernelBuilder b("k");
  b.addRegisterTile("r3", DType::F32, {2, 16, 8});
  b.addSharedTile("zero", DType::F16, {0, 8});
  b.setWarpGrid(8, 8);
  auto d = check(build(b));
  EXPECT_TRUE(hasDiag(d, "K1202", "register tile 'r3' must be 2-D"));
  EXPECT_TRUE(hasDiag(d, "K1203", "tile 'zero' needs a non-empty shape"));
  EXPECT_TRUE(hasDiag(d, "K1201", "must have 1 to 32 warps"));
}
