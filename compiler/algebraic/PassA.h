//===- PassA.h - Lowering pass A: kernel selection and fusion ---*- C++ -*-===//
//
// Seed 003 §4.3: algebraic IR -> kernels. For the dims given, pass A groups
// the device operations (a matmul with its bias and activation epilogue;
// a chain of elementwise operations) and, per group, lists the candidates:
// the Kina stdlib kernels of that pattern whose `requires` hold for the
// shapes (the launch guard decides, through `Catalogue::refusal`), cuBLASLt
// with the epilogue that computes the same function, and a Kina kernel
// generated for an elementwise chain. The tuning cache's measured times
// decide between accepted candidates when it has them; otherwise the
// documented default (docs/architecture.md, "Pass A"). Host-placed
// operations run on the CPU; copies are transfers. `kina report --fn`
// prints the plan with every candidate and why.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "algebraic/AlgebraicIR.h"
#include "diag/Diagnostic.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kina::algebraic {

enum class Backend : uint8_t {
  Host,     ///< an operation on host tensors, computed on the CPU
  Copy,     ///< copy_to_device / copy_to_host: a transfer
  Kina,     ///< a Kina kernel: stdlib, the file's own, or generated
  CublasLt, ///< cublasLtMatmul with an epilogue
  /// all_reduce / all_gather / reduce_scatter over a mesh: NCCL on GPUs,
  /// the CPU reference under --interpret (issue 19)
  Collective,
};

/// The function a GEMM group computes after the product: nothing, + bias
/// (over the rows), + bias then ReLU, + bias then GELU (tanh form), ...
enum class Epilogue : uint8_t { None, Bias, Relu, BiasRelu, GeluTanh, BiasGeluTanh };
const char *epilogueName(Epilogue e); ///< cuBLASLt's spelling: DEFAULT, BIAS, RELU_BIAS, ...

struct Candidate {
  std::string name; ///< `kina:gemm_bf16_hopper_persistent_bias_gelu`, `cublaslt:GELU_BIAS`
  bool accepted = false;
  std::string why;          ///< why it was refused (or what it computes)
  std::optional<double> us; ///< tuning-cache median, microseconds
};

struct Step {
  Backend backend = Backend::Host;
  std::vector<int> ops; ///< the ops computed (fused), in order; the last is the output
  int output = -1;      ///< op index of the value produced
  /// Values read, in the kernel's parameter order (op indices). cuBLASLt:
  /// activation, weight, bias (when the epilogue has one).
  std::vector<int> inputs;
  std::string kernel; ///< Kina kernel name; cuBLASLt: the epilogue
  std::string file;   ///< Kina: the file the kernel is in ("" = the host function's file)
  std::string source; ///< Kina generated kernel: its source text
  Epilogue epilogue = Epilogue::None;
  bool weightTransposed = false;        ///< GEMM: b is [N, K] (a * transpose(b))
  std::map<std::string, int64_t> kdims; ///< the kernel's dims (M, N, K)
  std::vector<Candidate> candidates;
  std::string decision; ///< one line: what decided
};

struct Plan {
  std::vector<Step> steps;
  std::vector<Diagnostic> errors; ///< K1281: a device op no candidate computes
  unsigned kernelLaunches() const;
};

/// What pass A may choose from.
struct Catalogue {
  /// Why the Kina kernel `name` (of stdlib file `file`) refuses `kdims`, or
  /// nullopt when its `requires` hold (the driver asks the launch guard).
  /// A file that is not there, or a kernel not in it, is a refusal.
  std::function<std::optional<std::string>(const std::string &file, const std::string &name,
                                           const std::map<std::string, int64_t> &kdims)>
      refusal;
  /// Whether cuBLASLt may be chosen; when not, `cublasLtWhy` says why.
  bool cublasLt = true;
  std::string cublasLtWhy;
  /// Tuning-cache medians (microseconds) by candidate name and shape key
  /// (`M=4096,N=16384,K=4096,dtype=BF16`); see readTuningCache.
  std::map<std::string, double> tuned;
  std::string tuningSource; ///< the cache file read, or why none
  /// Why a generated elementwise kernel refuses the shapes, or nullopt
  /// (the driver checks the generated source).
  std::function<std::optional<std::string>(const std::string &source,
                                           const std::map<std::string, int64_t> &kdims)>
      generatedRefusal;
};

/// The shape key of a step (`M=...,N=...,K=...,dtype=...`).
std::string shapeKey(const std::map<std::string, int64_t> &kdims, const std::string &dtype);

/// Reads JSON-lines tuning records (docs/architecture.md, "Pass A"): each
/// line an object with `candidate` (or `kernel`), the shape (`shape`
/// object or top-level M, N, K), `dtype`, and a time (`median_us`, `us`,
/// `time_us` or `median_ms`). Unreadable lines are skipped; the best time
/// per candidate and shape is kept. Returns the map; `source` says what was read.
std::map<std::string, double> readTuningCache(const std::string &path, std::string &source);

/// The default cache path: $KINA_TUNE_CACHE, else $XDG_CACHE_HOME/kina/tune.jsonl,
/// else ~/.cache/kina/tune.jsonl.
std::string defaultTuningCachePath();

/// Pass A for `dims` (every dim of the function bound).
Plan selectKernels(const Function &f, const std::map<std::string, int64_t> &dims,
                   const Catalogue &catalogue);

/// The text `kina report --fn` prints.
std::string describePlan(const Function &f, const Plan &plan, const Catalogue &catalogue);

} // namespace kina::algebraic
