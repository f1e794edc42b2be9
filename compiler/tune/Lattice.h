//===- Lattice.h - Checking every point of a tune lattice -------*- C++ -*-===//
//
// `kina tune --dry-run` and `kina check --all-points`: every point of the
// lattices of one or more kernels (a family: kernels of one file with the
// same tune parameters, e.g. the one-CTA and the 2-CTA-cluster GEMM) is
// instantiated (syntax/TuneParams.h) and checked by the ordinary checker on a
// pool of threads. The checker is the legality oracle: a point is legal iff
// its instance checks without an error and, with a problem shape, every
// `requires (cond)` holds at that shape. A rejected point keeps its reason
// class (from the first error's code, or from a capability error when there
// is one) and the codes and message, so nothing
// is dropped silently.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Diagnostic.h"
#include "diag/Source.h"
#include "syntax/Ast.h"
#include "syntax/TuneParams.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kina::tune {

/// Why a point was rejected (`kina tune --dry-run` counts by these).
enum class Reason : uint8_t {
  Legal,
  SharedMemory, ///< K0801, K1207
  Registers,    ///< K0803, K0920-K0922, K1225, K1226
  Threads,      ///< K0802
  Divisibility, ///< the Divisibility class, and `requires` false at the shape
  Alignment,    ///< K0203, K0204, K1325
  Capability,   ///< the Capability class
  Fences,       ///< the Fence and Effect classes (protocols, typestate)
  Other,        ///< anything else (shapes, bounds, names)
};
constexpr int kReasonCount = 9;

const char *reasonName(Reason r);
Reason reasonForCode(std::string_view code, DiagClass cls);

struct PointResult {
  int item = -1;      ///< index of the kernel in the module
  std::string kernel; ///< its name
  uint64_t index = 0; ///< mixed-radix index inside the kernel's lattice
  syntax::TunePoint point;
  std::string pointText; ///< `BM=128,BN=256,...`
  Reason reason = Reason::Legal;
  std::vector<std::string> codes; ///< every error code, in report order
  std::string message;            ///< the message of the error giving the reason
  std::string code;               ///< the code of that error
  // Facts of a legal instance (sema::KernelSummary).
  uint64_t sharedBytes = 0;
  unsigned threadsPerBlock = 0;
  unsigned registerEstimate = 0;
  int64_t gridBlocks = 0;  ///< the block_grid's product, 0 when not constant
  int64_t clusterSize = 1; ///< the cluster's product (1 without a cluster)
  bool legal() const { return reason == Reason::Legal; }
};

struct LatticeOptions {
  std::string target;
  std::vector<std::string> kernels;     ///< empty: every kernel with parameters
  std::map<std::string, int64_t> shape; ///< M=..,N=..,K=..; empty: symbolic
  unsigned threads = 0;                 ///< 0: one per hardware thread (at most 16)
  /// Parameters held at one value (`kina tune --param STAGES=4`): points
  /// with another value of a pinned parameter are not enumerated.
  std::map<std::string, int64_t> pinned;
};

struct LatticeResult {
  std::vector<PointResult> points; ///< every point of every kernel, in order
  uint64_t size = 0;
  uint64_t legal = 0;
  uint64_t rejected[kReasonCount] = {};
  double seconds = 0;
  unsigned threads = 1;
  std::vector<Diagnostic> declarationErrors; ///< K0170-K0175 of the file
};

/// Checks every point. `module` is the file's parse (not instantiated).
LatticeResult checkLattice(const SourceFile &file, const syntax::Module &module,
                           const LatticeOptions &options);

/// Evaluates a `requires (cond)` of an instantiated item at `shape`:
/// 1 holds, 0 fails, -1 cannot be evaluated (a name outside the shape).
int evaluateRequirement(const syntax::Module &m, syntax::ExprId cond,
                        const std::map<std::string, int64_t> &shape);

} // namespace kina::tune
