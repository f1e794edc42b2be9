//===- LaunchSpec.h - Launch metadata of a compiled kernel ------*- C++ -*-===//
//
// Code generation writes `<kernel>.launch.json` beside each cubin; `kina run`
// reads it to allocate the parameters, compute the grid, and check the
// `requires` facts and the target before launching. LaunchSpec is that file
// as plain data; docs/launch-metadata.md defines the JSON schema
// ("kina.launch/1"). Formulas are DimExpr text over the kernel's dims.
//
// Parsing never throws: malformed JSON or a schema violation is an
// InvalidMetadata error naming the JSON path (e.g. `params[2].shape[1]`).
//
// The reader also accepts the form compiler/codegen/LaunchMetadata.cpp
// writes (formulas as {"text", "expr": tree}, "entry", "abi",
// "writable"/"result", "*_shared_bytes"); docs/launch-metadata.md lists both.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/DType.h"
#include "runtime/DimExpr.h"
#include "runtime/Launch.h"
#include "runtime/RuntimeError.h"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace kina::runtime {

inline constexpr const char *kLaunchSchema = "kina.launch/1";

enum class ParamKind {
  Tensor, ///< passed as a device pointer to a dense row-major array
  Scalar, ///< passed by value: a scalar kernel parameter `(eps : F32)`
  Dim,    ///< passed by value: an integer formula over the dims
  TensorMap, ///< passed by value: a 128-byte CUtensorMap of a tensor parameter (TensorMap.h)
};
enum class ParamRole { Input, Output, InOut };

struct ParamSpec {
  std::string name;
  ParamKind kind = ParamKind::Tensor;
  // Tensor parameters.
  DType dtype = DType::F32;
  std::vector<DimExpr> shape;
  ParamRole role = ParamRole::Input;
  // Dim parameters.
  DimExpr value = DimExpr::constant(0); ///< usually just the dim's name
  int intBits = 32;                     ///< 32 or 64
  // Scalar parameters: the element type as the metadata "abi" spells it
  // ("f32", "f16", "bf16", "f64", "i8", "u8", "i32", "i64").
  std::string scalarType;
  // Tensor-map parameters: the tensor parameter it describes (by name), the
  // box (row-major, same rank as the tensor) and the swizzle.
  std::string tensor;
  std::vector<std::int64_t> box;
  bool swizzle128B = true;
};

/// Bytes of a scalar parameter of metadata type `abi` (0 when unknown).
std::size_t scalarTypeSize(std::string_view abi);
bool scalarTypeIsFloat(std::string_view abi);

/// `requires (expr mod modulus = remainder)`, with the clause as written;
/// or, when `condition` is set, any boolean condition over the dims (the
/// JSON-tree form), which holds when it evaluates to non-zero.
struct RequiresFact {
  DimExpr expr = DimExpr::constant(0);
  std::int64_t modulus = 1;
  std::int64_t remainder = 0;
  std::string source; ///< e.g. "requires (M mod 128 = 0)"
  std::optional<DimExpr> condition;

  /// `source`, or a rendering of the fact when the source text is absent.
  std::string clause() const;
};

struct LaunchSpec {
  std::string kernel;            ///< Kina kernel name
  std::string symbol;            ///< entry symbol in the cubin
  std::string target;            ///< e.g. "sm_90a"
  std::string cubin;             ///< cubin file name, relative to the JSON (optional)
  std::vector<std::string> dims; ///< the kernel's dims, in declaration order
  std::array<DimExpr, 3> grid = {DimExpr::constant(1), DimExpr::constant(1),
                                 DimExpr::constant(1)};
  Dim3 block;
  Dim3 cluster{0, 0, 0};               ///< {0,0,0}: no clusters
  std::int64_t dynamicSharedBytes = 0;
  std::int64_t staticSharedBytes = -1; ///< -1 when not recorded
  std::vector<ParamSpec> params;       ///< in kernel ABI order
  std::vector<RequiresFact> requirements; ///< JSON key "requires"
  std::vector<std::string> capabilities;
  std::optional<DimExpr> flops;     ///< floating-point operations per launch
  std::optional<DimExpr> reduction; ///< longest reduction per output element
};

/// Parses a JSON value following the schema.
Result<LaunchSpec> launchSpecFromJson(const nlohmann::json &j);
/// Parses JSON text; `label` (file name) prefixes errors.
Result<LaunchSpec> parseLaunchSpec(const std::string &text, const std::string &label);
/// Reads `<kernel>.launch.json`.
Result<LaunchSpec> loadLaunchSpec(const std::string &path);

nlohmann::json launchSpecToJson(const LaunchSpec &spec);
/// Pretty-printed JSON text (2-space indent, trailing newline).
std::string launchSpecToText(const LaunchSpec &spec);
Status saveLaunchSpec(const std::string &path, const LaunchSpec &spec);

std::string_view paramKindName(ParamKind k);
std::string_view paramRoleName(ParamRole r);

} // namespace kina::runtime
