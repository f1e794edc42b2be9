// Issue 19: NCCL through dlopen, for real: the pinned nvidia-nccl-cu13 wheel
// that scripts/setup.sh unpacks into .deps/nccl (or KINA_LIBNCCL). The
// version needs no GPU; communicators do, and without one their creation is
// a clear error, not a crash.
#include "runtime/Nccl.h"

#include <cstdlib>
#include <gtest/gtest.h>

using namespace kina::runtime;

namespace {

struct EnvGuard {
  std::string name;
  std::optional<std::string> old;
  EnvGuard(const char *n, const char *v) : name(n) {
    if (const char *o = std::getenv(n))
      old = o;
    setenv(n, v, 1);
  }
  ~EnvGuard() {
    if (old)
      setenv(name.c_str(), old->c_str(), 1);
    else
      unsetenv(name.c_str());
  }
};

} // namespace

TEST(Nccl, LoadsAndReportsItsVersion) {
  std::string error;
  auto nccl = Nccl::load(error);
  if (!nccl)
    GTEST_SKIP() << "NCCL not installed (scripts/setup.sh puts it in .deps/nccl): " << error;
  EXPECT_GE(nccl->version(), 21900) << nccl->path(); // 2.19 or newer
  std::string v = nccl->versionString();
  EXPECT_EQ(v.rfind("2.", 0), 0u) << v;
  if (std::getenv("KINA_LIBNCCL") == nullptr)
    EXPECT_NE(nccl->path().find("nccl"), std::string::npos);
}

TEST(Nccl, CommunicatorsWithoutEnoughDevicesAreAnError) {
  std::string error;
  auto nccl = Nccl::load(error);
  if (!nccl)
    GTEST_SKIP() << "NCCL not installed: " << error;
  // More devices than any machine here has: NCCL refuses, Kina says why.
  std::vector<void *> comms;
  std::string err =
      nccl->initAll({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, comms);
  EXPECT_NE(err, "");
  EXPECT_EQ(err.rfind("ncclCommInitAll failed: ", 0), 0u) << err;
  EXPECT_TRUE(comms.empty());
  // Mismatched argument lists never reach NCCL.
  EXPECT_NE(nccl->allReduce({}, 4, NcclType::BF16, {}, {}), "");
}

TEST(Nccl, AMissingLibraryListsWhatWasTried) {
  EnvGuard g("KINA_LIBNCCL", "/nonexistent/libnccl.so.2");
  std::string error;
  EXPECT_EQ(Nccl::load(error), nullptr);
  EXPECT_NE(error.find("/nonexistent/libnccl.so.2"), std::string::npos) << error;
  EXPECT_NE(error.find("KINA_LIBNCCL is set"), std::string::npos) << error;
}

TEST(Nccl, TypesOfHostFunctionDtypes) {
  NcclType t;
  ASSERT_TRUE(ncclTypeOf("BF16", t));
  EXPECT_EQ(t, NcclType::BF16);
  ASSERT_TRUE(ncclTypeOf("F32", t));
  EXPECT_EQ(int(t), 7);
  EXPECT_FALSE(ncclTypeOf("I8", t));
}
