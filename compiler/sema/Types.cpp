//===- Types.cpp - Kina semantic types ------------------------------------===//
#include "sema/Types.h"

namespace kina::sema {

namespace {
struct DTypeEntry {
  DType type;
  const char *name;
  unsigned bytes;
  bool isFloat;
};
const DTypeEntry kDTypes[] = {
    {DType::F16, "F16", 2, true},   {DType::BF16, "BF16", 2, true}, {DType::F32, "F32", 4, true},
    {DType::F64, "F64", 8, true},   {DType::TF32, "TF32", 4, true}, {DType::I8, "I8", 1, false},
    {DType::U8, "U8", 1, false},    {DType::I32, "I32", 4, false},  {DType::I64, "I64", 8, false},
    {DType::E4M3, "E4M3", 1, true}, {DType::E5M2, "E5M2", 1, true}, {DType::Bool, "Bool", 1, false},
};
const DTypeEntry &entry(DType t) { return kDTypes[static_cast<size_t>(t)]; }
} // namespace

std::optional<DType> parseDType(std::string_view name) {
  for (const DTypeEntry &e : kDTypes)
    if (name == e.name)
      return e.type;
  return std::nullopt;
}

const char *dtypeName(DType t) { return entry(t).name; }
unsigned dtypeBytes(DType t) { return entry(t).bytes; }
bool isFloat(DType t) { return entry(t).isFloat; }

bool isWarpgroupVectorShape(const std::vector<DimExpr> &shape) {
  if (shape.size() != 2)
    return false;
  auto rows = shape[0].constantValue(), cols = shape[1].constantValue();
  if (!rows || !cols)
    return false;
  bool row = *rows == 1 && *cols >= 8 && *cols <= 256 && *cols % 8 == 0;
  bool column = *rows == 64 && *cols == 1;
  return row || column;
}

bool isWarpgroupVector(const TensorType &t) {
  return t.warpgroup && isWarpgroupVectorShape(t.shape) &&
         (t.dtype == DType::F32 || t.dtype == DType::BF16 || t.dtype == DType::F16);
}

const std::vector<std::string> &dtypeNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const DTypeEntry &e : kDTypes)
      out.push_back(e.name);
    return out;
  }();
  return names;
}

const char *spaceName(Space s) {
  switch (s) {
  case Space::Host: return "host";
  case Space::Global: return "cuda:global";
  case Space::Shared: return "cuda:shared";
  case Space::Register: return "cuda:register";
  }
  return "?";
}

const char *sharedLayoutName(SharedLayout l) {
  switch (l) {
  case SharedLayout::None:
    return "none";
  case SharedLayout::Swizzle128B:
    return "swizzle_128b";
  }
  return "?";
}

std::optional<SharedLayout> parseSharedLayout(std::string_view name) {
  if (name == "swizzle_128b")
    return SharedLayout::Swizzle128B;
  return std::nullopt;
}

std::string printShape(const std::vector<DimExpr> &shape, const SymbolTable &symbols) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      out += ", ";
    out += symbols.str(shape[i]);
  }
  return out + "]";
}

std::string meshName(const std::vector<int64_t> &mesh) {
  std::string s = "[";
  for (size_t i = 0; i < mesh.size(); ++i)
    s += (i ? ", " : "") + std::to_string(mesh[i]);
  return s + "]";
}

std::string shardingName(const Sharding &s) {
  switch (s.kind) {
  case ShardKind::None:
    return "";
  case ShardKind::Replicated:
    return "Replicated(mesh=" + meshName(s.mesh) + ")";
  case ShardKind::Sharded:
    return "Sharded(dim=" + std::to_string(s.dim) + ", mesh=" + meshName(s.mesh) + ")";
  case ShardKind::Partial:
    return "Partial(mesh=" + meshName(s.mesh) + ")";
  }
  return "";
}

std::string printType(const Type &type, const SymbolTable &symbols) {
  switch (type.kind) {
  case Type::Error: return "<error>";
  case Type::Unit: return "()";
  case Type::Index: return "Index";
  case Type::Bool: return "Bool";
  case Type::Scalar: return dtypeName(type.scalar);
  case Type::Splat: return std::string("fill ") + dtypeName(type.scalar);
  case Type::DTypeName: return std::string("dtype ") + dtypeName(type.scalar);
  case Type::Tensor: {
    const TensorType &t = type.tensor;
    return std::string(t.isTile ? "Tile[" : "Tensor[") + dtypeName(t.dtype) + ", " +
           printShape(t.shape, symbols) +
           (t.sharding.kind != ShardKind::None ? ", " + shardingName(t.sharding) : std::string()) +
           ", on=" + spaceName(t.space) +
           (t.space == Space::Global && t.device != 0 ? "(" + std::to_string(t.device) + ")"
                                                      : std::string()) +
           (t.layout != SharedLayout::None ? std::string(", layout=") + sharedLayoutName(t.layout)
                                           : std::string()) +
           "]";
  }
  case Type::Barrier:
    return "Barrier[" + std::to_string(type.barrier.stages) +
           ", arrivals=" + std::to_string(type.barrier.arrivals) + "]";
  }
  return "?";
}

} // namespace kina::sema
