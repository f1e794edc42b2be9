//===- Builtins.h - The builtin functions the checker knows -----*- C++ -*-===//
//
// One list of the builtin function names and where each may be called
// (device code: kernels and tile functions; host functions). The checker's
// "did you mean" for an unknown function draws only from this list and from
// the items callable at the call site, so a fix-it never names a function
// that does not exist there (`rsqrt` once became "replace with `sqrt`").
// tests/unit/frontend/BuiltinsTest.cpp checks every entry against the
// checker: each is accepted where the list says, and refused elsewhere.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "syntax/Ast.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kina::sema {

enum class BuiltinPlace : uint8_t { Device = 1, Host = 2, Anywhere = 3 };

struct BuiltinInfo {
  std::string_view name;
  BuiltinPlace place;
  unsigned arity;
};

/// Every builtin the checker implements, in no particular order.
std::span<const BuiltinInfo> builtins();

/// Whether `place` includes calls from an item of kind `caller`.
bool callableFrom(BuiltinPlace place, syntax::ItemKind caller);

/// Whether an item of kind `callee` may be called from one of kind `caller`
/// (tile functions from anywhere; kernels and host functions from host
/// functions only).
bool itemCallableFrom(syntax::ItemKind callee, syntax::ItemKind caller);

/// The closest spelling of `word` among the builtins callable from `caller`
/// and the `items` (name, kind) callable from it; empty when nothing is
/// close enough (at most 2 edits, 1 for names of up to 3 characters).
std::string suggestFunction(std::string_view word, syntax::ItemKind caller,
                            const std::vector<std::pair<std::string, syntax::ItemKind>> &items);

} // namespace kina::sema
