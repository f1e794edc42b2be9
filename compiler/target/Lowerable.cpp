//===- Lowerable.cpp - What code generation can lower ---------------------===//
//
// The tables of Lowerable.def and the shape rules of Lowerable.h.
//
//===----------------------------------------------------------------------===//
#include "target/Lowerable.h"

#include <cctype>

namespace kina::target::lowerable {

namespace {

struct DTypeRow {
  std::string_view name;
  bool lowered;
  std::string_view why;
};

const DTypeRow kDTypes[] = {
#define KINA_LOWERABLE_DTYPE(name, lowered, why) {name, lowered, why},
#include "target/Lowerable.def"
#undef KINA_LOWERABLE_DTYPE
};

const std::vector<MmaLowering> &mmaRows() {
  static const std::vector<MmaLowering> rows = {
#define KINA_LOWERABLE_MMA(a, b, c, cap, ...) {a, b, c, cap, {__VA_ARGS__}},
#define Ldmatrix CapabilityId::Ldmatrix
#define MmaM16n8k16F16F16F32 CapabilityId::MmaM16n8k16F16F16F32
#define MmaM16n8k16Bf16Bf16F32 CapabilityId::MmaM16n8k16Bf16Bf16F32
#define MmaM16n8k16F16F16F16 CapabilityId::MmaM16n8k16F16F16F16
#define MmaM16n8k32S8S8S32 CapabilityId::MmaM16n8k32S8S8S32
#include "target/Lowerable.def"
#undef Ldmatrix
#undef MmaM16n8k16F16F16F32
#undef MmaM16n8k16Bf16Bf16F32
#undef MmaM16n8k16F16F16F16
#undef MmaM16n8k32S8S8S32
#undef KINA_LOWERABLE_MMA
  };
  return rows;
}

struct CopyRow {
  std::string_view capability;
  std::vector<CapabilityId> instructions;
};

const std::vector<CopyRow> &copyRows() {
  static const std::vector<CopyRow> rows = {
#define KINA_LOWERABLE_COPY(cap, ...) {cap, {__VA_ARGS__}},
#define CpAsync CapabilityId::CpAsync
#include "target/Lowerable.def"
#undef CpAsync
#undef KINA_LOWERABLE_COPY
  };
  return rows;
}

std::string shapeText(const std::vector<int64_t> &s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i)
    r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

} // namespace

std::optional<std::string> dtypeProblem(std::string_view dtype) {
  for (const DTypeRow &r : kDTypes)
    if (r.name == dtype)
      return r.lowered ? std::nullopt : std::optional<std::string>(std::string(r.why));
  return "unknown element type";
}

std::optional<std::string> registerTileProblem(const std::vector<int64_t> &shape) {
  if (shape.size() == 1) {
    if (shape[0] % kVectorMultiple == 0)
      return std::nullopt;
    return "a 1-D register tile needs a multiple of " + std::to_string(kVectorMultiple) +
           " elements, got " + shapeText(shape);
  }
  if (shape.size() != 2)
    return "register tiles have 1 or 2 dimensions, got " + shapeText(shape);
  bool rowsOk = shape[0] > 0 && shape[0] % kRegisterRowMultiple == 0;
  bool colsOk = shape[1] == 1 || (shape[1] > 0 && shape[1] % kRegisterColMultiple == 0);
  if (rowsOk && colsOk)
    return std::nullopt;
  // A row [1, C] (broadcasting, column reductions): the columns of one
  // fragment row, replicated over the 8 row groups of the warp.
  if (shape[0] == 1 && shape[1] > 1 && shape[1] % kRegisterColMultiple == 0)
    return std::nullopt;
  return "a register tile " + shapeText(shape) + " cannot be spread over a warp: rows must be a " +
         "multiple of " + std::to_string(kRegisterRowMultiple) + " and columns a multiple of " +
         std::to_string(kRegisterColMultiple) + " (or exactly 1), or a row [1, C] with C a " +
         "multiple of " + std::to_string(kRegisterColMultiple);
}

std::optional<std::string> mmaShapeProblem(int64_t m, int64_t n, int64_t k) {
  if (m % kMmaM == 0 && n % kMmaN == 0 && k % kMmaK == 0 && m > 0 && n > 0 && k > 0)
    return std::nullopt;
  return "an mma of [" + std::to_string(m) + ", " + std::to_string(k) + "] x [" +
         std::to_string(k) + ", " + std::to_string(n) + "] does not split into m" +
         std::to_string(kMmaM) + "n" + std::to_string(kMmaN) + "k" + std::to_string(kMmaK) +
         " fragments";
}

std::optional<std::string> transposeProblem(int64_t rows, int64_t cols) {
  if (rows % kTransposeMultiple == 0 && cols % kTransposeMultiple == 0)
    return std::nullopt;
  return "`transpose` of [" + std::to_string(rows) + ", " + std::to_string(cols) +
         "] needs both extents to be multiples of " + std::to_string(kTransposeMultiple);
}

std::optional<std::string> copyRowProblem(int64_t rowBytes) {
  if (rowBytes > 0 && rowBytes % kCopyChunkBytes == 0)
    return std::nullopt;
  return "cp_async rows of " + std::to_string(rowBytes) + " bytes do not split into " +
         std::to_string(kCopyChunkBytes) + "-byte chunks";
}

const MmaLowering *mmaLowering(std::string_view a, std::string_view b, std::string_view c) {
  for (const MmaLowering &r : mmaRows())
    if (r.a == a && r.b == b && r.c == c)
      return &r;
  return nullptr;
}

std::string mmaCombinations() {
  auto lower = [](std::string_view n) {
    std::string s(n);
    for (char &ch : s)
      ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  std::string s;
  for (const MmaLowering &r : mmaRows())
    s += (s.empty() ? "" : ", ") + lower(r.a) + "_" + lower(r.b) + "_" + lower(r.c);
  return s;
}

std::vector<CapabilityId> instructionsFor(std::string_view languageCapability) {
  for (const MmaLowering &r : mmaRows())
    if (r.languageCapability == languageCapability)
      return r.instructions;
  for (const CopyRow &r : copyRows())
    if (r.capability == languageCapability)
      return r.instructions;
  return {};
}

} // namespace kina::target::lowerable
