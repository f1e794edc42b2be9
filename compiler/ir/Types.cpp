//===- Types.cpp - Element types and memory spaces of the tile IR ---------===//
//
// Name and size tables for ir::DType and ir::MemSpace.
//
//===----------------------------------------------------------------------===//
#include "ir/Types.h"

#include "ir/TileIR.h"

namespace kina::ir {

std::string_view dtypeName(DType t) {
  switch (t) {
  case DType::F16:
    return "F16";
  case DType::BF16:
    return "BF16";
  case DType::F32:
    return "F32";
  case DType::F64:
    return "F64";
  case DType::I8:
    return "I8";
  case DType::I32:
    return "I32";
  case DType::I64:
    return "I64";
  case DType::U8:
    return "U8";
  }
  return "?";
}

std::optional<DType> parseDType(std::string_view name) {
  for (DType t : {DType::F16, DType::BF16, DType::F32, DType::F64, DType::I8, DType::I32,
                  DType::I64, DType::U8})
    if (dtypeName(t) == name)
      return t;
  return std::nullopt;
}

unsigned dtypeBytes(DType t) {
  switch (t) {
  case DType::I8:
  case DType::U8:
    return 1;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F64:
  case DType::I64:
    return 8;
  }
  return 0;
}

bool isFloat(DType t) {
  return t == DType::F16 || t == DType::BF16 || t == DType::F32 || t == DType::F64;
}

std::string_view memSpaceName(MemSpace s) {
  switch (s) {
  case MemSpace::Global:
    return "cuda:global";
  case MemSpace::Shared:
    return "cuda:shared";
  case MemSpace::Register:
    return "cuda:register";
  }
  return "?";
}

std::string_view unaryKindName(UnaryKind k) {
  switch (k) {
  case UnaryKind::Copy:
    return "copy";
  case UnaryKind::Neg:
    return "neg";
  case UnaryKind::Relu:
    return "relu";
  case UnaryKind::Exp:
    return "exp";
  case UnaryKind::Convert:
    return "convert";
  case UnaryKind::Sqrt:
    return "sqrt";
  case UnaryKind::Rsqrt:
    return "rsqrt";
  case UnaryKind::Exp2:
    return "exp2";
  case UnaryKind::Log:
    return "log";
  case UnaryKind::Log2:
    return "log2";
  case UnaryKind::Tanh:
    return "tanh";
  case UnaryKind::Erf:
    return "erf";
  case UnaryKind::Sigmoid:
    return "sigmoid";
  case UnaryKind::Silu:
    return "silu";
  case UnaryKind::Gelu:
    return "gelu";
  case UnaryKind::GeluTanh:
    return "gelu_tanh";
  case UnaryKind::Abs:
    return "abs";
  case UnaryKind::Floor:
    return "floor";
  case UnaryKind::Ceil:
    return "ceil";
  case UnaryKind::Exp2Approx:
    return "exp2_approx";
  case UnaryKind::RsqrtApprox:
    return "rsqrt_approx";
  case UnaryKind::TanhApprox:
    return "tanh_approx";
  case UnaryKind::GeluTanhApprox:
    return "gelu_tanh_approx";
  }
  return "?";
}

std::string_view binaryKindName(BinaryKind k) {
  switch (k) {
  case BinaryKind::Add:
    return "add";
  case BinaryKind::Sub:
    return "sub";
  case BinaryKind::Mul:
    return "mul";
  case BinaryKind::Div:
    return "div";
  case BinaryKind::Max:
    return "max";
  case BinaryKind::Min:
    return "min";
  case BinaryKind::Pow:
    return "pow";
  }
  return "?";
}

std::string_view reduceKindName(ReduceKind k) {
  return k == ReduceKind::Sum ? "row_sum" : "row_max";
}

std::string_view colReduceKindName(ReduceKind k) {
  return k == ReduceKind::Sum ? "col_sum" : "col_max";
}

} // namespace kina::ir
