//===- Parser.h - Parse Kina source into an AST -----------------*- C++ -*-===//
//
// Parsing never fails: it always yields a Module plus syntax diagnostics
// (rust-analyzer's "syntax is a value"). The CST comes from the tables
// tree-sitter generated: TableParser on error-free text, the tree-sitter
// runtime (with its error recovery) otherwise; this layer turns ERROR and
// MISSING nodes into located, specific messages and lowers the CST to the
// AST in Ast.h.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Diagnostic.h"
#include "syntax/Ast.h"

#include <memory>
#include <string>
#include <unordered_map>

struct TSLanguage;

extern "C" const TSLanguage *tree_sitter_kina(void);

namespace kina::syntax {

struct ParseResult {
  Module module;
  std::vector<Diagnostic> diagnostics;
  /// False when the tree-sitter runtime parsed (the text has a syntax error
  /// or the table parser gave up).
  bool tableParsed = false;
};

struct ParseOptions {
  /// Deeper nesting than this is reported (K0008) instead of lowered.
  unsigned maxNesting = 256;
  /// Instantiate every kernel with `tune` parameters at its default point
  /// (syntax/TuneParams.h) and report its declaration errors, so that every
  /// consumer of a parse (the language server above all) sees the default
  /// instance. sema::analyze and `kina tune` parse with false and
  /// instantiate at the point they were asked for.
  bool instantiateTuneDefaults = true;
};

/// Parses and lowers one file. Never crashes on any input bytes.
ParseResult parse(const SourceFile &file, const ParseOptions &options = {});

class ParseCache;
struct ItemizedParse;

/// Remembers each item's parse between calls (the language server parses
/// on every keystroke): an item whose text is unchanged is not parsed or
/// lowered again, only moved. The result always equals parse(file, options).
class ParseCache {
public:
  ParseResult parse(const SourceFile &file, const ParseOptions &options = {});
  /// The same parse, as the items' parses in place (not copied into one
  /// Module): what a keystroke costs is the edited item, plus a few words
  /// per item. `file` is kept until the next call (the next parse finds
  /// the edit by comparing with it, without copying the text).
  ItemizedParse parseItems(std::shared_ptr<const SourceFile> file,
                           const ParseOptions &options = {});
  size_t size() const { return items_.size(); }

  /// One item's parse, with spans as of offset `begin`.
  struct Item {
    uint32_t begin = 0;
    bool tableParsed = false;
    Module module;
    std::vector<Diagnostic> diagnostics;
  };
  // For parse(): an item's parse by key (its text and place), and the end of
  // one parse (what the last two parses did not use is dropped).
  std::shared_ptr<const Item> find(const std::string &key);
  void insert(std::string key, std::shared_ptr<const Item> item);
  void endParse();

  /// The last parse: its text and its items by [begin, end). An item of the
  /// new text that lies in the part both texts share before the edit (or
  /// after it, shifted) is that item, found without building its key (a
  /// copy of its text) or hashing it, and the new text's item starts and
  /// UTF-8 validity are found again only around the edit: a keystroke costs
  /// the edited item.
  struct Previous {
    std::shared_ptr<const SourceFile> file;
    bool validUtf8 = false;
    struct Part {
      uint32_t begin, end;
      bool last;
      std::shared_ptr<const Item> item;
    };
    std::vector<Part> parts; ///< by begin; empty: no item split to offer
  };
  Previous previous;

private:
  struct Entry {
    std::shared_ptr<const Item> item;
    uint64_t lastUsed = 0;
  };
  std::unordered_map<std::string, Entry> items_;
  uint64_t generation_ = 1;
};

/// A file's parse as its items' parses, each used where it lies (spans of
/// part i move by parts[i].delta; ids index that part's own Module).
struct ItemizedParse {
  struct Part {
    std::shared_ptr<const ParseCache::Item> item;
    int64_t delta = 0;
  };
  std::vector<Part> parts; ///< in text order; their items, in order, are the file's
  /// Every diagnostic, absolute and sorted (ParseResult::diagnostics).
  std::vector<Diagnostic> diagnostics;
  bool tableParsed = false;
  /// The text the parse is of.
  std::shared_ptr<const SourceFile> file;

  size_t itemCount() const;
  /// One Module of every part (a copy of every node): equals parse(*file).
  ParseResult assemble() const;
  /// Wraps a parse of the whole file as one part.
  static ItemizedParse whole(ParseResult parse, std::shared_ptr<const SourceFile> file);
};

/// The Kina keywords, taken from the generated parser's symbol table.
const std::vector<std::string> &keywords();

} // namespace kina::syntax
