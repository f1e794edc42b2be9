//===- BytecodeTest.cpp - The bytecode writer, and the real tileiras ------===//
//
// The encoding tests need nothing installed. The assembly tests run the
// real tileiras (13.3 from scripts/setup.sh) on an elementwise kernel, a
// GEMM and a softmax for sm_90 and sm_100 and check that a cubin (an ELF
// file) comes back; without a tileiras they SKIP and say so.
//
//===----------------------------------------------------------------------===//
#include "tileir/Bytecode.h"
#include "target/TargetError.h"
#include "tileir/Assembler.h"
#include "tileir/SmokeKernels.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace kina;
using namespace kina::tileir;

namespace {

using Bytes = std::vector<std::uint8_t>;

TEST(TileIrBytecode, VarintsAreLeb128AndSignedOnesZigzag) {
  Bytes b;
  appendVarint(b, 0);
  appendVarint(b, 127);
  appendVarint(b, 128);
  appendVarint(b, 300);
  EXPECT_EQ(b, (Bytes{0x00, 0x7F, 0x80, 0x01, 0xAC, 0x02}));
  b.clear();
  appendSignedVarint(b, 0);
  appendSignedVarint(b, -1);
  appendSignedVarint(b, 1);
  appendSignedVarint(b, -64);
  EXPECT_EQ(b, (Bytes{0x00, 0x01, 0x02, 0x7F}));
}

TEST(TileIrBytecode, HeaderSectionsAndEnd) {
  Bytes f = probeKernel(Version{13, 3});
  ASSERT_GT(f.size(), 16u);
  EXPECT_EQ(Bytes(f.begin(), f.begin() + 12),
            (Bytes{0x7F, 'T', 'i', 'l', 'e', 'I', 'R', 0x00, 13, 3, 0, 0}));
  EXPECT_EQ(f[12], 0x82);    // the function section, aligned
  EXPECT_EQ(f.back(), 0x00); // end of bytecode
  Bytes g = probeKernel(Version{13, 2});
  EXPECT_EQ(g[9], 2);
  EXPECT_NE(f, g); // 13.3 writes the unified optional-field bitfields
}

TEST(TileIrBytecode, AVersionTheWriterCannotEncodeIsAnError) {
  BytecodeWriter w(Version{13, 4});
  EXPECT_NE(w.error().find("cannot encode version 13.4"), std::string::npos) << w.error();
  EXPECT_TRUE(w.finish().empty());
}

TEST(TileIrBytecode, EachOpRecordsItsFeatureAndTheVersionGatesIt) {
  BytecodeWriter w(Version{13, 3});
  w.scalar(Scalar::F8E4M3FN);
  const auto &fs = w.requirements().features;
  EXPECT_NE(std::find(fs.begin(), fs.end(), Feature::F8E4M3FNE5M2), fs.end());
  EXPECT_TRUE(w.error().empty());
  // f8 exists from 13.2 on but not on sm_80 (a target lack, not a version).
  auto m = checkRequirements(w.requirements(), w.version(), Target::Sm80);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].kind, Missing::Kind::TargetLacks);
}

TEST(TileIrBytecode, AnOpNeedingANewerVersionIsAnErrorNamingBothVersions) {
  BytecodeWriter w(Version{13, 2});
  TypeId f16 = w.scalar(Scalar::F16), f32 = w.scalar(Scalar::F32);
  TypeId a = w.tile(f16, {16, 16}), c = w.tile(f32, {16, 16});
  auto args = w.beginEntry("k", {a, a, c});
  w.mmaF(c, args[0], args[1], args[2], /*fastAcc=*/true);
  EXPECT_EQ(w.error(), "mmaf with fast accumulation (`mmaf.fast_acc`) needs Tile IR 13.3; the "
                       "writer is emitting 13.2");
  const auto &fs = w.requirements().features;
  EXPECT_NE(std::find(fs.begin(), fs.end(), Feature::MmafFastAcc), fs.end());
  w.ret();
  w.endEntry();
  EXPECT_TRUE(w.finish().empty()); // never written without the feature
  BytecodeWriter v(Version{13, 3});
  args = v.beginEntry("k", {v.tile(v.scalar(Scalar::F16), {16, 16}),
                            v.tile(v.scalar(Scalar::F16), {16, 16}),
                            v.tile(v.scalar(Scalar::F32), {16, 16})});
  v.mmaF(v.tile(v.scalar(Scalar::F32), {16, 16}), args[0], args[1], args[2], true);
  EXPECT_TRUE(v.error().empty()) << v.error();
}

