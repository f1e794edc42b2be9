//===- CheckerTest.cpp - Checker side tables the IDE relies on ------------===//
#include "sema/Frontend.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <thread>

using namespace kina;

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Checker, InfersTileShapesForHoverAndInlayHints) {
  SourceFile file("seed.kina", readFile(KINA_SOURCE_DIR "/tests/lit/syntax/seed_gemm_tc.kina"));
  sema::Analysis a = sema::analyze(file);
  const std::string &text = file.text();
  size_t slice = text.find("a_smem[warp_m * 64 ..+ 64, 0 ..+ 16]");
  ASSERT_NE(slice, std::string::npos);
  bool found = false;
  for (const sema::TypeAnnotation &t : a.program.annotations)
    if (t.span.begin == slice) {
      EXPECT_EQ(t.shape, "[64, 16]");
      EXPECT_TRUE(t.inlay);
      found = true;
    }
  EXPECT_TRUE(found);
  bool reg = false;
  for (const sema::SymbolInfo &s : a.program.symbolInfos)
    if (s.name == "c_reg") {
      EXPECT_EQ(s.type, "Tile[F32, [64, 64], on=cuda:register]");
      EXPECT_GE(s.references.size(), 3u);
      reg = true;
    }
  EXPECT_TRUE(reg);
}

TEST(Checker, SeedIsRejectedWithTheStoreIntoA) {
  SourceFile file("seed.kina", readFile(KINA_SOURCE_DIR "/tests/lit/syntax/seed_gemm_tc.kina"));
  sema::Analysis a = sema::analyze(file);
  bool readOnly = false;
  for (const Diagnostic &d : a.diagnostics)
    readOnly |= d.id == DiagId::StoreToReadOnly;
  EXPECT_TRUE(readOnly);
}

TEST(Checker, StdlibChecksClean) {
  for (const char *name : {"gemm_tc", "gemm_f16_pipelined", "gemm_bf16_pipelined", "elementwise",
                           "reduce", "transpose", "softmax"}) {
    std::string path = std::string(KINA_SOURCE_DIR "/stdlib/") + name + ".kina";
    SourceFile file(path, readFile(path));
    for (const char *target : {"sm_80", "sm_90a"}) {
      sema::FrontendOptions o;
      o.target = target;
      sema::Analysis a = sema::analyze(file, o);
      for (const Diagnostic &d : a.diagnostics)
        ADD_FAILURE() << path << " (" << target << "): " << d.message;
    }
  }
}

} // namespace

namespace {

TEST(Checker, SelectedCalleeReportsWhenReachedThroughASelectedCaller) {
  // Regression: with onlyItems = {callee, caller} and the caller first, the
  // callee's own error went to the caller's scratch sink and was lost.
  const char *text = R"(kernel user [R]
    requires (R mod 16 = 0)
    requires capability(sm_80)
    (x : Tensor[F32, [R, 64], on=cuda:global])
    : (out : Tensor[F32, [R, 64], on=cuda:global]) {
  block_grid [R/16] {
    warp_grid [1] {
      register t : Tile[F32, [16, 64], on=cuda:register]
      t <- x[block_id 0 * 16 ..+ 16, 0 ..+ 64]
      out[block_id 0 * 16 ..+ 16, 0 ..+ 64] <- twice t
    }
  }
}

tile twice [R, C]
    (t : Tile[F32, [R, C], on=cuda:register])
    : Tile[F32, [R, C], on=cuda:register] {
  return add t unknown_name
}
)";
  SourceFile file("t.kina", text);
  sema::FrontendOptions all;
  size_t full = 0;
  for (const Diagnostic &d : sema::analyze(file, all).diagnostics)
    full += d.id == DiagId::UnknownName;
  sema::FrontendOptions subset;
  subset.onlyItems = {0, 1};
  size_t partial = 0;
  for (const Diagnostic &d : sema::analyze(file, subset).diagnostics)
    partial += d.id == DiagId::UnknownName;
  EXPECT_EQ(full, 1u);
  EXPECT_EQ(partial, full);
}

} // namespace

// ---- the diagnostics-only path of `kina check` equals the full analysis ----

