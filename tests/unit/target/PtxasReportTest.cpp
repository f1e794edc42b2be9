//===- PtxasReportTest.cpp - ptxas driver and resource report, for real ---===//
//
// Assembles hand-written PTX (tests/lit/target/Inputs) with the project's
// real ptxas and checks that the report's numbers read from the cubin's ELF
// attributes equal what ptxas printed with -v for the same cubin (issue 4
// acceptance), plus the SASS mix and the error paths (bad PTX, impossible
// target/PTX pairs, missing ptxas).
//
//===----------------------------------------------------------------------===//
#include "target/Ptxas.h"
#include "target/ReportJson.h"
#include "target/ResourceReport.h"
#include "target/TargetError.h"

#include "TestSupport.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace kina;
using namespace kina::target;

namespace {

TargetId id(std::string_view n) { return lookupTarget(n)->id; }

std::string input(const std::string &name) {
  auto text = test::readSourceFile("tests/lit/target/Inputs/" + name);
  EXPECT_TRUE(text) << name;
  return text.value_or("");
}

/// Assembles and builds the report; fails the test on any error.
struct Assembled {
  PtxasResult ptxas;
  ResourceReport report;
};
std::optional<Assembled> assemble(const std::string &file, std::string_view target,
                                  PtxasOptions popts = {}, ReportOptions ropts = {}) {
  popts.inputName = file;
  auto result = runPtxas(input(file), id(target), popts);
  if (!result) {
    ADD_FAILURE() << llvm::toString(result.takeError());
    return std::nullopt;
  }
  auto report = buildResourceReport(*result, id(target), ropts);
  if (!report) {
    ADD_FAILURE() << llvm::toString(report.takeError());
    return std::nullopt;
  }
  return Assembled{std::move(*result), std::move(*report)};
}

/// The two sources agree with each other and with the merged numbers.
void expectSourcesAgree(const KernelReport &k) {
  ASSERT_TRUE(k.ptxas) << k.name;
  ASSERT_TRUE(k.cubin) << k.name;
  EXPECT_TRUE(k.mismatches.empty()) << k.mismatches.front();
  ASSERT_TRUE(k.ptxas->registers);
  ASSERT_TRUE(k.cubin->registers);
  EXPECT_EQ(*k.cubin->registers, *k.ptxas->registers);
  if (k.cubin->sectionRegisters) // absent in CUDA 13 sm_90a cubins
    EXPECT_EQ(*k.cubin->sectionRegisters, *k.ptxas->registers);
  EXPECT_EQ(k.registers, *k.ptxas->registers);
  std::uint64_t reserved = k.cubin->usesReservedShared ? 1024 : 0;
  EXPECT_EQ(k.cubin->sharedBytes, k.ptxas->sharedBytes + reserved);
  EXPECT_EQ(k.sharedBytes, k.ptxas->sharedBytes);
  EXPECT_EQ(k.spillStores, k.ptxas->spillStores);
  EXPECT_EQ(k.spillLoads, k.ptxas->spillLoads);
  EXPECT_EQ(k.stackFrame, k.ptxas->stackFrame);
  ASSERT_TRUE(k.cubin->frameSize);
  EXPECT_EQ(*k.cubin->frameSize, k.ptxas->stackFrame);
  ASSERT_TRUE(k.cubin->barriers || k.ptxas->barriers == 0);
  EXPECT_EQ(k.barriers, k.ptxas->barriers);
}

TEST(PtxasReport, MmaCpAsyncKernelOnSm80) {
  ReportOptions ropts;
  ropts.sass = true;
  auto a = assemble("mma_cp_async_sm80.ptx", "sm_80", {}, ropts);
  ASSERT_TRUE(a);
  EXPECT_FALSE(a->ptxas.cubin.empty());
  EXPECT_NE(a->ptxas.log.find("Used "), std::string::npos) << a->ptxas.log;
  ASSERT_EQ(a->report.kernels.size(), 1u);
  const KernelReport &k = a->report.kernels[0];
  EXPECT_EQ(k.name, "tile_mma");
  expectSourcesAgree(k);
  EXPECT_EQ(k.sharedBytes, 6144u); // 4096 + 2048 declared in the PTX
  EXPECT_EQ(k.spillStores, 0u);
  EXPECT_EQ(k.barriers, 1u);
  ASSERT_TRUE(k.ptxas->constBanks.size() == 1);
  EXPECT_EQ(k.constBytes, k.ptxas->constBanks[0].second);
  // Parameters: three pointers and one u32.
  ASSERT_EQ(k.cubin->params.size(), 4u);
  EXPECT_EQ(k.cubin->params[0].size, 8u);
  EXPECT_EQ(k.cubin->params[3].size, 4u);
  EXPECT_EQ(k.cubin->params[3].offset, 24u);
  EXPECT_EQ(k.cubin->paramBytes, 28u);
  // Occupancy from .maxntid 128.
  ASSERT_TRUE(k.threadsPerBlock);
  EXPECT_EQ(*k.threadsPerBlock, 128u);
  EXPECT_EQ(k.threadsSource, ".maxntid");
  ASSERT_TRUE(k.occupancy);
  EXPECT_EQ(k.occupancy->blocksPerSM, 16u);
  // SASS: two mma.sync -> HMMA, two cp.async -> LDGSTS, two ldmatrix -> LDSM.
  ASSERT_TRUE(k.sass) << (a->report.notes.empty() ? "" : a->report.notes[0]);
  EXPECT_EQ(k.sass->count("HMMA"), 2u);
  EXPECT_EQ(k.sass->count("LDGSTS"), 2u);
  EXPECT_EQ(k.sass->count("LDSM"), 2u);
  EXPECT_GE(k.sass->count(SassClass::Barrier), 1u);
  EXPECT_EQ(k.sass->count(SassClass::LocalMemory), 0u);
  EXPECT_GT(k.sass->total, 10u);

  std::string text = renderResourceReport(a->report);
  EXPECT_NE(text.find("registers/thread  " + std::to_string(*k.ptxas->registers)),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("6144 bytes static"), std::string::npos) << text;
  auto json = nlohmann::json::parse(resourceReportToJson(a->report));
  EXPECT_EQ(json["target"], "sm_80");
  EXPECT_EQ(json["kernels"][0]["registers"], *k.ptxas->registers);
  EXPECT_EQ(json["kernels"][0]["sharedBytes"], 6144);
  EXPECT_EQ(json["kernels"][0]["sass"]["opcodes"]["HMMA"], 2);
}

TEST(PtxasReport, TmaWgmmaKernelOnSm90a) {
  ReportOptions ropts;
  ropts.sass = true;
  auto a = assemble("tma_wgmma_sm90a.ptx", "sm_90a", {}, ropts);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->report.kernels.size(), 1u);
  const KernelReport &k = a->report.kernels[0];
  expectSourcesAgree(k);
  EXPECT_EQ(k.sharedBytes, 8192u + 8u); // tile + mbarrier
  EXPECT_TRUE(k.cubin->usesReservedShared);
  EXPECT_EQ(k.cubin->sharedBytes, 8192u + 8u + 1024u);
  EXPECT_EQ(k.threadsSource, ".reqntid");
  ASSERT_TRUE(k.sass);
  EXPECT_GE(k.sass->count("HGMMA"), 1u);
  EXPECT_GE(k.sass->count("UTMALDG"), 1u);
  EXPECT_GE(k.sass->count("SYNCS"), 1u);
}

