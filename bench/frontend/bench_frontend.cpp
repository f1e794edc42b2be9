//===- bench_frontend.cpp - Parse/lower and check-only time of one file --===//
//
// Usage: kina-bench-frontend FILE [REPS]. Prints the median wall and CPU
// time, in ms, of
//   - parse+lower (syntax::parse);
//   - parse+check (sema::analyze with the IDE tables, one thread: what the
//     language server runs);
//   - check-only (sema::analyze with diagnosticsOnly: exactly what
//     `kina check` runs, items checked on every hardware thread, the result
//     not freed). Its CPU figure is the whole process's, so it counts every
//     thread.
//
//===----------------------------------------------------------------------===//
#include "sema/Frontend.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

using namespace kina;

static double cpuMs(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

struct Timing {
  double wall, cpu;
};

/// Median wall and CPU time (of this thread, or of the process for work
/// spread over threads); CPU time is what a loaded machine cannot inflate.
/// `untimed` runs after each repetition, outside the measurement.
template <typename Fn, typename Untimed = void (*)()>
Timing medianMs(int reps, clockid_t clock, Fn fn, Untimed untimed = [] {}) {
  std::vector<double> wall, cpu;
  for (int i = 0; i < reps; ++i) {
    auto a = std::chrono::steady_clock::now();
    double c0 = cpuMs(clock);
    fn();
    cpu.push_back(cpuMs(clock) - c0);
    auto b = std::chrono::steady_clock::now();
    wall.push_back(std::chrono::duration<double, std::milli>(b - a).count());
    untimed();
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::cerr << "usage: kina-bench-frontend FILE [REPS]\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream ss;
  ss << in.rdbuf();
  SourceFile file(argv[1], ss.str());
  int reps = argc > 2 ? std::max(1, atoi(argv[2])) : 7;
  size_t diags = 0, items = 0, checkOnlyDiags = 0;
  // The parse's result is what a caller keeps: freeing it is not timed
  // (as below for `kina check`).
  std::unique_ptr<syntax::ParseResult> parsed;
  Timing parse = medianMs(
      reps, CLOCK_PROCESS_CPUTIME_ID,
      [&] {
        parsed = std::make_unique<syntax::ParseResult>(syntax::parse(file));
        items = parsed->module.items.size();
      },
      [&] { parsed.reset(); });
  Timing check = medianMs(reps, CLOCK_THREAD_CPUTIME_ID, [&] {
    auto a = sema::analyze(file);
    diags = a.diagnostics.size();
  });
  sema::FrontendOptions checkOnly;
  checkOnly.diagnosticsOnly = true; // as `kina check` (driver/Check.cpp)
  // `kina check` exits without freeing its last file's syntax tree; neither
  // is it freed inside this measurement.
  std::unique_ptr<sema::Analysis> result;
  Timing only = medianMs(
      reps, CLOCK_PROCESS_CPUTIME_ID,
      [&] {
        result = std::make_unique<sema::Analysis>(sema::analyze(file, checkOnly));
        checkOnlyDiags = result->diagnostics.size();
      },
      [&] { result.reset(); });
  std::cout << "lines " << file.lineCount() << ", items " << items << ", diagnostics " << diags
            << "\nparse+lower median " << parse.wall << " ms wall, " << parse.cpu
            << " ms CPU of all threads (goal <= 100 ms wall)\n"
            << "parse+check (IDE tables, 1 thread) median " << check.wall << " ms wall, "
            << check.cpu << " ms CPU\n"
            << "check-only (kina check, " << std::thread::hardware_concurrency()
            << " hardware threads) median " << only.wall << " ms wall, " << only.cpu
            << " ms CPU of all threads (goal <= 200 ms wall), diagnostics " << checkOnlyDiags
            << "\n";
  return checkOnlyDiags == diags ? 0 : 1;
  return 0;
}
