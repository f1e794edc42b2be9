// The tuning cache: keys invalidate, concurrent appends stay whole lines.
#include "tune/Cache.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

using namespace kina;

namespace {

std::string tempPath(const char *name) {
  std::string p = (std::filesystem::temp_directory_path() /
                   (std::string("kina-tune-test-") + std::to_string(getpid()) + "-" + name))
                      .string();
  std::filesystem::remove(p);
  return p;
}

tune::Environment h200() {
  tune::Environment e;
  e.kinaVersion = "0.1.0";
  e.ptxasVersion = "V13.0.88";
  e.device = "NVIDIA H200";
  e.cc = "9.0";
  e.smCount = 132;
  e.l2Bytes = 52428800;
  e.clockKHz = 1980000;
  return e;
}

tune::Record record(const tune::Environment &env, const std::string &point, double ms) {
  tune::Record r;
  r.env = env;
  r.envKey = env.key();
  r.kernel = "gemm";
  r.sourceHash = "abc";
  r.point = point;
  r.shape = "K=4096,M=4096,N=4096";
  r.dtypes = "BF16,BF16->BF16";
  r.medianMs = ms;
  return r;
}

} // namespace

TEST(TuneCache, BestAndInvalidation) {
  std::string path = tempPath("inv.jsonl");
  tune::TuneCache cache(path);
  tune::Environment env = h200();
  std::string error;
  ASSERT_TRUE(cache.append(record(env, "BM=128", 0.30), error)) << error;
  ASSERT_TRUE(cache.append(record(env, "BM=256", 0.20), error)) << error;
  tune::Record failed = record(env, "BM=64", 0.01);
  failed.ok = false;
  ASSERT_TRUE(cache.append(failed, error));
  auto best = [&](const std::string &key, const std::string &src, const std::string &shape,
                  const std::string &dtypes) {
    return cache.best(key, "9.0", "gemm", src, shape, dtypes);
  };
  std::string shape = "K=4096,M=4096,N=4096", dt = "BF16,BF16->BF16";
  auto hit = best(env.key(), "abc", shape, dt);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->point, "BM=256"); // the fastest ok record; the failed one is skipped
  // Every part of the key invalidates.
  tune::Environment newPtxas = env;
  newPtxas.ptxasVersion = "V13.1.0";
  EXPECT_NE(newPtxas.key(), env.key());
  EXPECT_FALSE(best(newPtxas.key(), "abc", shape, dt));
  tune::Environment otherGpu = env;
  otherGpu.device = "NVIDIA H100";
  otherGpu.smCount = 114;
  EXPECT_FALSE(best(otherGpu.key(), "abc", shape, dt));
  EXPECT_FALSE(best(env.key(), "abd", shape, dt));                  // kernel edited
  EXPECT_FALSE(best(env.key(), "abc", "K=8192,M=4096,N=4096", dt)); // another shape
  EXPECT_FALSE(best(env.key(), "abc", shape, "F16,F16->F16"));      // other dtypes
  // A build without a device matches by compute capability.
  EXPECT_TRUE(cache.best("", "9.0", "gemm", "abc", shape, dt));
  EXPECT_FALSE(cache.best("", "8.0", "gemm", "abc", shape, dt));
  std::filesystem::remove(path);
}

TEST(TuneCache, MalformedLinesAreSkipped) {
  std::string path = tempPath("bad.jsonl");
  {
    std::ofstream out(path);
    out << "{not json\n{\"kernel\": \"x\"}\n";
  }
  tune::TuneCache cache(path);
  std::string error;
  ASSERT_TRUE(cache.append(record(h200(), "BM=128", 0.3), error));
  size_t bad = 0;
  EXPECT_EQ(cache.load(&bad).size(), 1u);
  EXPECT_EQ(bad, 2u);
  std::filesystem::remove(path);
}

TEST(TuneCache, ConcurrentAppendsDoNotCorrupt) {
  std::string path = tempPath("conc.jsonl");
  constexpr int kWriters = 8, kRecords = 200;
  std::vector<pid_t> kids;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      tune::TuneCache cache(path);
      std::string error;
      tune::Environment env = h200();
      for (int i = 0; i < kRecords; ++i) {
        tune::Record r = record(env, "W=" + std::to_string(w) + ",I=" + std::to_string(i), 1.0 + i);
        // A long field makes each line larger than a pipe buffer's atomic size.
        r.dtypes = std::string(5000, 'x');
        if (!cache.append(r, error))
          _exit(1);
      }
      _exit(0);
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  tune::TuneCache cache(path);
  size_t bad = 0;
  std::vector<tune::Record> all = cache.load(&bad);
  EXPECT_EQ(bad, 0u);
  ASSERT_EQ(all.size(), static_cast<size_t>(kWriters * kRecords));
  std::set<std::string> points;
  for (const tune::Record &r : all)
    points.insert(r.point);
  EXPECT_EQ(points.size(), static_cast<size_t>(kWriters * kRecords));
  std::filesystem::remove(path);
}