TEST(TileIrBytecode, IntegerOpsEncodeOverflowSignednessAndRounding) {
  BytecodeWriter w(Version{13, 3});
  TypeId si = w.tile(w.scalar(Scalar::I32), {});
  auto args = w.beginEntry("k", {si, si}); // values 0, 1
  w.binaryI(BytecodeWriter::IBin::Add, si, args[0], args[1]);
  w.binaryI(BytecodeWriter::IBin::DivFloor, si, args[0], args[1]);
  w.binaryI(BytecodeWriter::IBin::Rem, si, args[0], args[1]);
  w.ret();
  w.endEntry();
  Bytes f = w.finish();
  ASSERT_FALSE(f.empty()) << w.error();
  // addi: opcode 0x03, type, overflow none, lhs, rhs; divi: 0x15, type,
  // signed, rounding negative_inf (2); remi: 0x5A, type, signed.
  Bytes addi = {0x03, static_cast<std::uint8_t>(si.id), 0x00, 0x00, 0x01};
  Bytes divi = {0x15, static_cast<std::uint8_t>(si.id), 0x01, 0x02, 0x00, 0x01};
  Bytes remi = {0x5A, static_cast<std::uint8_t>(si.id), 0x01, 0x00, 0x01};
  for (const Bytes &op : {addi, divi, remi})
    EXPECT_NE(std::search(f.begin(), f.end(), op.begin(), op.end()), f.end());
}

TEST(TileIrBytecode, BuilderMisuseIsAnErrorNotACrash) {
  BytecodeWriter w(Version{13, 3});
  w.ret(); // outside an entry
  EXPECT_FALSE(w.error().empty());
  EXPECT_TRUE(w.finish().empty());
  BytecodeWriter v(Version{13, 3});
  v.beginEntry("k", {});
  EXPECT_TRUE(v.finish().empty()); // entry still open
  EXPECT_NE(v.error().find("open entry"), std::string::npos);
}

class RealTileiras : public ::testing::Test {
protected:
  void SetUp() override {
    auto tool = target::findTool(target::Tool::Tileiras);
    if (!tool)
      GTEST_SKIP() << "SKIP: no tileiras (" << llvm::toString(tool.takeError())
                   << "); scripts/setup.sh installs tileiras 13.3";
    tool_ = *tool;
  }
  void expectCubin(const SmokeKernel &k, Target t) {
    ASSERT_TRUE(k.error.empty()) << k.error;
    expectCubin(k.bytecode, t);
  }
  void expectCubin(const Bytes &bc, Target t) {
    ASSERT_FALSE(bc.empty());
    auto cubin = assemble(tool_, bc, t);
    ASSERT_TRUE(static_cast<bool>(cubin)) << target::takeTargetFailure(cubin.takeError()).message;
    ASSERT_GT(cubin->size(), 4u);
    EXPECT_EQ(Bytes(cubin->begin(), cubin->begin() + 4), (Bytes{0x7F, 'E', 'L', 'F'}));
  }
  target::ToolLocation tool_;
};

TEST_F(RealTileiras, ListsVersionsAndTheChoiceIsTheNewestCommonOne) {
  ChoiceOptions o;
  o.search.overrides[target::Tool::Tileiras] = tool_.path;
  o.pin = std::nullopt;
  auto c = chooseAssembler(o);
  ASSERT_TRUE(static_cast<bool>(c)) << target::takeTargetFailure(c.takeError()).message;
  EXPECT_EQ(c->how, AssemblerChoice::How::Listed);
  EXPECT_GE(c->version, (Version{13, 3})) << c->describe();
}

TEST_F(RealTileiras, ElementwiseAssemblesForSm90AndSm100) {
  expectCubin(probeKernel(Version{13, 3}), Target::Sm90);
  expectCubin(probeKernel(Version{13, 3}), Target::Sm100);
}

TEST_F(RealTileiras, DynamicExtentsFromAKernelParameterAssemble) {
  auto k = elementwiseAddDynamicKernel(Version{13, 3}, 1024, 4);
  expectCubin(k, Target::Sm90);
  expectCubin(k, Target::Sm100);
}

TEST_F(RealTileiras, Version13_2AssemblesForSm100) {
  expectCubin(probeKernel(Version{13, 2}), Target::Sm100);
}

TEST_F(RealTileiras, GemmAssemblesForSm90AndSm100) {
  expectCubin(gemmKernel(Version{13, 3}, 128, 128, 64, 64, 64, 32), Target::Sm90);
  // sm_100 lowers mmaf to tcgen05; at 64x64 tiles that takes tileiras minutes
  // of CPU, so the Blackwell check uses 32x32 tiles.
  expectCubin(gemmKernel(Version{13, 3}, 64, 64, 64, 32, 32, 16), Target::Sm100);
}

TEST_F(RealTileiras, SoftmaxAssemblesForSm90AndSm100) {
  expectCubin(softmaxKernel(Version{13, 3}, 64, 128, 16), Target::Sm90);
  expectCubin(softmaxKernel(Version{13, 3}, 64, 128, 16), Target::Sm100);
}

TEST_F(RealTileiras, CorruptBytecodeIsAnAssemblyFailure) {
  Bytes bc = probeKernel(Version{13, 3});
  bc.resize(bc.size() / 2);
  auto cubin = assemble(tool_, bc, Target::Sm100);
  ASSERT_FALSE(static_cast<bool>(cubin));
  EXPECT_EQ(target::takeTargetFailure(cubin.takeError()).id, DiagId::TileIrAssemblyFailed);
}

} // namespace
