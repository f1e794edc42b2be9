//===- ToolsTest.cpp - CUDA tool discovery --------------------------------===//
//
// The search order of Tools.h with real files in temporary directories,
// the clear error for a missing tool, and the real ptxas of the project.
//
//===----------------------------------------------------------------------===//
#include "target/TargetError.h"
#include "target/Tools.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace kina;
using namespace kina::target;
namespace fs = std::filesystem;

namespace {

/// A temporary directory tree removed at the end of the test.
class TempTree {
public:
  TempTree() {
    root_ = fs::temp_directory_path() /
            ("kina-tools-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::create_directories(root_);
  }
  ~TempTree() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  /// Creates an executable shell script at `relative`.
  std::string executable(const std::string &relative, const std::string &body = "exit 0") {
    fs::path p = root_ / relative;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(p, fs::perms::owner_all);
    return p.string();
  }
  std::string path() const { return root_.string(); }

private:
  fs::path root_;
  static inline int counter_ = 0;
};

/// Removes every external place a tool could be found.
struct IsolatedSearch {
  test::ScopedEnv ptxas{"KINA_PTXAS", std::nullopt};
  test::ScopedEnv nvdisasm{"KINA_NVDISASM", std::nullopt};
  test::ScopedEnv cuobjdump{"KINA_CUOBJDUMP", std::nullopt};
  test::ScopedEnv tileiras{"KINA_TILEIRAS", std::nullopt};
  test::ScopedEnv cudaHome{"CUDA_HOME", std::nullopt};
  test::ScopedEnv path{"PATH", std::string("/nonexistent-kina-path")};
  test::ScopedEnv home{"KINA_HOME", std::nullopt};
};

TEST(Tools, Names) {
  EXPECT_EQ(toolName(Tool::Ptxas), "ptxas");
  EXPECT_EQ(toolEnvVar(Tool::Tileiras), "KINA_TILEIRAS");
  EXPECT_EQ(parseToolName("nvdisasm"), Tool::Nvdisasm);
  EXPECT_EQ(parseToolName("nvcc"), std::nullopt);
}

TEST(Tools, EnvVarPointingNowhereIsAClearError) {
  test::ScopedEnv env("KINA_PTXAS", std::string("/nonexistent/bin/ptxas"));
  auto found = findTool(Tool::Ptxas);
  ASSERT_FALSE(found);
  TargetFailure f = takeTargetFailure(found.takeError());
  EXPECT_EQ(f.id, DiagId::ToolNotFound);
  EXPECT_NE(f.message.find("KINA_PTXAS=/nonexistent/bin/ptxas is not an executable file"),
            std::string::npos)
      << f.message;
  EXPECT_NE(f.message.find("scripts/setup.sh"), std::string::npos) << f.message;
}

TEST(Tools, NothingFoundNamesToolPlacesAndRemedy) {
  IsolatedSearch isolated;
  TempTree emptyHome;
  ToolSearchOptions opts;
  opts.kinaHome = emptyHome.path();
  auto found = findTool(Tool::Nvdisasm, opts);
  ASSERT_FALSE(found);
  TargetFailure f = takeTargetFailure(found.takeError());
  EXPECT_EQ(f.id, DiagId::ToolNotFound);
  for (const char *part : {"nvdisasm not found", "KINA_NVDISASM", "CUDA_HOME", "PATH",
                           ".deps/cuda", "scripts/setup.sh", "nvidia-cuda-nvdisasm"})
    EXPECT_NE(f.message.find(part), std::string::npos) << part << " in: " << f.message;
}

TEST(Tools, SearchOrder) {
  IsolatedSearch isolated;
  TempTree tree;
  std::string deps = tree.executable("home/.deps/cuda/nvidia/cu13/bin/ptxas");
  std::string onPath = tree.executable("pathdir/ptxas");
  std::string cuda = tree.executable("cuda/bin/ptxas");
  std::string env = tree.executable("env/ptxas");
  std::string over = tree.executable("override/ptxas");
  ToolSearchOptions opts;
  opts.kinaHome = tree.path() + "/home";

  auto expect = [&](const std::string &path, ToolSource source) {
    auto found = findTool(Tool::Ptxas, opts);
    ASSERT_TRUE(bool(found)) << llvm::toString(found.takeError());
    EXPECT_EQ(found->path, path);
    EXPECT_EQ(found->source, source);
  };
  expect(deps, ToolSource::ProjectDeps);
  test::ScopedEnv p("PATH", tree.path() + "/pathdir");
  expect(onPath, ToolSource::Path);
  test::ScopedEnv c("CUDA_HOME", tree.path() + "/cuda");
  expect(cuda, ToolSource::CudaHome);
  test::ScopedEnv e("KINA_PTXAS", env);
  expect(env, ToolSource::EnvVar);
  opts.overrides[Tool::Ptxas] = over;
  expect(over, ToolSource::Override);
  opts.overrides[Tool::Ptxas] = tree.path() + "/override/missing";
  EXPECT_FALSE(bool(findTool(Tool::Ptxas, opts)));
  llvm::consumeError(findTool(Tool::Ptxas, opts).takeError());
}

TEST(Tools, KinaHomeFromEnvironment) {
  IsolatedSearch isolated;
  TempTree tree;
  std::string deps = tree.executable("repo/.deps/cuda/x/bin/cuobjdump");
  test::ScopedEnv h("KINA_HOME", tree.path() + "/repo");
  EXPECT_EQ(findKinaHome(), tree.path() + "/repo");
  auto found = findTool("cuobjdump");
  ASSERT_TRUE(bool(found)) << llvm::toString(found.takeError());
  EXPECT_EQ(found->path, deps);
}

TEST(Tools, UnknownToolName) {
  auto found = findTool("nvcc-but-misspelled");
  ASSERT_FALSE(found);
  EXPECT_EQ(takeTargetFailure(found.takeError()).id, DiagId::ToolNotFound);
}

TEST(Tools, VersionOfAFakeToolWithoutReleaseIsAnError) {
  TempTree tree;
  std::string fake = tree.executable("bin/ptxas", "echo 'not a CUDA tool'");
  auto v = toolVersion(ToolLocation{Tool::Ptxas, fake, ToolSource::Override});
  ASSERT_FALSE(v);
  EXPECT_EQ(takeTargetFailure(v.takeError()).id, DiagId::ToolFailed);
}

TEST(Tools, RunProcessCapturesOutputAndExitCode) {
  TempTree tree;
  std::string script = tree.executable("bin/t", "echo out; echo err >&2; exit 3");
  auto r = runProcess(script, {});
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(r->exitCode, 3);
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
  auto missing = runProcess(tree.path() + "/bin/none", {});
  ASSERT_FALSE(missing);
  EXPECT_EQ(takeTargetFailure(missing.takeError()).id, DiagId::ToolFailed);
}

TEST(Tools, ProjectPtxasIsFoundAndIs13_0) {
  auto found = findTool(Tool::Ptxas);
  ASSERT_TRUE(bool(found)) << llvm::toString(found.takeError());
  auto v = toolVersion(*found);
  ASSERT_TRUE(bool(v)) << llvm::toString(v.takeError());
  // DESIGN.md 3.9: no newer than the GPU machine's driver (CUDA 13.0).
  EXPECT_EQ(v->release, (CudaVersion{13, 0})) << v->text;
  EXPECT_FALSE(v->build.empty());
}

} // namespace
