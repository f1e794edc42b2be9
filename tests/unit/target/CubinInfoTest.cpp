//===- CubinInfoTest.cpp - Reading cubin attributes -----------------------===//
//
// Malformed input must give InvalidCubin, never a crash; real cubins come
// from PtxasReportTest.
//
//===----------------------------------------------------------------------===//
#include "target/CubinInfo.h"
#include "target/TargetError.h"

#include <gtest/gtest.h>

using namespace kina;
using namespace kina::target;

namespace {

DiagId failureOf(std::vector<std::uint8_t> bytes) {
  auto info = readCubin(bytes);
  if (info)
    return DiagId::ReportMismatch; // "not an error": the caller compares against InvalidCubin
  return takeTargetFailure(info.takeError()).id;
}

TEST(CubinInfo, RejectsNonElf) {
  EXPECT_EQ(failureOf({}), DiagId::InvalidCubin);
  EXPECT_EQ(failureOf(std::vector<std::uint8_t>(100, 0)), DiagId::InvalidCubin);
  std::vector<std::uint8_t> text(200, 'a');
  EXPECT_EQ(failureOf(text), DiagId::InvalidCubin);
}

TEST(CubinInfo, RejectsTruncatedElf) {
  std::vector<std::uint8_t> elf(64, 0);
  elf[0] = 0x7f, elf[1] = 'E', elf[2] = 'L', elf[3] = 'F', elf[4] = 2, elf[5] = 1, elf[6] = 1;
  // Section header table far beyond the end of the file.
  elf[0x28] = 0xff, elf[0x29] = 0xff, elf[0x3c] = 5, elf[0x3a] = 64;
  EXPECT_EQ(failureOf(elf), DiagId::InvalidCubin);
  std::vector<std::uint8_t> be = elf;
  be[5] = 2; // big-endian
  EXPECT_EQ(failureOf(be), DiagId::InvalidCubin);
}

} // namespace
