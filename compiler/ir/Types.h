//===- Types.h - Element types and memory spaces of the tile IR -*- C++ -*-===//
//
// The scalar element types (dtypes) and memory spaces that tile IR values
// carry. Both are plain enums with name/size helpers; the frontend maps its
// checked types onto them and codegen maps them onto MLIR/PTX types.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kina::ir {

/// Element types a tensor or tile can hold.
enum class DType : uint8_t { F16, BF16, F32, F64, I8, I32, I64, U8 };

/// Where a tensor or tile lives. Global tensors are kernel parameters;
/// shared tiles are per block; register tiles are per warp (distributed over
/// the warp's 32 lanes in a layout that codegen chooses).
enum class MemSpace : uint8_t { Global, Shared, Register };

/// "F16", "BF16", "F32", ... (the spelling of the surface language).
std::string_view dtypeName(DType t);
/// Inverse of dtypeName; nullopt for unknown names.
std::optional<DType> parseDType(std::string_view name);
/// Size of one element in bytes.
unsigned dtypeBytes(DType t);
bool isFloat(DType t);

/// "cuda:global", "cuda:shared", "cuda:register".
std::string_view memSpaceName(MemSpace s);

} // namespace kina::ir
