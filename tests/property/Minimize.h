//===- Minimize.h - Delta debugging of a failing program --------*- C++ -*-===//
//
// Shrinks a program while a predicate (here: "checks clean and the build
// still fails the same way") holds, by removing whole items, whole braced
// statements (a `for`, `if`, grid with its body), the header and closing
// brace of a braced statement (keeping its body), and single lines, until
// no removal keeps the failure or the evaluation budget is spent. It works
// on text lines, so it needs no parser and also shrinks hand-written files.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <functional>
#include <string>

namespace kina::property {

struct MinimizeStats {
  unsigned evaluations = 0;
  unsigned linesBefore = 0, linesAfter = 0;
};

/// The smallest variant of `text` found for which `stillFails` is true
/// (`text` itself when nothing can be removed). `stillFails(text)` is
/// assumed true.
std::string minimize(const std::string &text,
                     const std::function<bool(const std::string &)> &stillFails, unsigned budget,
                     MinimizeStats *stats = nullptr);

/// A textual sanity rule for candidates: every register or shared tile a
/// line reads was assigned (`t <- ...`, `t[...] <- ...`, `cp_async t ...`)
/// on an earlier line of the same item. The checker does not demand it, so
/// without this rule a minimized program reads uninitialized tiles and says
/// little about what a kernel author would write.
bool tilesWrittenBeforeRead(const std::string &text);

} // namespace kina::property
