//===- HopperLayout.cpp - Bit layouts of the sm_90a path ------------------===//
//
// See HopperLayout.h for the PTX ISA sections each function follows.
//
//===----------------------------------------------------------------------===//
#include "codegen/HopperLayout.h"

#include "ir/Verifier.h"

#include <algorithm>
#include <optional>

namespace kina::codegen {

uint32_t swizzle128BOffset(uint32_t row, uint32_t colByte) {
  uint32_t chunk = (colByte / 16) ^ (row % 8);
  return row * 128 + chunk * 16 + colByte % 16;
}

uint64_t wgmmaDescriptor128B(uint32_t byteAddress) {
  uint64_t start = (byteAddress & 0x3FFFFu) >> 4;
  return start | kWgmmaDescriptor128BFixed;
}

uint32_t stmatrixRowAddress(unsigned thread, unsigned square, int64_t rows) {
  unsigned lane = thread % 32, warp = (thread % 128) / 32;
  uint32_t row = 16 * warp + 8 * ((lane / 8) % 2) + lane % 8;
  uint32_t col = 16 * square + 8 * (lane / 16); // 16-bit elements
  uint32_t panel = col / 64;
  return panel * static_cast<uint32_t>(rows) * 128 + swizzle128BOffset(row, (col % 64) * 2);
}

FragmentCoord wgmmaAccumulatorCoord(unsigned thread, unsigned i) {
  unsigned warp = (thread % 128) / 32, lane = thread % 32;
  FragmentCoord c;
  c.row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
  c.col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
  return c;
}

namespace {

/// The map of a 2-D global slice: box = [rows, at most one 128-byte panel
/// of columns] (a box's inner extent is 128 bytes under SWIZZLE_128B; wider
/// tiles are copied one panel-sized box at a time).
std::optional<TensorMapUse> useOfSlice(const ir::Kernel &k, const ir::Access &global) {
  if (global.kind != ir::Access::Kind::Tensor || global.id >= k.params.size())
    return std::nullopt;
  std::vector<int64_t> box = ir::accessShape(k, global);
  if (box.size() != 2)
    return std::nullopt;
  ir::DType dt = k.params[global.id].dtype;
  return TensorMapUse{global.id, dt, box[0], std::min<int64_t>(box[1], panelElements(dt))};
}
std::optional<TensorMapUse> useOf(const ir::Kernel &k, const ir::TmaLoadOp &op) {
  return useOfSlice(k, op.src);
}
std::optional<TensorMapUse> useOf(const ir::Kernel &k, const ir::TmaStoreOp &op) {
  return useOfSlice(k, op.dst);
}

template <typename Op> void add(const ir::Kernel &k, const Op &op, std::vector<TensorMapUse> &out) {
  if (auto u = useOf(k, op); u && std::find(out.begin(), out.end(), *u) == out.end())
    out.push_back(*u);
}

void collect(const ir::Kernel &k, const ir::Block &b, std::vector<TensorMapUse> &out) {
  for (const ir::Op &op : b.ops) {
    if (auto *t = op.as<ir::TmaLoadOp>()) {
      add(k, *t, out);
    } else if (auto *t = op.as<ir::TmaStoreOp>()) {
      add(k, *t, out);
    } else if (auto *f = op.as<ir::ForOp>()) {
      collect(k, f->body, out);
    } else if (auto *r = op.as<ir::RoleOp>()) {
      collect(k, r->body, out);
    } else if (auto *i = op.as<ir::IfOp>()) {
      collect(k, i->thenBody, out);
      collect(k, i->elseBody, out);
    }
  }
}

} // namespace

std::vector<TensorMapUse> planTensorMaps(const ir::Kernel &kernel) {
  std::vector<TensorMapUse> out;
  collect(kernel, kernel.body, out);
  return out;
}

int64_t panelElements(ir::DType dtype) { return 128 / ir::dtypeBytes(dtype); }

int tensorMapIndex(const std::vector<TensorMapUse> &maps, const ir::Kernel &kernel,
                   const ir::TmaStoreOp &op) {
  auto u = useOf(kernel, op);
  if (!u)
    return -1;
  for (size_t i = 0; i < maps.size(); ++i)
    if (maps[i] == *u)
      return static_cast<int>(i);
  return -1;
}

int tensorMapIndex(const std::vector<TensorMapUse> &maps, const ir::Kernel &kernel,
                   const ir::TmaLoadOp &op) {
  auto u = useOf(kernel, op);
  if (!u)
    return -1;
  for (size_t i = 0; i < maps.size(); ++i)
    if (maps[i] == *u)
      return static_cast<int>(i);
  return -1;
}

namespace {
template <typename Pred> std::vector<std::string> linesWhere(std::string_view log, Pred pred) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < log.size()) {
    size_t end = log.find('\n', pos);
    std::string_view line =
        log.substr(pos, end == std::string_view::npos ? log.size() - pos : end - pos);
    if (pred(line))
      out.emplace_back(line);
    if (end == std::string_view::npos)
      break;
    pos = end + 1;
  }
  return out;
}
} // namespace

std::vector<std::string> setmaxnregIgnoredWarnings(std::string_view log) {
  return linesWhere(log, [](std::string_view line) {
    return line.find("setmaxnreg") != std::string_view::npos &&
           line.find("ignored") != std::string_view::npos;
  });
}

std::vector<std::string> wgmmaSerializationWarnings(std::string_view log) {
  return linesWhere(log, [](std::string_view line) {
    for (int code = 7510; code <= 7515; ++code)
      if (line.find("C" + std::to_string(code)) != std::string_view::npos)
        return true;
    return false;
  });
}

} // namespace kina::codegen
