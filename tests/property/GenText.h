//===- GenText.h - The generators' random source and text emitter -*- C++ -*-===//
//
// Shared by the template families (Generator.cpp, GenerateHopper.cpp): a
// portable RNG (the same program on every machine, no std distributions)
// and an indenting line emitter.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kina::property {

/// splitmix64: tiny, portable, and the same on every machine.
class Rng {
public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n).
  unsigned below(unsigned n) { return n == 0 ? 0 : static_cast<unsigned>(next() % n); }
  /// Uniform in [lo, hi].
  int range(int lo, int hi) {
    return lo + static_cast<int>(below(static_cast<unsigned>(hi - lo + 1)));
  }
  /// True with probability percent/100.
  bool percent(unsigned p) { return below(100) < p; }
  template <typename T> const T &pick(const std::vector<T> &v) { return v[below(v.size())]; }

private:
  uint64_t state_;
};

class Out {
public:
  void line(const std::string &s) { text_ += std::string(indent_ * 2, ' ') + s + "\n"; }
  void open(const std::string &s) {
    line(s + " {");
    ++indent_;
  }
  void close(const std::string &suffix = "") {
    --indent_;
    line("}" + suffix);
  }
  /// `} else {` and the like.
  void reopen(const std::string &s) {
    --indent_;
    line("} " + s + " {");
    ++indent_;
  }
  void blank() { text_ += "\n"; }
  std::string &text() { return text_; }

private:
  std::string text_;
  int indent_ = 0;
};

} // namespace kina::property
