//===- RegistryTest.cpp - The capability registry -------------------------===//
//
// Lookups, explicit (non-ladder) capability sets, spelling suggestions and
// the target/PTX validation that runs before LLVM.
//
//===----------------------------------------------------------------------===//
#include "target/Registry.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace kina::target;

namespace {

TargetId id(std::string_view name) {
  const TargetInfo *t = lookupTarget(name);
  EXPECT_NE(t, nullptr) << name;
  return t ? t->id : TargetId::Sm80;
}
CapabilityId cap(std::string_view name) {
  auto c = parseCapabilityName(name);
  EXPECT_TRUE(c.has_value()) << name;
  return c.value_or(CapabilityId::CpAsync);
}
std::vector<std::string> names(const std::vector<TargetId> &ids) {
  std::vector<std::string> out;
  for (TargetId t : ids)
    out.emplace_back(targetInfo(t).name);
  return out;
}

TEST(Registry, TargetsRequiredByTheIssueExist) {
  for (const char *n : {"sm_70", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a",
                        "sm_100", "sm_100a", "sm_103a", "sm_120", "sm_120a"})
    EXPECT_NE(lookupTarget(n), nullptr) << n;
  EXPECT_EQ(lookupTarget("sm_91"), nullptr);
  EXPECT_EQ(lookupTarget("SM_80"), nullptr); // exact lookup; suggestions handle case
  EXPECT_EQ(lookupTarget(""), nullptr);
}

TEST(Registry, TargetLimits) {
  const TargetInfo &a100 = targetInfo(id("sm_80"));
  EXPECT_EQ(a100.ccMajor, 8);
  EXPECT_EQ(a100.ccMinor, 0);
  EXPECT_EQ(a100.staticSmemPerBlock, 48u * 1024);
  EXPECT_EQ(a100.maxSmemPerBlockOptin, 163u * 1024);
  EXPECT_EQ(a100.smemPerSM, 164u * 1024);
  EXPECT_EQ(a100.regsPerSM, 65536u);
  EXPECT_EQ(a100.maxRegsPerThread, 255u);
  EXPECT_EQ(a100.maxWarpsPerSM, 64u);
  EXPECT_EQ(a100.maxThreadsPerSM, 2048u);
  const TargetInfo &h100 = targetInfo(id("sm_90a"));
  EXPECT_TRUE(h100.archSpecific);
  EXPECT_EQ(h100.maxSmemPerBlockOptin, 227u * 1024);
  EXPECT_FALSE(targetInfo(id("sm_90")).archSpecific);
  EXPECT_EQ(targetInfo(id("sm_86")).maxThreadsPerSM, 1536u);
  for (const TargetInfo &t : allTargets()) {
    EXPECT_EQ(t.maxThreadsPerSM, t.maxWarpsPerSM * 32) << t.name;
    EXPECT_LE(t.maxSmemPerBlockOptin, t.smemPerSM) << t.name;
    EXPECT_GE(t.defaultPtx, t.minPtx) << t.name;
    EXPECT_LE(t.defaultPtx, kMaxEmittedPtx) << t.name;
    EXPECT_EQ(lookupTarget(t.name), &t);
  }
}

TEST(Registry, DefaultPtxVersionsArePinned) {
  EXPECT_EQ(targetInfo(id("sm_80")).defaultPtx, (PtxVersion{7, 0}));
  EXPECT_EQ(targetInfo(id("sm_90")).defaultPtx, (PtxVersion{7, 8}));
  EXPECT_EQ(targetInfo(id("sm_90a")).defaultPtx, (PtxVersion{8, 0}));
  for (const TargetInfo &t : allTargets())
    EXPECT_NE(t.defaultPtx, (PtxVersion{9, 1})) << "ptxas 13.0 rejects 9.1";
}

TEST(Registry, ArchitecturesAreNotALadder) {
  // wgmma: sm_90a only, not on the newer sm_100a or sm_120.
  for (const char *c : {"wgmma_f16", "wgmma_bf16", "wgmma_fp8"})
    EXPECT_EQ(names(targetsWith(cap(c))), std::vector<std::string>{"sm_90a"}) << c;
  // tcgen05: the sm_100a family only.
  EXPECT_EQ(names(targetsWith(cap("tcgen05"))),
            (std::vector<std::string>{"sm_100a", "sm_103a"}));
  EXPECT_FALSE(hasCapability(id("sm_120a"), cap("tcgen05")));
  EXPECT_FALSE(hasCapability(id("sm_100"), cap("tcgen05")));
  // fp8 mma exists on sm_89 but not on the "larger" sm_80/86/87.
  EXPECT_TRUE(hasCapability(id("sm_89"), cap("mma_m16n8k32_e4m3_e4m3_f32")));
  EXPECT_FALSE(hasCapability(id("sm_87"), cap("mma_m16n8k32_e4m3_e4m3_f32")));
  EXPECT_TRUE(hasCapability(id("sm_120"), cap("mma_m16n8k32_e4m3_e4m3_f32")));
  // cp.async: sm_80 family and later; not Turing.
  EXPECT_FALSE(hasCapability(id("sm_75"), cap("cp_async")));
  EXPECT_TRUE(hasCapability(id("sm_80"), cap("cp_async")));
  EXPECT_TRUE(hasCapability(id("sm_75"), cap("ldmatrix")));
  EXPECT_FALSE(hasCapability(id("sm_80"), cap("stmatrix")));
  EXPECT_TRUE(hasCapability(id("sm_90"), cap("tma")));
  EXPECT_FALSE(hasCapability(id("sm_89"), cap("tma")));
}

TEST(Registry, CapabilityNamesRoundTrip) {
  auto all = capabilityNames();
  EXPECT_GE(all.size(), 20u);
  for (std::string_view n : all) {
    auto c = parseCapabilityName(n);
    ASSERT_TRUE(c);
    EXPECT_EQ(capabilityInfo(*c).name, n);
    EXPECT_FALSE(capabilityInfo(*c).description.empty());
    EXPECT_FALSE(targetsWith(*c).empty()) << n;
  }
  for (const char *required :
       {"mma_m16n16k16_f16_f16_f32", "mma_m16n16k16_f16_f16_f16", "mma_m16n16k16_bf16_bf16_f32",
        "mma_m16n8k16_f16_f16_f32", "mma_m16n8k16_bf16_bf16_f32", "mma_m16n8k8_tf32_tf32_f32",
        "mma_m16n8k32_s8_s8_s32", "mma_m16n8k32_e4m3_e4m3_f32", "cp_async", "ldmatrix",
        "stmatrix", "wgmma_f16", "wgmma_bf16", "wgmma_fp8", "tma", "mbarrier", "clusters", "fp8",
        "bf16", "dp4a", "tcgen05"})
    EXPECT_TRUE(parseCapabilityName(required)) << required;
  EXPECT_FALSE(parseCapabilityName("cp.async"));
  EXPECT_EQ(targetNames().size(), allTargets().size());
}

TEST(Registry, CapabilitiesOfIsTheInverseOfTargetsWith) {
  for (const TargetInfo &t : allTargets())
    for (CapabilityId c : capabilitiesOf(t.id)) {
      auto ts = targetsWith(c);
      EXPECT_NE(std::find(ts.begin(), ts.end(), t.id), ts.end());
    }
}

TEST(Registry, RequiredPtxIsTheLargerMinimum) {
  EXPECT_EQ(requiredPtx(id("sm_80"), cap("cp_async")), (PtxVersion{7, 0}));
  EXPECT_EQ(requiredPtx(id("sm_120"), cap("cp_async")), (PtxVersion{8, 7}));
  EXPECT_EQ(requiredPtx(id("sm_89"), cap("mma_m16n8k32_e4m3_e4m3_f32")), (PtxVersion{8, 4}));
}

TEST(Registry, DidYouMean) {
  EXPECT_EQ(suggestTarget("sm_08"), "sm_80");
  EXPECT_EQ(suggestTarget("SM_90A"), "sm_90a");
  EXPECT_EQ(suggestTarget("sm90a"), "sm_90a");
  EXPECT_EQ(suggestTarget("sm_80"), std::nullopt); // exact: nothing to suggest
  EXPECT_EQ(suggestTarget("volta-and-friends"), std::nullopt);
  EXPECT_EQ(suggestCapability("cp_asnyc"), "cp_async");
  EXPECT_EQ(suggestCapability("wgmma_f61"), "wgmma_f16");
  EXPECT_EQ(suggestCapability("ldmatrx"), "ldmatrix");
  EXPECT_EQ(suggestCapability("completely_unrelated_words"), std::nullopt);
  EXPECT_NE(unknownTargetMessage("sm_08").find("did you mean `sm_80`?"), std::string::npos);
  EXPECT_NE(unknownCapabilityMessage("cp_asnyc").find("did you mean `cp_async`?"),
            std::string::npos);
}

TEST(Registry, ParsePtxVersion) {
  EXPECT_EQ(parsePtxVersion("8.0"), (PtxVersion{8, 0}));
  EXPECT_EQ(parsePtxVersion("78"), (PtxVersion{7, 8}));
  EXPECT_EQ(parsePtxVersion("+ptx86"), (PtxVersion{8, 6}));
  EXPECT_EQ(parsePtxVersion("9"), (PtxVersion{9, 0}));
  EXPECT_EQ(parsePtxVersion(""), std::nullopt);
  EXPECT_EQ(parsePtxVersion("8.x"), std::nullopt);
  EXPECT_EQ(parsePtxVersion("8.10"), std::nullopt);
  EXPECT_EQ(parsePtxVersion("-1"), std::nullopt);
  EXPECT_EQ(parseCudaVersion("13.0"), (CudaVersion{13, 0}));
  EXPECT_EQ(parseCudaVersion("12.8.93"), (CudaVersion{12, 8}));
  EXPECT_EQ(parseCudaVersion("x"), std::nullopt);
}

TEST(Registry, ValidateTargetPtx) {
  EXPECT_EQ(validateTargetPtx(id("sm_80"), {7, 0}), std::nullopt);
  EXPECT_EQ(validateTargetPtx(id("sm_90a"), {8, 0}), std::nullopt);
  auto tooOld = validateTargetPtx(id("sm_90a"), {7, 8});
  ASSERT_TRUE(tooOld);
  EXPECT_NE(tooOld->find("sm_90a needs PTX ISA 8.0 or newer"), std::string::npos) << *tooOld;
  auto tooNew = validateTargetPtx(id("sm_80"), {9, 1});
  ASSERT_TRUE(tooNew);
  EXPECT_NE(tooNew->find("newer than Kina emits"), std::string::npos) << *tooNew;
  EXPECT_TRUE(validateTargetPtx(id("sm_80"), {7, 9})); // no such PTX ISA
  EXPECT_TRUE(validateTargetPtx(id("sm_100a"), {8, 5}));
  auto unknown = validateTargetPtx("sm_08", "8.0");
  ASSERT_TRUE(unknown);
  EXPECT_NE(unknown->find("did you mean `sm_80`"), std::string::npos);
  EXPECT_TRUE(validateTargetPtx("sm_80", "eight"));
  EXPECT_EQ(validateTargetPtx("sm_120a", "8.7"), std::nullopt);
}

TEST(Registry, ValidateForPtxas) {
  EXPECT_EQ(validateForPtxas(id("sm_90a"), {8, 0}, {13, 0}), std::nullopt);
  auto dropped = validateForPtxas(id("sm_70"), {7, 0}, {13, 0});
  ASSERT_TRUE(dropped);
  EXPECT_NE(dropped->find("no longer supports sm_70"), std::string::npos) << *dropped;
  EXPECT_EQ(validateForPtxas(id("sm_70"), {7, 0}, {12, 4}), std::nullopt);
  EXPECT_TRUE(validateForPtxas(id("sm_120"), {8, 7}, {12, 4})); // too new for 12.4
  EXPECT_TRUE(validateForPtxas(id("sm_80"), {9, 1}, {13, 0}));
  EXPECT_EQ(maxPtxForCuda({13, 0}), (PtxVersion{9, 0}));
  EXPECT_EQ(maxPtxForCuda({12, 7}), (PtxVersion{8, 5}));
  EXPECT_EQ(maxPtxForCuda({8, 0}), std::nullopt);
}

TEST(Registry, ChoosePtxVersion) {
  std::string err;
  std::vector<CapabilityId> none;
  EXPECT_EQ(choosePtxVersion(id("sm_80"), none, std::nullopt, std::nullopt, err),
            (PtxVersion{7, 0}));
  std::vector<CapabilityId> fp8mma{cap("mma_m16n8k32_e4m3_e4m3_f32")};
  EXPECT_EQ(choosePtxVersion(id("sm_89"), fp8mma, std::nullopt, CudaVersion{13, 0}, err),
            (PtxVersion{8, 4}));
  // The capability is missing on the target.
  std::vector<CapabilityId> wgmma{cap("wgmma_f16")};
  EXPECT_EQ(choosePtxVersion(id("sm_100a"), wgmma, std::nullopt, std::nullopt, err), std::nullopt);
  EXPECT_NE(err.find("targets that have it: sm_90a"), std::string::npos) << err;
  // A pin is validated, never raised.
  EXPECT_EQ(choosePtxVersion(id("sm_89"), fp8mma, PtxVersion{7, 8}, std::nullopt, err),
            std::nullopt);
  EXPECT_NE(err.find("too old"), std::string::npos) << err;
  EXPECT_EQ(choosePtxVersion(id("sm_89"), fp8mma, PtxVersion{8, 5}, std::nullopt, err),
            (PtxVersion{8, 5}));
  // The ptxas found must read the result.
  EXPECT_EQ(choosePtxVersion(id("sm_120"), none, std::nullopt, CudaVersion{12, 4}, err),
            std::nullopt);
}

TEST(Registry, TargetsForDevice) {
  EXPECT_EQ(names(targetsForDevice(9, 0)), (std::vector<std::string>{"sm_90", "sm_90a"}));
  EXPECT_EQ(names(targetsForDevice(8, 0)), (std::vector<std::string>{"sm_80"}));
  EXPECT_TRUE(targetsForDevice(5, 2).empty());
}

} // namespace
