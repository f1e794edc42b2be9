//===- LaunchMetadata.h - What the runtime needs to launch a kernel -*- C++ -*-===//
//
// Written beside each cubin as <kernel>.launch.json: the entry symbol, the
// parameter ABI (tensor pointers in declaration order with the result last,
// then one i32 per dim), the grid as formulas over the dims, the block size,
// shared memory, and the `requires` facts to check before launching.
// Formulas are JSON trees ({"dim": "M"}, {"const": 128},
// {"op": "div", "lhs": ..., "rhs": ...}) plus their text, so the runtime
// evaluates them without a parser. Schema: docs in compiler/codegen/README.md
// ("kina.launch/1").
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/TileIR.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kina::codegen {

struct LaunchParam {
  /// TensorMap: a 128-byte CUtensorMap passed by value (abi "tensormap"),
  /// after the dims, that the runtime encodes for tensor `tensor` with box
  /// `box` ([rows, cols], row-major; cuTensorMapEncodeTiled takes it inner
  /// first) and the 128-byte swizzle.
  enum class Kind { Tensor, Scalar, Dim, TensorMap };
  Kind kind = Kind::Tensor;
  std::string name;
  std::string dtype;              ///< tensors and scalars: "F16", ...
  std::vector<std::string> shape; ///< tensors: formulas as text
  bool writable = false;
  bool result = false;
  bool zeroInit = false; ///< atomics: the caller zero-fills it before the launch ("init": "zero")
  std::string abi; ///< "ptr" (8 bytes, global), "i32" (dims), "tensormap", or a scalarAbi()
  // Tensor maps.
  std::string tensor;       ///< name of the tensor parameter it describes
  std::vector<int64_t> box; ///< [rows, cols]
  std::string swizzle;      ///< "128B"
};

/// The ABI name of a scalar parameter of element type t: "f32", "f16", ...
std::string scalarAbi(ir::DType t);

struct LaunchFormula {
  std::string text;
  ir::IndexExpr expr; ///< over the dims only
};

struct LaunchMetadata {
  static constexpr const char *kSchema = "kina.launch/1";
  std::string kernel;
  std::string entry; ///< symbol in the cubin
  std::string target;
  std::string ptxVersion;
  std::vector<std::string> dims;
  std::vector<LaunchParam> params;
  LaunchFormula grid[3];
  unsigned block[3] = {1, 1, 1};
  /// Thread-block cluster shape; {1, 1, 1} = no cluster ("cluster" absent
  /// from the JSON). The runtime launches with cuLaunchKernelEx and the
  /// cluster-dimension attribute, after checking the grid divides by it.
  unsigned cluster[3] = {1, 1, 1};
  uint64_t staticSharedBytes = 0;
  uint64_t dynamicSharedBytes = 0;
  std::vector<LaunchFormula> requires_;
  std::vector<std::string> capabilities;
  std::string cubin; ///< file name relative to the JSON; empty when unknown
  /// For kernels with one mma inside one loop: 2*M*N*K-style operation count
  /// and the reduction length K (the runtime widens --check tolerances by it).
  std::optional<LaunchFormula> flops, reduction;
};

/// Metadata for a kernel compiled for `target` at PTX `ptxVersion`.
LaunchMetadata makeLaunchMetadata(const ir::Kernel &kernel, const std::string &target,
                                  const std::string &ptxVersion, uint64_t staticSharedBytes,
                                  uint64_t dynamicSharedBytes);

nlohmann::json toJson(const LaunchMetadata &meta);
std::string toJsonText(const LaunchMetadata &meta);
llvm::Expected<LaunchMetadata> launchMetadataFromJson(const std::string &text);

/// Evaluates a formula for concrete dims (by name). Errors for unknown dims,
/// division by zero or non-dim leaves.
llvm::Expected<int64_t> evaluate(const LaunchMetadata &meta, const ir::IndexExpr &e,
                                 const std::map<std::string, int64_t> &dims);

} // namespace kina::codegen