namespace {

/// Everything a diagnostic carries, one line per part, in order.
std::string describe(const std::vector<Diagnostic> &diags) {
  std::string out;
  auto span = [](Span s) { return std::to_string(s.begin) + "-" + std::to_string(s.end); };
  for (const Diagnostic &d : diags) {
    out += std::string(d.info().code) + " " + span(d.span) + " " + d.message + "\n";
    for (const SpanLabel &l : d.labels)
      out += "  label " + span(l.span) + " " + l.message + "\n";
    for (const std::string &n : d.notes)
      out += "  note " + n + "\n";
    for (const FixIt &f : d.fixits)
      out += "  fix " + span(f.span) + " [" + f.replacement + "] " + f.title + "\n";
  }
  return out;
}

/// The number of diagnostics; fails the test when a diagnostics-only
/// analysis on 1, 2, 3 or 7 threads differs from the full one in anything.
size_t expectSameDiagnostics(const SourceFile &file, const std::string &target) {
  sema::FrontendOptions full;
  full.target = target;
  std::vector<Diagnostic> expected = sema::analyze(file, full).diagnostics;
  std::string want = describe(expected);
  for (unsigned threads : {1u, 2u, 3u, 7u}) {
    sema::FrontendOptions o;
    o.target = target;
    o.diagnosticsOnly = true;
    o.threads = threads;
    sema::Analysis a = sema::analyze(file, o);
    EXPECT_EQ(describe(a.diagnostics), want)
        << file.path() << " (" << target << ", " << threads << " threads)";
    EXPECT_TRUE(a.program.annotations.empty() && a.program.symbolInfos.empty());
  }
  return expected.size();
}

std::vector<std::string> kinaFiles() {
  std::vector<std::string> out;
  for (const char *dir : {KINA_SOURCE_DIR "/stdlib", KINA_SOURCE_DIR "/tests"})
    for (const auto &e : std::filesystem::recursive_directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() == ".kina")
        out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(CheckOnly, EqualsFullAnalysisOnEveryStdlibAndTestFile) {
  std::vector<std::string> files = kinaFiles();
  ASSERT_GE(files.size(), 200u);
  size_t withErrors = 0;
  for (const std::string &path : files) {
    SourceFile file(path, readFile(path));
    withErrors += expectSameDiagnostics(file, "sm_90a") > 0;
  }
  EXPECT_GE(withErrors, 100u); // the negative lit tests
}

TEST(CheckOnly, EqualsFullAnalysisOnAGeneratedFileWithErrors) {
  // Every stdlib and lit file in one file: hundreds of items, duplicate
  // names (file-level diagnostics), errors in many items, callers on one
  // thread whose callees another thread checks.
  std::string text;
  for (const std::string &path : kinaFiles())
    text += readFile(path) + "\n";
  SourceFile file("all.kina", text);
  syntax::ParseResult parse = syntax::parse(file);
  ASSERT_GE(parse.module.items.size(), 200u);
  for (const char *target : {"sm_75", "sm_90a"}) {
    size_t n = expectSameDiagnostics(file, target);
    EXPECT_GE(n, 100u) << target;
  }
  sema::FrontendOptions o;
  o.diagnosticsOnly = true;
  o.threads = 2;
  size_t duplicates = 0;
  for (const Diagnostic &d : sema::analyze(file, o).diagnostics)
    duplicates += d.id == DiagId::DuplicateDefinition;
  EXPECT_GE(duplicates, 10u);
}

TEST(CheckOnly, CalleeInAnotherRangeReportsOnce) {
  // The caller is checked by the first thread, which re-checks the callee
  // silently; the second thread reports the callee's own errors, once.
  std::string kernels;
  for (int i = 0; i < 8; ++i)
    kernels += "kernel user" + std::to_string(i) + R"( [R]
    requires (R mod 16 = 0)
    requires capability(sm_80)
    (x : Tensor[F32, [R, 64], on=cuda:global])
    : (out : Tensor[F32, [R, 64], on=cuda:global]) {
  block_grid [R/16] {
    warp_grid [1] {
      register t : Tile[F32, [16, 64], on=cuda:register]
      t <- x[block_id 0 * 16 ..+ 16, 0 ..+ 64]
      out[block_id 0 * 16 ..+ 16, 0 ..+ 64] <- twice t
    }
  }
}

)";
  SourceFile file("t.kina", kernels + R"(tile twice [R, C]
    (t : Tile[F32, [R, C], on=cuda:register])
    : Tile[F32, [R, C], on=cuda:register] {
  return add t unknown_name
}
)");
  expectSameDiagnostics(file, "sm_90a");
  sema::FrontendOptions o;
  o.diagnosticsOnly = true;
  o.threads = 2;
  size_t unknown = 0;
  for (const Diagnostic &d : sema::analyze(file, o).diagnostics)
    unknown += d.id == DiagId::UnknownName;
  EXPECT_EQ(unknown, 1u);
}

} // namespace

