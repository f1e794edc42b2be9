//===- bench_frontend.cpp - Parse/lower and check-only time of one file --===//
//
// Usage: kina-bench-frontend FILE [REPS]. Prints the median wall time of
// parse+lower (syntax::parse) and of the whole check (sema::analyze), in ms.
//
//===----------------------------------------------------------------------===//
#include "sema/Frontend.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace kina;

static double cpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

struct Timing {
  double wall, cpu;
};

/// Median wall and thread-CPU time; CPU time is what a loaded 2-core
/// machine cannot inflate.
template <typename Fn> Timing medianMs(int reps, Fn fn) {
  std::vector<double> wall, cpu;
  for (int i = 0; i < reps; ++i) {
    auto a = std::chrono::steady_clock::now();
    double c0 = cpuMs();
    fn();
    cpu.push_back(cpuMs() - c0);
    auto b = std::chrono::steady_clock::now();
    wall.push_back(std::chrono::duration<double, std::milli>(b - a).count());
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
  size_t diags = 0, items = 0;
  Timing parse = medianMs(reps, [&] {
    auto r = syntax::parse(file);
    items = r.module.items.size();
  });
  Timing check = medianMs(reps, [&] {
    auto a = sema::analyze(file);
    diags = a.diagnostics.size();
  });
  std::cout << "lines " << file.lineCount() << ", items " << items << ", diagnostics " << diags
            << "\nparse+lower median " << parse.wall << " ms wall, " << parse.cpu
            << " ms CPU (goal <= 100 ms)\n"
            << "parse+check median " << check.wall << " ms wall, " << check.cpu
            << " ms CPU (goal <= 200 ms)\n";
  return 0;
}
