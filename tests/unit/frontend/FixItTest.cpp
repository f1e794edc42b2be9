//===- FixItTest.cpp - Name and capability fix-its lead somewhere real ----===//
//
// Issue 11, Part 5: a fix-it never suggests a name that does not exist, nor a
// capability (or target) that the target lacks. For every fix-it that the
// checker offers on the files of tests/lit (checked for the target their RUN
// line names), this applies the fix and checks again: the text it put in
// must not itself be an unknown name, function, capability, target or
// element type, nor a capability the target lacks; and a name or capability
// diagnostic that carried the fix must be gone.
//
//===----------------------------------------------------------------------===//
#include "sema/Frontend.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <set>
#include <sstream>

using namespace kina;

namespace {

std::string readFile(const std::filesystem::path &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::set<DiagId> kNameOrCapability = {
    DiagId::UnknownFunction,
    DiagId::UnknownName,
    DiagId::UnknownRequiredCapability,
    DiagId::CapabilityNotOnTarget,
    DiagId::DeclaredTargetLacksCapability,
    DiagId::UnknownDType,
    DiagId::CapabilityNotDeclared,
};

std::vector<Diagnostic> check(const std::string &path, const std::string &text,
                              const std::string &target) {
  sema::FrontendOptions fe;
  fe.target = target;
  return sema::analyze(SourceFile(path, text), fe).diagnostics;
}

TEST(FixIts, NameAndCapabilityFixItsNeverIntroduceTheirOwnError) {
  namespace fs = std::filesystem;
  std::regex targetFlag(R"(--target[ =](sm_[0-9a-z]+))");
  unsigned checked = 0;
  for (const char *dir : {"tests/lit/sema", "tests/lit/positive", "tests/lit/driver/Inputs"}) {
    fs::path root = fs::path(KINA_SOURCE_DIR) / dir;
    if (!fs::is_directory(root))
      continue;
    std::vector<fs::path> files;
    for (const auto &entry : fs::directory_iterator(root))
      if (entry.path().extension() == ".kina")
        files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const fs::path &path : files) {
      std::string text = readFile(path);
      std::smatch m;
      std::string target = std::regex_search(text, m, targetFlag)
                               ? m[1].str()
                               : std::string(target::defaultTargetName());
      for (const Diagnostic &d : check(path.string(), text, target)) {
        for (const FixIt &f : d.fixits) {
          if (f.span.end > text.size() || f.span.begin > f.span.end)
            continue; // other tests hold fix-it spans to the text
          std::string fixed =
              text.substr(0, f.span.begin) + f.replacement + text.substr(f.span.end);
          Span inserted{f.span.begin, static_cast<uint32_t>(f.span.begin + f.replacement.size())};
          int64_t delta = static_cast<int64_t>(f.replacement.size()) -
                          static_cast<int64_t>(f.span.end - f.span.begin);
          uint32_t moved = d.span.begin >= f.span.end
                               ? static_cast<uint32_t>(d.span.begin + delta)
                               : (d.span.begin >= f.span.begin ? f.span.begin : d.span.begin);
          ++checked;
          for (const Diagnostic &after : check(path.string(), fixed, target)) {
            if (!kNameOrCapability.count(after.id) || after.severity() != Severity::Error)
              continue;
            bool overlaps = after.span.begin < std::max(inserted.end, inserted.begin + 1) &&
                            inserted.begin < std::max(after.span.end, after.span.begin + 1);
            EXPECT_FALSE(overlaps) << path.filename().string() << " (" << target << "): fix-it `"
                                   << f.title << "` introduces: " << after.message;
            bool sameAgain = kNameOrCapability.count(d.id) && after.id == d.id &&
                             after.span.begin == moved && after.message == d.message;
            EXPECT_FALSE(sameAgain) << path.filename().string() << " (" << target << "): fix-it `"
                                    << f.title << "` does not resolve: " << d.message;
          }
        }
      }
    }
  }
  // The corpus has such fix-its (typos, undeclared capabilities): the test
  // is not vacuous.
  EXPECT_GE(checked, 10u);
  std::cout << "[ FixIts   ] " << checked << " fix-its applied and re-checked\n";
}

} // namespace
