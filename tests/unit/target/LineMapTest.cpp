// target::mapPtxLines / mapSassLines (issue 17): the shapes NVPTX and
// nvdisasm really print, from the stdlib GEMMs' listings, cut down.
#include "target/LineMap.h"

#include <gtest/gtest.h>

using namespace kina::target;

namespace {

// NVPTX: .loc before instructions, a wgmma in an inline-asm scope at column 0,
// an mma whose operands continue on their own lines, a predicated branch,
// line 0 for hoisted code, and the .file table after the function.
const char *kPtx = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry gemm(
	.param .u64 .ptr .global .align 1 gemm_param_0
)
{
	.reg .b32 	%r<9>;
$L__func_begin0:
	.loc	1 3 0
	ld.param.b64 	%rd1, [gemm_param_0];
	.loc	1 0 7
	shl.b32 	%r1, %r2, 3;
	.loc	1 42 11
	wgmma.fence.sync.aligned;
{
.reg .pred p;
setp.ne.b32 p, %r3, 0;
wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%r4, %r5}, %rd2, %rd3, p, 1, 1, 0, 0;
}
	mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
		{%r1, %r2, %r3, %r4},
		{%r5, %r6};
	.loc	1 45 11
	@%p1 bra 	$L__BB0_2;
	cvt.rn.bf16x2.f32 	%r7, %r8, %r9;
	ret;
$L__func_end0:

}
	.file	1 "stdlib/gemm.kina"
)";

TEST(LineMap, PtxInstructionsGetTheirLocLine) {
  LineMap m = mapPtxLines(kPtx);
  ASSERT_EQ(m.instructions.size(), 9u);
  EXPECT_EQ(m.instructions[0].sourceLine, 3u); // ld.param
  EXPECT_EQ(m.instructions[0].file, "stdlib/gemm.kina");
  EXPECT_EQ(m.instructions[0].function, "gemm");
  EXPECT_EQ(m.instructions[1].sourceLine, 0u); // hoisted: compiler-made
  // Inside the inline-asm scope: still line 42, not lost to its `}`.
  EXPECT_EQ(m.instructions[3].text.substr(0, 4), "setp");
  EXPECT_EQ(m.instructions[4].sourceLine, 42u);
  EXPECT_EQ(m.instructions[4].cls, InstrClass::Mma);
  // After the scope closes, the function goes on.
  const MappedInstruction &mma = m.instructions[5];
  EXPECT_EQ(mma.sourceLine, 42u);
  EXPECT_EQ(mma.cls, InstrClass::Mma);
  EXPECT_EQ(mma.listingEnd, mma.listingLine + 2); // the operand lines belong to it
  EXPECT_NE(mma.text.find("{%r5, %r6};"), std::string::npos);
  EXPECT_EQ(m.instructions[6].sourceLine, 45u); // @%p1 bra
  EXPECT_EQ(m.instructions[7].cls, InstrClass::Convert);
  EXPECT_EQ(m.sourceLineOf(mma.listingLine + 1), 42u);
  EXPECT_EQ(m.ofLines(42, 42).size(), 4u);
  EXPECT_EQ(LineMap::count(m.ofLines(42, 42)).render(),
            "4 instructions: mma 2, barrier 1, other 1");
  std::vector<uint32_t> lines{3, 42, 45};
  EXPECT_EQ(m.sourceLines(), lines);
}

TEST(LineMap, SassLinesFromNvdisasmComments) {
  const char *sass = R"(	.section	.text.gemm,"ax",@progbits
.text.gemm:
	//## File "/w/stdlib/gemm.kina", line 41
        /*0100*/                   LDSM.16.M88.4 R8, [R2] ;
        /*0110*/                   HMMA.16816.F32 R4, R8, R12, R4 ;
	//## File "/w/stdlib/gemm.kina", line 45 inlined at "/w/x.kina", line 3
        /*0120*/               @P0 STL [R1+0x4], R5 ;
        /*0130*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
)";
  LineMap m = mapSassLines(sass);
  ASSERT_EQ(m.instructions.size(), 4u);
  EXPECT_EQ(m.instructions[0].function, "gemm");
  EXPECT_EQ(m.instructions[0].cls, InstrClass::SharedLoad);
  EXPECT_EQ(m.instructions[1].sourceLine, 41u);
  EXPECT_EQ(m.instructions[1].cls, InstrClass::Mma);
  EXPECT_EQ(m.instructions[2].sourceLine, 45u);
  EXPECT_EQ(m.instructions[2].cls, InstrClass::LocalMemory); // predicated spill store
  EXPECT_EQ(m.instructions[2].file, "/w/stdlib/gemm.kina");
  EXPECT_EQ(m.instructions[3].cls, InstrClass::Barrier);
}

TEST(LineMap, EmptyAndGarbageInputGiveNoInstructions) {
  EXPECT_TRUE(mapPtxLines("").instructions.empty());
  EXPECT_TRUE(mapSassLines("").instructions.empty());
  EXPECT_TRUE(mapPtxLines("}\n}\n{\n.loc x y\n.file\n").instructions.empty());
  EXPECT_TRUE(mapSassLines("/*\n//## File \"\n/*00*/\n").instructions.empty());
}

} // namespace
