//===- bench_frontend.cpp - Parse/lower and check-only time of one file --===//
//
// Usage: kina-bench-frontend FILE [REPS]. Prints the median wall time of
// parse+lower (syntax::parse) and of the whole check (sema::analyze), in ms.
//
//===----------------------------------------------------------------------===//
#include "sema/Frontend.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace kina;

template <typename Fn> double medianMs(int reps, Fn fn) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    auto a = std::chrono::steady_clock::now();
    fn();
    auto b = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::milli>(b - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
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
  double parse = medianMs(reps, [&] {
    auto r = syntax::parse(file);
    items = r.module.items.size();
  });
  double check = medianMs(reps, [&] {
    auto a = sema::analyze(file);
    diags = a.diagnostics.size();
  });
  std::cout << "lines " << file.lineCount() << ", items " << items << ", diagnostics " << diags
            << "\nparse+lower median " << parse << " ms (goal <= 100 ms)\n"
            << "parse+check median " << check << " ms (goal <= 200 ms)\n";
  return 0;
}
