//===- FuzzCommon.h - Invariant checks shared by the fuzz targets -*- C++ -*-===//
//
// A broken invariant prints what broke and aborts: libFuzzer records the
// input as a crash, and the replay test (ReplayMain.cpp) fails on it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Diagnostic.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace kina::fuzz {

[[noreturn]] inline void fail(const std::string &what) {
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what.c_str());
  std::abort();
}

inline void expectSpansInside(const std::vector<Diagnostic> &diags, size_t textSize,
                              const char *where) {
  for (const Diagnostic &d : diags) {
    if (d.span.begin > d.span.end || d.span.end > textSize)
      fail(std::string(where) + ": span [" + std::to_string(d.span.begin) + ", " +
           std::to_string(d.span.end) + ") of " + std::string(d.info().code) +
           " is outside a text of " + std::to_string(textSize) + " bytes");
    for (const SpanLabel &l : d.labels)
      if (l.span.begin > l.span.end || l.span.end > textSize)
        fail(std::string(where) + ": a label of " + std::string(d.info().code) +
             " lies outside the text");
    for (const FixIt &f : d.fixits)
      if (f.span.begin > f.span.end || f.span.end > textSize)
        fail(std::string(where) + ": a fix-it of " + std::string(d.info().code) +
             " lies outside the text");
  }
}

inline std::string describe(const Diagnostic &d) {
  return std::string(d.info().code) + "@" + std::to_string(d.span.begin) + "-" +
         std::to_string(d.span.end) + " " + d.message;
}

inline void expectSameDiagnostics(const std::vector<Diagnostic> &a,
                                  const std::vector<Diagnostic> &b, const char *what) {
  size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    if (i >= a.size() || i >= b.size())
      fail(std::string(what) + ": " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) +
           " diagnostics; first extra: " + describe(i < a.size() ? a[i] : b[i]));
    if (a[i].id != b[i].id || a[i].span != b[i].span || a[i].message != b[i].message)
      fail(std::string(what) + ": diagnostic " + std::to_string(i) + " differs: " + describe(a[i]) +
           " | " + describe(b[i]));
  }
}

} // namespace kina::fuzz
