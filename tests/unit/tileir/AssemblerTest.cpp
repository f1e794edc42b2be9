//===- AssemblerTest.cpp - tileiras discovery and version choice ----------===//
//
// Each rule of seed 000 against fake assemblers: small shell scripts that
// list versions (or do not know --list-versions), accept or reject
// bytecode by the version in its header, and log what they were asked.
//
//===----------------------------------------------------------------------===//
#include "tileir/Assembler.h"
#include "target/TargetError.h"
#include "tileir/Bytecode.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace kina;
using namespace kina::tileir;
namespace fs = std::filesystem;

namespace {

class ScopedEnv {
public:
  ScopedEnv(const char *name, std::optional<std::string> value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    if (value)
      ::setenv(name, value->c_str(), 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

private:
  const char *name_;
  std::optional<std::string> old_;
};

class FakeAssemblers : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kina-fake-tileiras-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// A fake tileiras in `sub`/tileiras. `list` is what --list-versions
  /// prints (nullopt: the option is unknown, exit 1). It assembles bytecode
  /// whose header minor version is <= maxMinor, logging "major.minor".
  std::string fake(const std::string &sub, std::optional<std::string> list, int maxMinor = 99,
                   bool failAssembly = false) {
    fs::create_directories(dir_ / sub);
    std::string path = (dir_ / sub / "tileiras").string();
    std::ofstream s(path);
    s << "#!/bin/sh\n";
    s << "if [ \"$1\" = \"--list-versions\" ]; then\n";
    if (list)
      s << "  printf '" << *list << "'; exit 0\n";
    else
      s << "  echo \"tileiras: Unknown command line argument '--list-versions'.\" >&2; exit 1\n";
    s << "fi\n";
    s << "out=''; prev=''; in=''\n"
         "for a in \"$@\"; do if [ \"$prev\" = \"-o\" ]; then out=\"$a\"; fi; prev=\"$a\"; "
         "in=\"$a\"; "
         "done\n";
    s << "ma=$(od -An -tu1 -j8 -N1 \"$in\" | tr -d ' '); mi=$(od -An -tu1 -j9 -N1 \"$in\" | tr -d "
         "' ')\n";
    s << "echo \"$ma.$mi\" >> '" << log() << "'\n";
    if (failAssembly)
      s << "echo 'error: failed to legalize operation' >&2; exit 2\n";
    s << "if [ \"$mi\" -gt " << maxMinor
      << " ]; then echo \"unsupported bytecode version $ma.$mi\" >&2; exit 1; fi\n";
    s << "printf 'CUBIN' > \"$out\"; exit 0\n";
    s.close();
    fs::permissions(path, fs::perms::owner_all);
    return path;
  }
  std::string log() const { return (dir_ / "asked.log").string(); }
  std::string asked() const {
    std::ifstream in(log());
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  ChoiceOptions with(const std::string &tool) {
    ChoiceOptions o;
    o.search.overrides[target::Tool::Tileiras] = tool;
    o.pin = std::nullopt;
    return o;
  }
  static target::TargetFailure failure(llvm::Expected<AssemblerChoice> c) {
    EXPECT_FALSE(static_cast<bool>(c));
    if (c)
      return {DiagId::ToolFailed, "unexpected success: " + c->version.str()};
    return target::takeTargetFailure(c.takeError());
  }

  fs::path dir_;
  ScopedEnv noPin_{kVersionPinEnv, std::nullopt};
};

TEST_F(FakeAssemblers, TheNewestListedVersionTheWriterSupportsIsChosen) {
  auto c = chooseAssembler(with(fake("a", "13.1\\n13.2\\n13.3\\n")));
  ASSERT_TRUE(static_cast<bool>(c)) << llvm::toString(c.takeError());
  EXPECT_EQ(c->version, (Version{13, 3}));
  EXPECT_EQ(c->how, AssemblerChoice::How::Listed);
  EXPECT_EQ(asked(), ""); // listing needs no probe
}

TEST_F(FakeAssemblers, AListedVersionNewerThanTheWriterIsNotChosen) {
  auto c = chooseAssembler(with(fake("a", "13.1\\n13.2\\n13.3\\n13.4\\n")));
  ASSERT_TRUE(static_cast<bool>(c)) << llvm::toString(c.takeError());
  EXPECT_EQ(c->version, (Version{13, 3}));
}

TEST_F(FakeAssemblers, AnAssemblerListingOnlyOlderVersionsIsAnError) {
  auto f = failure(chooseAssembler(with(fake("a", "13.1\\n"))));
  EXPECT_EQ(f.id, DiagId::TileIrNoCommonVersion);
  EXPECT_NE(f.message.find("--list-versions: 13.1"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("13.2, 13.3"), std::string::npos) << f.message;
}

TEST_F(FakeAssemblers, WithoutListVersionsTheAssemblerIsProbedNewestFirst) {
  auto c = chooseAssembler(with(fake("old", std::nullopt, /*maxMinor=*/2)));
  ASSERT_TRUE(static_cast<bool>(c)) << llvm::toString(c.takeError());
  EXPECT_EQ(c->version, (Version{13, 2}));
  EXPECT_EQ(c->how, AssemblerChoice::How::Probed);
  EXPECT_EQ(asked(), "13.3\n13.2\n"); // 13.3 rejected, then 13.2 accepted
  EXPECT_NE(c->describe().find("probed"), std::string::npos);
}

TEST_F(FakeAssemblers, AProbedAssemblerThatAcceptsNothingIsAnError) {
  auto f = failure(chooseAssembler(with(fake("old", std::nullopt, /*maxMinor=*/1))));
  EXPECT_EQ(f.id, DiagId::TileIrNoCommonVersion);
  EXPECT_EQ(asked(), "13.3\n13.2\n");
}

TEST_F(FakeAssemblers, APinnedVersionIsUsedEvenWhenANewerOneIsAvailable) {
  auto o = with(fake("a", "13.1\\n13.2\\n13.3\\n"));
  o.pin = "13.2";
  auto c = chooseAssembler(o);
  ASSERT_TRUE(static_cast<bool>(c)) << llvm::toString(c.takeError());
  EXPECT_EQ(c->version, (Version{13, 2}));
  EXPECT_TRUE(c->pinned);
}

TEST_F(FakeAssemblers, APinnedVersionIsReadFromTheEnvironment) {
  ScopedEnv pin(kVersionPinEnv, "13.2");
  auto c = chooseAssembler(with(fake("a", "13.2\\n13.3\\n")));
  ASSERT_TRUE(static_cast<bool>(c)) << llvm::toString(c.takeError());
  EXPECT_EQ(c->version, (Version{13, 2}));
}

TEST_F(FakeAssemblers, APinnedVersionTheAssemblerLacksIsNeverDowngraded) {
  auto o = with(fake("a", "13.1\\n13.2\\n"));
  o.pin = "13.3";
  auto f = failure(chooseAssembler(o));
  EXPECT_EQ(f.id, DiagId::TileIrVersionUnsupported);
  EXPECT_NE(f.message.find("Tile IR 13.3 was requested"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("never downgraded"), std::string::npos) << f.message;
}

TEST_F(FakeAssemblers, APinnedVersionIsTheOnlyOneProbed) {
  auto o = with(fake("old", std::nullopt, /*maxMinor=*/2));
  o.pin = "13.3";
  auto f = failure(chooseAssembler(o));
  EXPECT_EQ(f.id, DiagId::TileIrVersionUnsupported);
  EXPECT_EQ(asked(), "13.3\n"); // not retried at 13.2
}

TEST_F(FakeAssemblers, APinnedVersionTheWriterLacksIsAnError) {
  auto o = with(fake("a", "13.1\\n13.2\\n13.3\\n13.4\\n"));
  o.pin = "13.4";
  auto f = failure(chooseAssembler(o));
  EXPECT_EQ(f.id, DiagId::TileIrVersionUnsupported);
  EXPECT_NE(f.message.find("writer supports 13.2, 13.3"), std::string::npos) << f.message;
  o.pin = "13";
  f = failure(chooseAssembler(o));
  EXPECT_EQ(f.id, DiagId::TileIrVersionUnsupported);
  EXPECT_NE(f.message.find("not a version like 13.3"), std::string::npos) << f.message;
}

TEST_F(FakeAssemblers, AnExplicitPathTakesPrecedenceOverTheToolkitDirectory) {
  std::string toolkitTool = fake("cuda/bin", "13.2\\n");
  std::string explicitTool = fake("mine", "13.3\\n");
  ScopedEnv cudaHome("CUDA_HOME", (dir_ / "cuda").string());
  {
    ScopedEnv env("KINA_TILEIRAS", explicitTool);
    ChoiceOptions o;
    auto c = chooseAssembler(o);
    ASSERT_TRUE(static_cast<bool>(c)) << llvm::toString(c.takeError());
    EXPECT_EQ(c->tool.path, explicitTool);
    EXPECT_EQ(c->version, (Version{13, 3}));
  }
  {
    ScopedEnv env("KINA_TILEIRAS", std::nullopt);
    ChoiceOptions o;
    auto c = chooseAssembler(o);
    ASSERT_TRUE(static_cast<bool>(c)) << llvm::toString(c.takeError());
    EXPECT_EQ(c->tool.path, toolkitTool);
    EXPECT_EQ(c->version, (Version{13, 2}));
  }
}

TEST_F(FakeAssemblers, AnExplicitPathThatDoesNotExistIsAFailureNotAFallback) {
  std::string toolkitTool = fake("cuda/bin", "13.3\\n");
  ScopedEnv cudaHome("CUDA_HOME", (dir_ / "cuda").string());
  ScopedEnv env("KINA_TILEIRAS", (dir_ / "nope" / "tileiras").string());
  ChoiceOptions o;
  auto f = failure(chooseAssembler(o));
  EXPECT_EQ(f.id, DiagId::ToolNotFound);
}

TEST_F(FakeAssemblers, ANewerDriverDoesNotMakeAnOlderAssemblerReadNewerBytecode) {
  auto o = with(fake("a", "13.1\\n13.2\\n13.3\\n"));
  o.driverVersion = Version{13, 4};
  auto c = chooseAssembler(o);
  ASSERT_TRUE(static_cast<bool>(c)) << llvm::toString(c.takeError());
  EXPECT_EQ(c->version, (Version{13, 3}));
  ModuleRequirements req;
  req.add(Feature::Insert);
  auto m = checkRequirements(req, c->version, Target::Sm100, c->describe());
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].message.find("`insert` needs Tile IR 13.4"), std::string::npos) << m[0].message;
  EXPECT_NE(m[0].message.find("emitted version is 13.3"), std::string::npos) << m[0].message;
  EXPECT_NE(m[0].message.find(c->tool.path), std::string::npos) << m[0].message;
}

TEST_F(FakeAssemblers, AnAssemblyErrorIsAFailureWithTheAssemblersMessage) {
  std::string tool = fake("bad", "13.3\\n", 99, /*failAssembly=*/true);
  auto c = chooseAssembler(with(tool));
  ASSERT_TRUE(static_cast<bool>(c)) << llvm::toString(c.takeError());
  auto cubin = assemble(c->tool, probeKernel(c->version), Target::Sm90);
  ASSERT_FALSE(static_cast<bool>(cubin));
  auto f = target::takeTargetFailure(cubin.takeError());
  EXPECT_EQ(f.id, DiagId::TileIrAssemblyFailed);
  EXPECT_NE(f.message.find("failed to legalize operation"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("--gpu-name=sm_90"), std::string::npos) << f.message;
}

TEST_F(FakeAssemblers, ASuccessfulAssemblyReturnsTheCubin) {
  auto c = chooseAssembler(with(fake("a", "13.3\\n")));
  ASSERT_TRUE(static_cast<bool>(c)) << llvm::toString(c.takeError());
  auto cubin = assemble(c->tool, probeKernel(c->version), Target::Sm100);
  ASSERT_TRUE(static_cast<bool>(cubin)) << llvm::toString(cubin.takeError());
  EXPECT_EQ(std::string(cubin->begin(), cubin->end()), "CUBIN");
  EXPECT_EQ(asked(), "13.3\n");
}

} // namespace
