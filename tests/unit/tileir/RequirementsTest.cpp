//===- RequirementsTest.cpp - The registry holds seed 000's tables --------===//
//
// The expected rows are written out here a second time, as the seed prints
// them, so a changed .def row fails a test rather than silently changing
// the documentation with it.
//
//===----------------------------------------------------------------------===//
#include "tileir/Requirements.h"

#include <gtest/gtest.h>

using namespace kina::tileir;

namespace {

struct SeedRow {
  const char *name;
  const char *v132, *v133, *v134;
  const char *target;
};

// Seed 000, "Feature | 13.2 | 13.3 | 13.4 | Target requirement", in order.
const SeedRow kSeed[] = {
    {"baseline Tile IR", "Yes", "Yes", "Yes", "sm_80+"},
    {"alloca", "—", "Yes", "Yes", "Any supported target"},
    {"pack/unpack", "—", "Yes", "Yes", "Any supported target"},
    {"block-scaled MMA", "—", "Yes", "Yes", "sm_100+"},
    {"gather_scatter_view", "—", "Yes", "Yes", "Any supported target"},
    {"strided_view", "—", "Yes", "Yes", "Any supported target"},
    {"atomic_red_view_tko", "—", "Yes", "Yes", "Any supported target"},
    {"insert", "—", "—", "Yes", "Any supported target"},
    {"fpowi", "—", "—", "Yes", "Any supported target"},
    {"GDC tokens", "—", "—", "Yes", "Any supported target"},
    {"memory_fence_alias_tko", "—", "—", "Yes", "Any supported target"},
    {"i4", "—", "Yes", "Yes", "Any supported target"},
    {"f8E4M3FN/f8E5M2", "Yes", "Yes", "Yes", "sm_90+"},
    {"f8E8M0FNU", "Yes", "Yes", "Yes", "sm_100+"},
    {"f4E2M1FN", "—", "Yes", "Yes", "sm_100+"},
    {"f8E5M3FNU", "—", "—", "Yes", "sm_107+"},
    {"cuda_tile.mmaf_scaled with f8E5M3FNU scales", "—", "—", "Yes", "sm_107 only"},
    {"ptr_attr", "—", "—", "Yes", "Any supported target"},
    {"rounding_mode=nearest_away", "—", "—", "Yes", "Any supported target"},
    {"ftof additional rounding modes (type-dependent)", "—", "—", "Yes", "Any supported target"},
    {"ftoi.saturating", "—", "—", "Yes", "Any supported target"},
    {"inbounds=true", "—", "—", "Yes", "Any supported target"},
    {"mmaf.fast_acc", "—", "Yes", "Yes", "Any supported target"},
    {"exp.rounding_mode (non-approximate)", "—", "Yes", "Yes", "Any supported target"},
    {"module.producer", "—", "Yes", "Yes", "Any supported target"},
    {"global.constant", "—", "Yes", "Yes", "Any supported target"},
    {"global.symbol_visibility", "—", "Yes", "Yes", "Any supported target"},
    {"num_worker_warps_per_cta", "—", "Yes", "Yes", "Any supported target"},
    {"num_cta_in_cga greater than 1", "Yes", "Yes", "Yes", "sm_90+"},
    {"num_worker_warps_per_cta restricted to 4 or 8", "—", "—", "Yes", "Any supported target"},
    {"bf16 atomic add", "—", "Yes", "Yes", "sm_90+"},
    {"return inside loop", "—", "—", "Yes", "Any supported target"},
    {"target sm_90", "—", "Yes", "Yes", "sm_90 only"},
    {"target sm_107", "—", "—", "Yes", "sm_107 only"},
    {"programmatic dependent launch", "—", "—", "Yes", "sm_90+"},
};

// Seed 000, "Target | Minimum emitted Tile IR version".
const std::pair<const char *, const char *> kSeedTargets[] = {
    {"sm_80", "13.2"},  {"sm_86", "13.2"},  {"sm_87", "13.2"},  {"sm_88", "13.2"},
    {"sm_89", "13.2"},  {"sm_90", "13.3"},  {"sm_100", "13.2"}, {"sm_103", "13.2"},
    {"sm_107", "13.4"}, {"sm_110", "13.2"}, {"sm_120", "13.2"}, {"sm_121", "13.2"},
};

Target T(const char *name) { return *parseTarget(name); }
Version V(const char *text) { return *parseVersion(text); }

/// The targets a "shown" text stands for, spelled out independently.
std::vector<std::string> expectedTargets(std::string_view shown) {
  std::vector<std::string> all;
  for (auto &[t, v] : kSeedTargets)
    all.push_back(t);
  auto from = [&](int cc) {
    std::vector<std::string> r;
    for (auto &t : all)
      if (std::stoi(t.substr(3)) >= cc)
        r.push_back(t);
    return r;
  };
  if (shown == "Any supported target" || shown == "sm_80+")
    return all;
  if (shown == "sm_90+")
    return from(90);
  if (shown == "sm_100+")
    return from(100);
  if (shown == "sm_107+")
    return from(107);
  if (shown == "sm_90 only")
    return {"sm_90"};
  if (shown == "sm_107 only")
    return {"sm_107"};
  ADD_FAILURE() << "unknown target requirement " << shown;
  return {};
}

TEST(TileIrRegistry, EveryFeatureRowOfTheSeed) {
  auto features = allFeatures();
  ASSERT_EQ(features.size(), std::size(kSeed));
  for (size_t i = 0; i < features.size(); ++i) {
    const FeatureRow &f = features[i];
    const SeedRow &s = kSeed[i];
    SCOPED_TRACE(s.name);
    EXPECT_EQ(f.name, s.name);
    EXPECT_EQ(featureInVersion(f.id, V("13.2")), std::string(s.v132) == "Yes");
    EXPECT_EQ(featureInVersion(f.id, V("13.3")), std::string(s.v133) == "Yes");
    EXPECT_EQ(featureInVersion(f.id, V("13.4")), std::string(s.v134) == "Yes");
    EXPECT_EQ(f.shown, s.target);
    std::vector<std::string> got;
    for (const TargetRow &t : allTargets())
      if (featureOnTarget(f.id, t.id))
        got.emplace_back(t.name);
    EXPECT_EQ(got, expectedTargets(s.target));
  }
}

TEST(TileIrRegistry, EveryTargetRowOfTheSeed) {
  auto targets = allTargets();
  ASSERT_EQ(targets.size(), std::size(kSeedTargets));
  for (size_t i = 0; i < targets.size(); ++i) {
    EXPECT_EQ(targets[i].name, kSeedTargets[i].first);
    EXPECT_EQ(targets[i].minVersion.str(), kSeedTargets[i].second) << targets[i].name;
  }
}

TEST(TileIrRegistry, ParsesVersionsAndTargets) {
  EXPECT_EQ(parseVersion("13.3"), (Version{13, 3}));
  EXPECT_FALSE(parseVersion("13"));
  EXPECT_FALSE(parseVersion("13.3.1"));
  EXPECT_FALSE(parseVersion("thirteen.3"));
  EXPECT_FALSE(parseVersion(""));
  EXPECT_EQ(parseTarget("sm_90a"), Target::Sm90); // Tile IR has no arch-specific variant
  EXPECT_FALSE(parseTarget("sm_70"));
  EXPECT_FALSE(parseTarget("sm_9"));
}

TEST(TileIrRegistry, HopperNeeds13_3EvenWhenTheOpsAreOlder) {
  ModuleRequirements req; // baseline only: every op exists in 13.2
  auto m = checkRequirements(req, V("13.2"), T("sm_90"));
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].kind, Missing::Kind::TargetNeedsVersion);
  EXPECT_EQ(m[0].needed, V("13.3"));
  EXPECT_NE(m[0].message.find("sm_90 needs Tile IR 13.3"), std::string::npos) << m[0].message;
  EXPECT_NE(m[0].message.find("13.2"), std::string::npos);
  EXPECT_TRUE(checkRequirements(req, V("13.3"), T("sm_90")).empty());
  EXPECT_TRUE(checkRequirements(req, V("13.2"), T("sm_100")).empty());
  EXPECT_EQ(checkRequirements(req, V("13.3"), T("sm_107")).size(), 1u); // sm_107 needs 13.4
  EXPECT_EQ(minimumVersionFor(req, T("sm_90")), V("13.3"));
}

