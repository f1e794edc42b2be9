//===- Documents.h - Open documents and incremental text sync ---*- C++ -*-===//
//
// The server's copy of each open document: its text as an immutable
// kina::SourceFile (shared with the analysis layer) and the client's version.
// Incremental `didChange` events carry UTF-16 ranges; they are converted to
// byte offsets with SourceFile::offsetOfUtf16 and applied in order.
//
// Main thread only (it is the keystroke path: no analysis happens here).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Protocol.h"
#include "diag/Source.h"

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace kina::lsp {

struct Document {
  std::shared_ptr<const SourceFile> file;
  int64_t version = 0;
};

class DocumentStore {
public:
  void open(const std::string &uri, std::string text, int64_t version);
  /// Applies the changes in order. On a range outside the document (clamped)
  /// or a version that does not increase, `warning` is set; the edit is still
  /// applied, since the client's text is the truth. Returns false when the
  /// document is not open.
  bool change(const std::string &uri, int64_t version,
              const std::vector<TextDocumentContentChangeEvent> &changes, std::string &warning);
  bool close(const std::string &uri);
  const Document *get(const std::string &uri) const;
  size_t size() const { return docs_.size(); }
  template <class F> void forEach(F &&f) const {
    for (const auto &[uri, doc] : docs_)
      f(uri, doc);
  }

private:
  std::map<std::string, Document> docs_;
};

} // namespace kina::lsp