TEST(PtxasReport, SpillingKernel) {
  PtxasOptions popts;
  popts.maxRegisters = 24;
  ReportOptions ropts;
  ropts.sass = true;
  ropts.threadsPerBlock = 256;
  auto a = assemble("spill_sm80.ptx", "sm_80", popts, ropts);
  ASSERT_TRUE(a);
  const KernelReport &k = a->report.kernels.at(0);
  expectSourcesAgree(k);
  EXPECT_EQ(k.registers, 24u);
  EXPECT_GT(k.spillStores, 0u);
  EXPECT_GT(k.spillLoads, 0u);
  EXPECT_GT(k.stackFrame, 0u);
  EXPECT_EQ(k.threadsSource, "option");
  ASSERT_TRUE(k.sass);
  EXPECT_GT(k.sass->count("STL"), 0u);
  EXPECT_GT(k.sass->count("LDL"), 0u);
}

TEST(PtxasReport, PtxasErrorsCarryPtxasMessages) {
  std::string bad = ".version 7.0\n.target sm_80\n.address_size 64\n"
                    ".visible .entry k()\n{\n  bogus.instruction;\n  ret;\n}\n";
  PtxasOptions opts;
  opts.inputName = "bad.ptx";
  auto r = runPtxas(bad, id("sm_80"), opts);
  ASSERT_FALSE(r);
  TargetFailure f = takeTargetFailure(r.takeError());
  EXPECT_EQ(f.id, DiagId::ToolFailed);
  EXPECT_NE(f.message.find("ptxas 13.0 rejected bad.ptx for sm_80"), std::string::npos)
      << f.message;
  EXPECT_NE(f.message.find("bad.ptx, line 6; error"), std::string::npos) << f.message;
  EXPECT_EQ(f.message.find("/tmp/"), std::string::npos) << f.message;
}