TEST(TileIrRegistry, RequirementsCombineFp4Packing) {
  ModuleRequirements fp4pack;
  fp4pack.add(Feature::PackUnpack);
  fp4pack.add(Feature::F4E2M1FN);
  // 13.3 on sm_100: both present.
  EXPECT_TRUE(checkRequirements(fp4pack, V("13.3"), T("sm_100")).empty());
  // 13.2: both missing, each named.
  auto m = checkRequirements(fp4pack, V("13.2"), T("sm_100"));
  ASSERT_EQ(m.size(), 2u);
  std::string all = m[0].message + "\n" + m[1].message;
  EXPECT_NE(all.find("`pack/unpack` needs Tile IR 13.3"), std::string::npos) << all;
  EXPECT_NE(all.find("`f4E2M1FN` needs Tile IR 13.3"), std::string::npos) << all;
  // On sm_80 the version suffices but the FP4 type is not there; pack/unpack is.
  m = checkRequirements(fp4pack, V("13.3"), T("sm_80"));
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].kind, Missing::Kind::TargetLacks);
  EXPECT_EQ(m[0].feature, Feature::F4E2M1FN);
}

TEST(TileIrRegistry, ArchitectureNumbersAreNotAHierarchy) {
  // sm_120 has NVFP4 but not scaled MMA with f8E5M3FNU scales (sm_107 only).
  EXPECT_TRUE(featureOnTarget(Feature::F4E2M1FN, T("sm_120")));
  EXPECT_TRUE(featureOnTarget(Feature::BlockScaledMma, T("sm_120")));
  EXPECT_FALSE(featureOnTarget(Feature::MmafScaledF8E5M3FNU, T("sm_120")));
  EXPECT_FALSE(featureOnTarget(Feature::MmafScaledF8E5M3FNU, T("sm_110")));
  EXPECT_TRUE(featureOnTarget(Feature::MmafScaledF8E5M3FNU, T("sm_107")));
  ModuleRequirements req;
  req.add(Feature::MmafScaledF8E5M3FNU);
  auto m = checkRequirements(req, V("13.4"), T("sm_120"));
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].kind, Missing::Kind::TargetLacks);
  EXPECT_NE(m[0].message.find("not available on sm_120"), std::string::npos) << m[0].message;
  EXPECT_NE(m[0].message.find("sm_107 only"), std::string::npos) << m[0].message;
}

