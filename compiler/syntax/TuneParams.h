//===- TuneParams.h - Instantiating a kernel at a lattice point -*- C++ -*-===//
//
// A kernel header may declare tunable compile-time integers,
// `tune BM in {64, 128, 256} = 128` (docs/language.md "Tunable parameters").
// The checker and the backend never see a parameter: an item is instantiated
// at one point of its lattice first, which turns every use of a parameter into
// an Integer expression (with the use's span) and folds the constant
// arithmetic around it, so `[STAGES, BM, 64]` checks exactly like the literal
// kernel `[3, 128, 64]`. Legality of a point is therefore `kina check` clean on
// its instance; nothing about the lattice is special-cased in sema.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Diagnostic.h"
#include "syntax/Ast.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kina::syntax {

/// One value per parameter name. Names a kernel does not declare are ignored
/// by that kernel (one --param applies to every kernel that has the name).
using TunePoint = std::map<std::string, int64_t>;

/// The largest lattice `kina tune` enumerates (K0174).
constexpr uint64_t kMaxLatticePoints = 1000000;

/// Problems of the declarations themselves: a default outside the values
/// (K0170), a name that repeats a parameter, dimension, tensor or a body
/// variable (K0171), non-positive or repeated values (K0172), a lattice over
/// kMaxLatticePoints (K0174).
std::vector<Diagnostic> checkTuneDeclarations(const Module &m);
/// The same for item `index` only.
std::vector<Diagnostic> checkTuneDeclarations(const Module &m, size_t index);

/// The number of points of `item`'s lattice (1 without parameters),
/// saturating at UINT64_MAX.
uint64_t latticeSize(const Item &item);

/// The point with mixed-radix index `index` (the last parameter varies
/// fastest), index < latticeSize(item).
TunePoint latticePoint(const Item &item, uint64_t index);

/// The default point of `item`.
TunePoint defaultPoint(const Item &item);

/// `BM=128,BN=256` in declaration order (only `item`'s parameters).
std::string formatPoint(const Item &item, const TunePoint &point);

/// Parses `BM=128,BN=256` (several specs are joined); false with `error` set
/// on a malformed pair or a name given twice.
bool parsePointSpec(const std::vector<std::string> &specs, TunePoint &point, std::string &error);

/// Rewrites item `index` of `m` at `point` (a parameter missing from `point`
/// takes its default). Expressions of other items are untouched.
void instantiateItem(Module &m, size_t index, const TunePoint &point);

/// Instantiates every kernel that declares parameters: at `requested` where
/// it names the kernel's parameters, at the defaults otherwise. Returns K0173
/// for a requested value that is not a candidate (at the parameter's span)
/// and for a requested name no kernel declares (at offset 0).
std::vector<Diagnostic> instantiateTuneParams(Module &m, const TunePoint &requested);

} // namespace kina::syntax
