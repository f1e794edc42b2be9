//===- TableParser.h - Fast LR parse over the generated tables --*- C++ -*-===//
//
// A deterministic LR driver over the parse and lex tables that tree-sitter
// generated from grammar/grammar.js, so the grammar stays the one definition
// of the syntax. It builds the flat Cst straight into arrays and has no
// error recovery: on input with a syntax error (or anything it does not
// handle) it returns nothing, and the caller parses with the tree-sitter
// runtime, whose recovery the error messages are built on. The grammar's
// two declared conflicts (a juxtaposed argument that may start the next
// statement) are resolved by backtracking to the fork, bounded in distance
// and in total work; GLR would keep the one alternative that survives, and
// the grammar has no input on which both do.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "syntax/Cst.h"

#include <optional>
#include <string_view>

namespace kina::syntax {

/// Where the table parser got furthest before every alternative failed:
/// the token no action accepts, what the tables accept there, and what was
/// on the LR stack (unfinished constructs show as their tokens).
struct TableParseFailure {
  bool valid = false;
  Span token;
  TSSymbol tokenSymbol = 0;
  std::vector<TSSymbol> expected; ///< terminals with an action where `token` was read
  Span previous;                  ///< the token before, if any
  bool hasPrevious = false;
  struct Entry {
    TSSymbol symbol; ///< public symbol, as CstIds names them
    Span span;
    bool token; ///< a token, not a reduced construct
  };
  std::vector<Entry> stack; ///< bottom to top
};

/// The CST of text[begin, text.size()) (spans are offsets into `text`), or
/// nothing when that text has a syntax error or the fast path gives up
/// (then parse with the tree-sitter runtime). On a syntax error, `failure`
/// (when given) says where and what was expected.
std::optional<Cst> parseWithTables(std::string_view text, uint32_t begin = 0,
                                   TableParseFailure *failure = nullptr);

} // namespace kina::syntax
