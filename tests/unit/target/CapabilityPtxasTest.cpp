//===- CapabilityPtxasTest.cpp - The registry agrees with the real ptxas --===//
//
// For every capability of Capabilities.def there is a PTX snippet in
// capability_snippets.ptx. Each snippet is assembled for every target the
// ptxas found supports, with PTX ISA requiredPtx(target, capability):
// ptxas must accept it exactly on the targets the registry lists. This
// pins both the target sets and the minimum PTX versions to the assembler.
//
//===----------------------------------------------------------------------===//
#include "target/Ptxas.h"
#include "target/Registry.h"
#include "target/TargetError.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <map>

using namespace kina;
using namespace kina::target;

namespace {

std::map<std::string, std::string> loadSnippets() {
  std::map<std::string, std::string> out;
  auto text = test::readSourceFile("tests/unit/target/capability_snippets.ptx");
  if (!text)
    return out;
  std::string current;
  size_t pos = 0;
  while (pos < text->size()) {
    size_t end = text->find('\n', pos);
    if (end == std::string::npos)
      end = text->size();
    std::string line = text->substr(pos, end - pos);
    pos = end + 1;
    if (line.rfind("//--- ", 0) == 0)
      current = line.substr(6);
    else if (!current.empty())
      out[current] += line + "\n";
  }
  return out;
}

TEST(CapabilityPtxas, EveryCapabilityHasASnippet) {
  auto snippets = loadSnippets();
  for (const CapabilityInfo &c : allCapabilities())
    EXPECT_TRUE(snippets.count(std::string(c.name))) << "no snippet for " << c.name;
  EXPECT_EQ(snippets.size(), allCapabilities().size());
}

TEST(CapabilityPtxas, RegistryMatchesPtxas) {
  auto tool = findTool(Tool::Ptxas);
  ASSERT_TRUE(bool(tool)) << llvm::toString(tool.takeError());
  auto version = toolVersion(*tool);
  ASSERT_TRUE(bool(version)) << llvm::toString(version.takeError());
  auto snippets = loadSnippets();
  unsigned checked = 0;
  for (const CapabilityInfo &c : allCapabilities()) {
    const std::string &body = snippets[std::string(c.name)];
    for (const TargetInfo &t : allTargets()) {
      PtxVersion v = requiredPtx(t.id, c.id);
      if (validateForPtxas(t.id, v, version->release))
        continue; // e.g. sm_70 on ptxas 13
      std::string ptx = ".version " + v.str() + "\n.target " + std::string(t.name) +
                        "\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n" + body +
                        "ret;\n}\n";
      PtxasOptions opts;
      opts.verbose = false;
      opts.inputName = std::string(c.name) + "@" + std::string(t.name) + ".ptx";
      auto r = runPtxas(ptx, t.id, opts);
      bool accepted = bool(r);
      std::string why = accepted ? "" : takeTargetFailure(r.takeError()).message;
      EXPECT_EQ(accepted, hasCapability(t.id, c.id))
          << c.name << " on " << t.name << " (PTX " << v.str() << "): registry says "
          << (hasCapability(t.id, c.id) ? "yes" : "no") << ", ptxas "
          << (accepted ? "accepts it" : "rejects it: " + why);
      ++checked;
    }
  }
  EXPECT_GT(checked, 300u);
}

} // namespace
