//===- Verifier.h - Structural and type checks of the tile IR ---*- C++ -*-===//
//
// verify() checks that a Kernel is well formed before code generation:
// every id refers to a declared object, index expressions only mention
// variables in scope and divide by positive constants, slices have the right
// rank and static extents that fit the tile, operand dtypes, memory spaces
// and shapes agree, and every cp_async group is committed exactly once
// before it is waited on. Problems are reported as K12xx diagnostics
// (located at the op's span); verify never crashes on malformed input.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Diagnostic.h"
#include "ir/TileIR.h"

namespace kina::ir {

/// Appends one diagnostic per problem found; returns true when none was.
bool verify(const Kernel &kernel, DiagnosticSink &sink);

/// The per-thread register allocation of a launch of one block of
/// threadsPerBlock threads per SM (65536 / threads, a multiple of 8, at
/// most 248): what warpgroups outside a `registers` role keep. Codegen sets
/// it as the kernel's maxnreg when roles set budgets.
int64_t launchRegisters(unsigned threadsPerBlock);

/// The shape of an Access after point dimensions are dropped (static extents;
/// the whole object when the slice is empty and its shape is static). Empty
/// when the referenced object does not exist.
std::vector<int64_t> accessShape(const Kernel &kernel, const Access &access);

} // namespace kina::ir