TEST(TileIrRegistry, A13_4FeatureAgainstA13_3AssemblerNamesBothVersions) {
  ModuleRequirements req;
  req.add(Feature::Fpowi);
  auto m = checkRequirements(req, V("13.3"), T("sm_100"),
                             "tileiras /opt/tileiras (--list-versions: 13.1, 13.2, 13.3)");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].kind, Missing::Kind::VersionTooOld);
  EXPECT_EQ(m[0].needed, V("13.4"));
  EXPECT_EQ(m[0].message, "`fpowi` needs Tile IR 13.4, but the emitted version is 13.3 "
                          "(tileiras /opt/tileiras (--list-versions: 13.1, 13.2, 13.3))");
}

TEST(TileIrRegistry, NumWorkerWarpsPerCtaValuesPerVersion) {
  EXPECT_EQ(workerWarpValues(V("13.2")), std::vector<int>{});
  EXPECT_EQ(workerWarpValues(V("13.3")), (std::vector<int>{1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(workerWarpValues(V("13.4")), (std::vector<int>{4, 8}));
  for (int n : {1, 2, 4, 8, 16, 32}) {
    ModuleRequirements req;
    req.numWorkerWarpsPerCta = n;
    EXPECT_TRUE(checkRequirements(req, V("13.3"), T("sm_100")).empty()) << n;
    auto m = checkRequirements(req, V("13.4"), T("sm_100"));
    EXPECT_EQ(m.empty(), n == 4 || n == 8) << n;
    if (!m.empty()) {
      EXPECT_EQ(m[0].kind, Missing::Kind::BadValue);
      EXPECT_NE(m[0].message.find("accepts 4 or 8"), std::string::npos) << m[0].message;
    }
  }
  ModuleRequirements three;
  three.numWorkerWarpsPerCta = 3;
  EXPECT_EQ(checkRequirements(three, V("13.3"), T("sm_100")).size(), 1u);
  // The hint itself needs 13.3.
  ModuleRequirements four;
  four.numWorkerWarpsPerCta = 4;
  auto m = checkRequirements(four, V("13.2"), T("sm_100"));
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].feature, Feature::NumWorkerWarpsPerCta);
}

TEST(TileIrRegistry, ClustersNeedHopperOrNewer) {
  ModuleRequirements req;
  req.numCtaInCga = 2;
  EXPECT_EQ(checkRequirements(req, V("13.3"), T("sm_89")).size(), 1u);
  EXPECT_TRUE(checkRequirements(req, V("13.3"), T("sm_90")).empty());
  req.numCtaInCga = 1; // one CTA per cluster is no cluster requirement
  EXPECT_TRUE(checkRequirements(req, V("13.2"), T("sm_89")).empty());
}

} // namespace
