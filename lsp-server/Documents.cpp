//===- Documents.cpp - Open documents and incremental text sync -----------===//
#include "Documents.h"

namespace kina::lsp {

void DocumentStore::open(const std::string &uri, std::string text, int64_t version) {
  docs_[uri] = Document{std::make_shared<const SourceFile>(uri, std::move(text)), version};
}

bool DocumentStore::change(const std::string &uri, int64_t version,
                           const std::vector<TextDocumentContentChangeEvent> &changes,
                           std::string &warning) {
  auto it = docs_.find(uri);
  if (it == docs_.end())
    return false;
  Document &doc = it->second;
  if (version <= doc.version)
    warning = "version " + std::to_string(version) + " does not increase on " +
              std::to_string(doc.version);
  std::shared_ptr<const SourceFile> file = doc.file;
  for (const auto &change : changes) {
    if (!change.range) {
      file = std::make_shared<const SourceFile>(uri, change.text);
      continue;
    }
    const Range &r = *change.range;
    uint32_t lines = file->lineCount();
    if (r.start.line >= lines || r.end.line >= lines ||
        std::make_pair(r.start.line, r.start.character) >
            std::make_pair(r.end.line, r.end.character))
      warning = "change range is outside the document or reversed; clamped";
    uint32_t begin = file->offsetOfUtf16({r.start.line, r.start.character});
    uint32_t end = file->offsetOfUtf16({r.end.line, r.end.character});
    if (end < begin)
      std::swap(begin, end);
    // One copy of the text, and the line table updated around the edit.
    file = std::make_shared<const SourceFile>(*file, begin, end, change.text);
  }
  doc.file = std::move(file);
  doc.version = version;
  return true;
}

bool DocumentStore::close(const std::string &uri) { return docs_.erase(uri) > 0; }

const Document *DocumentStore::get(const std::string &uri) const {
  auto it = docs_.find(uri);
  return it == docs_.end() ? nullptr : &it->second;
}

} // namespace kina::lsp