namespace {

TEST(CheckOnly, KinaCheckUsesEveryCoreOnALargeFile) {
  std::string one = readFile(KINA_SOURCE_DIR "/stdlib/gemm_tc.kina");
  std::string text;
  for (int i = 0; text.size() < 256 * 1024; ++i) {
    std::string copy = one;
    for (size_t at = copy.find("kernel "); at != std::string::npos; at = copy.find("kernel ", at + 1))
      copy.insert(copy.find_first_of(" \n", at + 7), "_" + std::to_string(i));
    text += copy + "\n";
  }
  SourceFile big("big.kina", text), small("small.kina", one);
  syntax::ParseResult bigParse = syntax::parse(big), smallParse = syntax::parse(small);
  ASSERT_TRUE(bigParse.diagnostics.empty());
  sema::FrontendOptions o;
  o.diagnosticsOnly = true;
  unsigned hw = std::min(std::thread::hardware_concurrency(), 8u);
  EXPECT_EQ(sema::checkThreads(bigParse.module, o), std::max(hw, 1u));
  EXPECT_EQ(sema::checkThreads(smallParse.module, o), 1u);
  o.threads = 3;
  EXPECT_EQ(sema::checkThreads(smallParse.module, o), 3u);
  sema::FrontendOptions full;
  EXPECT_EQ(sema::checkThreads(bigParse.module, full), 1u);
  EXPECT_EQ(expectSameDiagnostics(big, "sm_75"), expectSameDiagnostics(small, "sm_75") *
                                                      (bigParse.module.items.size() /
                                                       smallParse.module.items.size()));
}

TEST(CheckOnly, SelectedItemsEqualTheFullAnalysisOfThem) {
  std::string text;
  for (const std::string &path : kinaFiles())
    if (path.find("/tests/lit/sema/") != std::string::npos)
      text += readFile(path) + "\n";
  SourceFile file("sema.kina", text);
  size_t n = syntax::parse(file).module.items.size();
  ASSERT_GE(n, 100u);
  std::vector<int> some;
  for (size_t i = 0; i < n; i += 3)
    some.push_back(static_cast<int>(i));
  some.push_back(-4); // out of range and repeated indices change nothing
  some.push_back(static_cast<int>(n) + 7);
  some.push_back(some.front());
  sema::FrontendOptions full;
  full.onlyItems = some;
  std::string want = describe(sema::analyze(file, full).diagnostics);
  EXPECT_NE(want, "");
  for (unsigned threads : {1u, 2u, 5u}) {
    sema::FrontendOptions o = full;
    o.diagnosticsOnly = true;
    o.threads = threads;
    EXPECT_EQ(describe(sema::analyze(file, o).diagnostics), want) << threads << " threads";
  }
}

} // namespace

namespace {

bool hasError(const sema::Analysis &a) {
  return std::any_of(a.diagnostics.begin(), a.diagnostics.end(),
                     [](const Diagnostic &d) { return d.severity() == Severity::Error; });
}

bool hasKernel(const sema::Analysis &a, const std::string &name) {
  return std::any_of(a.program.kernels.begin(), a.program.kernels.end(),
                     [&](const sema::KernelSummary &k) { return k.name == name; });
}

} // namespace

// `--kernel K` (FrontendOptions::onlyKernel): the int8 family's mma.sync
// kernels do not check for sm_75, so the whole file is rejected there, but
// its dp4a kernel alone checks and is in the program (what `kina build
// --kernel` and the tune worker lower); the mma.sync kernel alone is still
// rejected, and a name that is no kernel leaves the whole file checked.
TEST(Checker, OnlyKernelChecksThatKernelWithoutItsSiblings) {
  std::string path = KINA_SOURCE_DIR "/stdlib/gemm_i8_tuned.kina";
  SourceFile file(path, readFile(path));
  sema::FrontendOptions fe;
  fe.target = "sm_75";
  EXPECT_TRUE(hasError(sema::analyze(file, fe)));
  fe.onlyKernel = "gemm_i8_dp4a_tuned";
  sema::Analysis dp4a = sema::analyze(file, fe);
  EXPECT_FALSE(hasError(dp4a));
  EXPECT_TRUE(hasKernel(dp4a, "gemm_i8_dp4a_tuned"));
  fe.onlyKernel = "gemm_i8_tuned";
  EXPECT_TRUE(hasError(sema::analyze(file, fe)));
  fe.onlyKernel = "no_such_kernel";
  EXPECT_TRUE(hasError(sema::analyze(file, fe)));
}

// Tile functions stay checked and reported under onlyKernel: an error in a
// tile function the kernel calls is not hidden with its siblings.
TEST(Checker, OnlyKernelStillReportsTileFunctions) {
  SourceFile file("t.kina", R"(tile bad [R, C]
    (x : Tile[F32, [R, C], on=cuda:register])
    : Tile[F32, [R, C], on=cuda:register] {
  return mul x undefined_name
}
kernel k
    [M]
    requires (M mod 16 = 0)
    requires capability(sm_80)
    (x : Tensor[F32, [M, 64], on=cuda:global])
    : (out : Tensor[F32, [M, 64], on=cuda:global]) {
  block_grid [M/16] {
    warp_grid [1] {
      register xr : Tile[F32, [16, 64], on=cuda:register]
      xr <- x[block_id 0 * 16 ..+ 16, 0 ..+ 64]
      out[block_id 0 * 16 ..+ 16, 0 ..+ 64] <- bad xr
    }
  }
}
)");
  sema::FrontendOptions fe;
  fe.onlyKernel = "k";
  EXPECT_TRUE(hasError(sema::analyze(file, fe)));
}
