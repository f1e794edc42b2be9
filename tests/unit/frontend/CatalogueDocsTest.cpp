//===- CatalogueDocsTest.cpp - docs/diagnostics.md matches the catalogue --===//
#include "diag/Diagnostic.h"
#include "driver/DiagnosticCatalogueDocs.h"

#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>

using namespace kina;

TEST(DiagnosticCatalogue, DocsAreCurrent) {
  std::ifstream in(KINA_SOURCE_DIR "/docs/diagnostics.md");
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), driver::renderDiagnosticCatalogueMarkdown())
      << "docs/diagnostics.md is stale; regenerate with\n"
         "  build/compiler/driver/kina help diagnostics --markdown > docs/diagnostics.md";
}

TEST(DiagnosticCatalogue, CodesAreUniqueAndWellFormed) {
  std::set<std::string_view> codes;
  for (const DiagInfo &d : diagCatalogue()) {
    EXPECT_TRUE(codes.insert(d.code).second) << "duplicate code " << d.code;
    EXPECT_EQ(d.code.size(), 5u);
    EXPECT_EQ(d.code[0], 'K');
    EXPECT_FALSE(d.title.empty());
    EXPECT_FALSE(d.help.empty());
  }
}
