//===- Builtins.cpp - The builtin functions the checker knows -------------===//
#include "sema/Builtins.h"

#include "diag/Spelling.h"

namespace kina::sema {

namespace {

using P = BuiltinPlace;

// Keep in step with Checker::checkApplication (CheckExpr.cpp); the unit test
// fails when an entry is not implemented there, or is callable elsewhere.
constexpr BuiltinInfo kBuiltins[] = {
    {"block_id", P::Device, 1},
    {"warp_id", P::Device, 1},
    {"floor_div", P::Anywhere, 2},
    {"ceil_div", P::Anywhere, 2},
    {"fill", P::Device, 1},
    {"wmma_mma", P::Device, 3},
    {"dp4a_mma", P::Device, 3},
    {"convert", P::Device, 2},
    {"relu", P::Anywhere, 1},
    {"exp", P::Anywhere, 1},
    {"neg", P::Anywhere, 1},
    {"add", P::Anywhere, 2},
    {"sub", P::Anywhere, 2},
    {"mul", P::Anywhere, 2},
    {"div", P::Anywhere, 2},
    {"max", P::Anywhere, 2},
    {"min", P::Anywhere, 2},
    {"row_sum", P::Anywhere, 1},
    {"row_max", P::Anywhere, 1},
    {"transpose", P::Anywhere, 1},
    {"matmul", P::Host, 2},
    {"copy_to_device", P::Host, 1},
    {"copy_to_host", P::Host, 1},
    // Collectives over the devices of a mesh (issue 19, CheckMesh.cpp).
    {"all_reduce", P::Host, 1},
    {"all_gather", P::Host, 1},
    {"reduce_scatter", P::Host, 1},
    // The math builtins (docs/math.md; Checker::checkMath).
    {"sqrt", P::Device, 1},
    {"rsqrt", P::Device, 1},
    {"exp2", P::Device, 1},
    {"log", P::Device, 1},
    {"log2", P::Device, 1},
    {"tanh", P::Device, 1},
    {"erf", P::Device, 1},
    {"sigmoid", P::Device, 1},
    {"silu", P::Anywhere, 1},
    {"gelu", P::Anywhere, 1},
    {"gelu_tanh", P::Anywhere, 1},
    {"abs", P::Device, 1},
    {"floor", P::Device, 1},
    {"ceil", P::Device, 1},
    {"pow", P::Device, 2},
    {"clamp", P::Device, 3},
    {"exp2_approx", P::Device, 1},
    {"rsqrt_approx", P::Device, 1},
    {"tanh_approx", P::Device, 1},
    {"gelu_tanh_approx", P::Device, 1},
    // Masks and ragged edges (CheckMasked.cpp).
    {"select", P::Device, 3},
    // Broadcasting and reductions (CheckBroadcast.cpp).
    {"col_sum", P::Device, 1},
    {"col_max", P::Device, 1},
    {"block_sum", P::Device, 1},
    {"block_max", P::Device, 1},
    // Host-level normalisations over the rows (host, CheckHost.cpp).
    {"softmax", P::Host, 1},
    {"layernorm", P::Host, 3},
    {"rmsnorm", P::Host, 2},
    // Atomics (CheckAtomics.cpp): only as the whole value of a store.
    {"atomic_add", P::Device, 1},
    {"atomic_max", P::Device, 1},
    {"atomic_min", P::Device, 1},
};

} // namespace

std::span<const BuiltinInfo> builtins() { return kBuiltins; }

bool callableFrom(BuiltinPlace place, syntax::ItemKind caller) {
  auto bit = caller == syntax::ItemKind::HostFunction ? BuiltinPlace::Host : BuiltinPlace::Device;
  return (static_cast<uint8_t>(place) & static_cast<uint8_t>(bit)) != 0;
}

bool itemCallableFrom(syntax::ItemKind callee, syntax::ItemKind caller) {
  return callee == syntax::ItemKind::TileFunction || caller == syntax::ItemKind::HostFunction;
}

std::string suggestFunction(std::string_view word, syntax::ItemKind caller,
                            const std::vector<std::pair<std::string, syntax::ItemKind>> &items) {
  std::vector<std::string> candidates;
  for (const BuiltinInfo &b : kBuiltins)
    if (callableFrom(b.place, caller))
      candidates.emplace_back(b.name);
  for (const auto &[name, kind] : items)
    if (itemCallableFrom(kind, caller))
      candidates.push_back(name);
  return closestSpelling(word, candidates, word.size() <= 3 ? 1 : 2);
}

} // namespace kina::sema
