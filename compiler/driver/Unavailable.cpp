//===- Unavailable.cpp - Fallbacks for subcommands not linked in ----------===//
//
// Weak definitions: a build without codegen/runtime support still links and
// explains what is missing; the real implementations (Build.cpp, Report.cpp,
// Run.cpp) override these.
//
//===----------------------------------------------------------------------===//
#include "driver/Commands.h"

#include <iostream>

namespace kina::driver {

static int unavailable(const char *command) {
  std::cerr << "kina: error: `kina " << command
            << "` is not available in this build of kina (its backend was not compiled in)\n";
  return ToolFailure;
}

__attribute__((weak)) int runBuildCommand(const BuildOptions &) { return unavailable("build"); }
__attribute__((weak)) int runReportCommand(const ReportOptions &) { return unavailable("report"); }
__attribute__((weak)) int runRunCommand(const RunOptions &) { return unavailable("run"); }

} // namespace kina::driver