TEST(PtxasReport, ImpossibleCombinationsAreRejectedBeforePtxasRuns) {
  // With no ptxas anywhere, these still fail with the registry's error: the
  // check runs first.
  test::ScopedEnv env("KINA_PTXAS", std::string("/nonexistent/ptxas"));
  auto check = [](const std::string &header, std::string_view target, DiagId expected,
                  const std::string &phrase) {
    std::string ptx = header + ".address_size 64\n.visible .entry k()\n{\n ret;\n}\n";
    auto r = runPtxas(ptx, lookupTarget(target)->id);
    ASSERT_FALSE(r);
    TargetFailure f = takeTargetFailure(r.takeError());
    EXPECT_EQ(f.id, expected) << f.message;
    EXPECT_NE(f.message.find(phrase), std::string::npos) << f.message;
  };
  check(".version 7.8\n.target sm_90a\n", "sm_90a", DiagId::InvalidTargetPtx,
        "sm_90a needs PTX ISA 8.0 or newer");
  check(".version 9.1\n.target sm_80\n", "sm_80", DiagId::InvalidTargetPtx,
        "newer than Kina emits");
  check(".version 8.0\n.target sm_08\n", "sm_80", DiagId::UnknownTarget,
        "did you mean `sm_80`?");
  check(".target sm_80\n", "sm_80", DiagId::InvalidTargetPtx, "no valid `.version`");
  check(".version 8.0\n.target sm_90a\n", "sm_100a", DiagId::InvalidTargetPtx,
        "can only be assembled for sm_90a");
  // A valid pair reaches tool discovery, which reports the missing ptxas.
  check(".version 7.0\n.target sm_80\n", "sm_80", DiagId::ToolNotFound, "KINA_PTXAS");
}

TEST(PtxasReport, TargetDroppedByPtxas13) {
  std::string ptx = ".version 7.0\n.target sm_70\n.address_size 64\n"
                    ".visible .entry k()\n{\n ret;\n}\n";
  auto r = runPtxas(ptx, id("sm_70"));
  ASSERT_FALSE(r);
  TargetFailure f = takeTargetFailure(r.takeError());
  EXPECT_EQ(f.id, DiagId::TargetUnsupportedByTool) << f.message;
  EXPECT_NE(f.message.find("no longer supports sm_70"), std::string::npos) << f.message;
}

TEST(PtxasReport, MissingNvdisasmIsANoteNotAnError) {
  auto result = runPtxas(input("mma_cp_async_sm80.ptx"), id("sm_80"));
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  test::ScopedEnv env("KINA_NVDISASM", std::string("/nonexistent/nvdisasm"));
  ReportOptions ropts;
  ropts.sass = true;
  auto report = buildResourceReport(*result, id("sm_80"), ropts);
  ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
  EXPECT_FALSE(report->kernels.at(0).sass);
  ASSERT_EQ(report->notes.size(), 1u);
  EXPECT_NE(report->notes[0].find("KINA_NVDISASM"), std::string::npos) << report->notes[0];
}

TEST(PtxasReport, HeaderReader) {
  PtxHeader h = readPtxHeader("//\n// comment .version 1.0\n.version 8.0 // pinned\n"
                              ".target sm_90a, debug\n.address_size 64\n");
  EXPECT_EQ(h.version, (PtxVersion{8, 0}));
  EXPECT_EQ(h.targets, (std::vector<std::string>{"sm_90a", "debug"}));
}

} // namespace
