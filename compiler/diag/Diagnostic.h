//===- Diagnostic.h - Diagnostics as plain data -----------------*- C++ -*-===//
//
// A Diagnostic is what every layer reports about user input: a stable code
// from the catalogue (Diagnostics.def), a primary span, labelled secondary
// spans, notes and fix-its. Rendering (text, JSON, LSP) happens elsewhere.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Source.h"

#include <string>
#include <string_view>
#include <vector>

namespace kina {

/// The classes every diagnostic belongs to (DESIGN.md §3.6).
enum class DiagClass {
  Syntax,
  Shape,
  Divisibility,
  Bounds,
  Placement,
  Capability,
  Fence,
  DType,
  Resource,
  Effect,
  Name,      ///< unknown or duplicate names (resolution)
  Toolchain, ///< targets, tools, codegen and runtime problems outside user code
};

enum class Severity { Error, Warning, Note };

/// Catalogue identifiers; one per entry of Diagnostics.def.
enum class DiagId {
#define KINA_DIAG(ID, CODE, CLASS, SEVERITY, TITLE, HELP) ID,
#include "diag/Diagnostics.def"
#undef KINA_DIAG
};

struct DiagInfo {
  DiagId id;
  std::string_view code; ///< e.g. "K0001"
  DiagClass diagClass;
  Severity severity;
  std::string_view title; ///< one-line summary for docs
  std::string_view help;  ///< longer explanation for docs
};

const DiagInfo &diagInfo(DiagId id);
/// Every catalogue entry in declaration order.
const std::vector<DiagInfo> &diagCatalogue();
std::string_view diagClassName(DiagClass c);
std::string_view severityName(Severity s);

/// A replacement of the text in `span` by `replacement` (insertion when empty).
struct FixIt {
  Span span;
  std::string replacement;
  std::string title; ///< e.g. "add `requires (K mod 16 = 0)`"
};

struct SpanLabel {
  Span span;
  std::string message;
};

struct Diagnostic {
  DiagId id;
  Span span;
  std::string message;
  std::vector<SpanLabel> labels; ///< secondary spans
  std::vector<std::string> notes;
  std::vector<FixIt> fixits;

  const DiagInfo &info() const { return diagInfo(id); }
  Severity severity() const { return info().severity; }

  Diagnostic &label(Span s, std::string m) {
    labels.push_back({s, std::move(m)});
    return *this;
  }
  Diagnostic &note(std::string m) {
    notes.push_back(std::move(m));
    return *this;
  }
  Diagnostic &fix(Span s, std::string replacement, std::string title) {
    fixits.push_back({s, std::move(replacement), std::move(title)});
    return *this;
  }
};

/// Collects diagnostics for one file; layers append, nobody throws.
class DiagnosticSink {
public:
  Diagnostic &report(DiagId id, Span span, std::string message) {
    diags_.push_back(Diagnostic{id, span, std::move(message), {}, {}, {}});
    return diags_.back();
  }
  const std::vector<Diagnostic> &diagnostics() const { return diags_; }
  std::vector<Diagnostic> take() { return std::move(diags_); }
  bool hasErrors() const;
  void append(const std::vector<Diagnostic> &more) {
    diags_.insert(diags_.end(), more.begin(), more.end());
  }

private:
  std::vector<Diagnostic> diags_;
};

/// Sorts by position and removes exact duplicates.
void sortDiagnostics(std::vector<Diagnostic> &diags);

} // namespace kina
