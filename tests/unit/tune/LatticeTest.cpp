// The lattice is complete: checkLattice (threads, one item per point) finds
// exactly the legal points that point-by-point analyze() (the path of
// `kina check --param`) finds, on a small lattice of the tuned Hopper GEMM,
// and every rejection carries its reason class.
#include "tune/Lattice.h"
#include "sema/Frontend.h"
#include "syntax/Parser.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

using namespace kina;

namespace {

syntax::ParseOptions pristine() {
  syntax::ParseOptions o;
  o.instantiateTuneDefaults = false;
  return o;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void replaceAll(std::string &s, const std::string &from, const std::string &to) {
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
    s.replace(at, from.size(), to);
}

/// The tuned BF16 GEMM with a lattice of 3 x 2 x 3 x 2 = 36 points per kernel.
std::string smallLattice() {
  std::string text = readFile(KINA_SOURCE_DIR "/stdlib/gemm_bf16_hopper_tuned.kina");
  replaceAll(text, "tune BM in {64, 128, 192, 256} = 128", "tune BM in {64, 128, 256} = 128");
  replaceAll(text, "tune BN in {64, 128, 192, 256} = 256", "tune BN in {128, 256} = 256");
  replaceAll(text, "tune STAGES in {2, 3, 4, 5, 6} = 3", "tune STAGES in {2, 4, 6} = 4");
  return text;
}

} // namespace

TEST(Lattice, MatchesPointByPointCheck) {
  SourceFile file("tuned.kina", smallLattice());
  syntax::ParseResult parse = syntax::parse(file, pristine());
  ASSERT_TRUE(parse.diagnostics.empty());
  tune::LatticeOptions lo;
  lo.target = "sm_90a";
  lo.kernels = {"gemm_bf16_hopper_tuned"};
  lo.threads = 2;
  tune::LatticeResult lat = tune::checkLattice(file, parse.module, lo);
  ASSERT_EQ(lat.size, 36u);
  std::set<std::string> legal, expected;
  for (const tune::PointResult &p : lat.points) {
    if (p.legal())
      legal.insert(p.pointText);
    else
      EXPECT_FALSE(p.codes.empty()) << p.pointText;
  }
  // The exhaustive reference: each point through the ordinary frontend.
  for (const tune::PointResult &p : lat.points) {
    sema::FrontendOptions fe;
    fe.target = "sm_90a";
    fe.tunePoint = p.point;
    fe.onlyItems = {p.item};
    sema::Analysis a = sema::analyze(file, fe);
    bool errors = false;
    for (const Diagnostic &d : a.diagnostics)
      errors |= d.severity() == Severity::Error;
    if (!errors)
      expected.insert(p.pointText);
  }
  EXPECT_EQ(legal, expected);
  EXPECT_EQ(lat.legal, legal.size());
  EXPECT_GT(lat.legal, 0u);
  EXPECT_LT(lat.legal, lat.size);
  // The default point is the hand-written persistent kernel: legal.
  EXPECT_TRUE(legal.count("BM=128,BN=256,STAGES=4,CREGS=232") ||
              legal.count("BM=128,BN=256,STAGES=2,CREGS=232"));
  // Too many stages of 128 + 256 rows do not fit shared memory, and four
  // consumers of 232 registers do not fit the register file.
  EXPECT_GT(lat.rejected[static_cast<int>(tune::Reason::SharedMemory)], 0u);
  EXPECT_GT(lat.rejected[static_cast<int>(tune::Reason::Registers)], 0u);
  // The thread count does not change the result.
  lo.threads = 1;
  tune::LatticeResult one = tune::checkLattice(file, parse.module, lo);
  for (size_t i = 0; i < lat.points.size(); ++i) {
    EXPECT_EQ(one.points[i].reason, lat.points[i].reason) << lat.points[i].pointText;
    EXPECT_EQ(one.points[i].codes, lat.points[i].codes) << lat.points[i].pointText;
  }
}

TEST(Lattice, ShapeRequirementsRejectByDivisibility) {
  SourceFile file("tuned.kina", smallLattice());
  syntax::ParseResult parse = syntax::parse(file, pristine());
  tune::LatticeOptions lo;
  lo.target = "sm_90a";
  lo.kernels = {"gemm_bf16_hopper_tuned"};
  lo.shape = {{"M", 4096}, {"N", 4096 + 128}, {"K", 4096}};
  tune::LatticeResult lat = tune::checkLattice(file, parse.module, lo);
  for (const tune::PointResult &p : lat.points)
    if (p.point.at("BN") == 256) {
      // N = 4224 is not a multiple of 256: never legal at this shape.
      EXPECT_FALSE(p.legal()) << p.pointText;
      if (!p.codes.empty() && p.codes.front() == "requires") {
        EXPECT_EQ(p.reason, tune::Reason::Divisibility);
      }
    }
}

TEST(Lattice, ReasonClasses) {
  EXPECT_EQ(tune::reasonForCode("K0801", DiagClass::Resource), tune::Reason::SharedMemory);
  EXPECT_EQ(tune::reasonForCode("K0921", DiagClass::Resource), tune::Reason::Registers);
  EXPECT_EQ(tune::reasonForCode("K0204", DiagClass::Divisibility), tune::Reason::Alignment);
  EXPECT_EQ(tune::reasonForCode("K0410", DiagClass::Placement), tune::Reason::Alignment);
  EXPECT_EQ(tune::reasonForCode("K0201", DiagClass::Divisibility), tune::Reason::Divisibility);
  EXPECT_EQ(tune::reasonForCode("K0501", DiagClass::Capability), tune::Reason::Capability);
  EXPECT_EQ(tune::reasonForCode("K0630", DiagClass::Fence), tune::Reason::Fences);
  EXPECT_EQ(tune::reasonForCode("K0101", DiagClass::Shape), tune::Reason::Other);
}
