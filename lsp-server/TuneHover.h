//===- TuneHover.h - Hover on a kernel's tune parameters --------*- C++ -*-===//
//
// Hovering a tune parameter (its declaration or a use inside its kernel)
// shows the default point the editor checks, the candidates and the lattice
// size, and the points the tuning cache holds for the kernel (kina tune's
// measured medians and TFLOP/s per shape). A lexical scan of the kernel's
// header: the server's checked program has no parameters left (the parse
// instantiates the default point, syntax/TuneParams.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Source.h"

#include <optional>
#include <string>
#include <string_view>

namespace kina::lsp {

struct TuneHover {
  Span span;
  std::string markdown;
};

/// The hover at `offset` of `text` when the word there is a tune parameter
/// of the enclosing kernel; `cachePath` empty: the default tuning cache.
std::optional<TuneHover> tuneHover(std::string_view text, uint32_t offset,
                                   const std::string &cachePath = "");

/// Whether the kernel whose name starts at `nameOffset` declares tune
/// parameters (the "Tune" code lens).
bool kernelIsTunable(std::string_view text, uint32_t nameOffset);

} // namespace kina::lsp
