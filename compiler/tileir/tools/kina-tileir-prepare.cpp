//===- kina-tileir-prepare.cpp - Cubins of the writer's kernels -----------===//
//
// On the build machine: writes the hand-built Tile IR kernels
// (SmokeKernels.h) at the version chosen for the selected tileiras,
// assembles each for --target, and puts DIR/<kernel>.tileirbc,
// DIR/<kernel>.cubin and DIR/manifest.txt (one line per kernel: name, kind,
// grid x y z, block x y z, sizes) for tests/gpu/tileir/tileir_run on the GPU
// machine, which has no tileiras. Exit 1 on any discovery, writer or
// assembly error. The block is the cubin's EIATTR_REQNTID: tileiras picks
// the thread count, and a launch with any other block is refused
// (CUDA_ERROR_INVALID_VALUE).
//
// Usage: kina-tileir-prepare DIR [--target sm_90] [--small]
//        kina-tileir-prepare --block-of CUBIN KERNEL   (prints "x y z")
//
//===----------------------------------------------------------------------===//
#include "target/CubinInfo.h"
#include "target/TargetError.h"
#include "tileir/Assembler.h"
#include "tileir/SmokeKernels.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

using namespace kina;
using namespace kina::tileir;

namespace {

/// The block size a Tile IR cubin's kernel requires, or why there is none.
std::optional<std::array<unsigned, 3>> requiredBlock(std::span<const std::uint8_t> cubin,
                                                     const std::string &kernel, std::string &why) {
  auto info = target::readCubin(cubin);
  if (!info) {
    why = target::takeTargetFailure(info.takeError()).message;
    return std::nullopt;
  }
  const target::CubinFunctionInfo *fn = info->find(kernel);
  if (!fn) {
    why = "the cubin has no function `" + kernel + "`";
    return std::nullopt;
  }
  if (!fn->reqThreads) {
    why = "the cubin gives `" + kernel + "` no required block size (EIATTR_REQNTID)";
    return std::nullopt;
  }
  return fn->reqThreads;
}

int printBlockOf(const std::string &path, const std::string &kernel) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "error: cannot read %s\n", path.c_str());
    return 1;
  }
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
  std::string why;
  auto block = requiredBlock(bytes, kernel, why);
  if (!block) {
    std::fprintf(stderr, "error: %s: %s\n", path.c_str(), why.c_str());
    return 1;
  }
  std::printf("%u %u %u\n", (*block)[0], (*block)[1], (*block)[2]);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 4 && std::string(argv[1]) == "--block-of")
    return printBlockOf(argv[2], argv[3]);
  std::string dir, targetName = "sm_90";
  bool small = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--target" && i + 1 < argc)
      targetName = argv[++i];
    else if (a == "--small")
      small = true;
    else if (dir.empty() && a[0] != '-')
      dir = a;
    else {
      std::fprintf(stderr, "usage: kina-tileir-prepare DIR [--target sm_90] [--small]\n");
      return 2;
    }
  }
  if (dir.empty()) {
    std::fprintf(stderr, "usage: kina-tileir-prepare DIR [--target sm_90] [--small]\n");
    return 2;
  }
  auto target = parseTarget(targetName);
  if (!target) {
    std::fprintf(stderr, "error[K1124]: %s has no Tile IR backend (docs/tile-ir.md)\n",
                 targetName.c_str());
    return 1;
  }
  auto choice = chooseAssembler({});
  if (!choice) {
    auto f = target::takeTargetFailure(choice.takeError());
    std::fprintf(stderr, "error[%s]: %s\n", std::string(diagInfo(f.id).code).c_str(),
                 f.message.c_str());
    return 1;
  }
  std::printf("assembler: %s; emitting Tile IR %s for %s\n", choice->describe().c_str(),
              choice->version.str().c_str(), targetName.c_str());
  Version v = choice->version;
  struct Item {
    SmokeKernel k;
    std::string kind, sizes;
  };
  int n = small ? 1 << 12 : 1 << 24;
  int g = small ? 128 : 4096;
  int rows = small ? 64 : 1 << 16;
  std::vector<Item> items;
  items.push_back({elementwiseAddKernel(v, n, 1024), "add", std::to_string(n)});
  // The same add with n passed at launch (pointers, then the dim as i32).
  items.push_back({elementwiseAddDynamicKernel(v, 1024, static_cast<unsigned>(n / 1024)), "add_dyn",
                   std::to_string(n)});
  items.push_back({gemmKernel(v, g, g, g, 128, 128, 32), "gemm",
                   std::to_string(g) + " " + std::to_string(g) + " " + std::to_string(g)});
  items.push_back({softmaxKernel(v, rows, 256, 16), "softmax", std::to_string(rows) + " 256"});
  std::ofstream manifest(dir + "/manifest.txt");
  if (!manifest) {
    std::fprintf(stderr, "error: cannot write %s/manifest.txt\n", dir.c_str());
    return 1;
  }
  int bad = 0;
  for (Item &it : items) {
    const SmokeKernel &k = it.k;
    if (!k.error.empty()) {
      std::fprintf(stderr, "FAIL %s: bytecode writer: %s\n", k.name.c_str(), k.error.c_str());
      ++bad;
      continue;
    }
    std::ofstream(dir + "/" + k.name + ".tileirbc", std::ios::binary)
        .write(reinterpret_cast<const char *>(k.bytecode.data()), k.bytecode.size());
    auto cubin = assemble(choice->tool, k.bytecode, *target);
    if (!cubin) {
      auto f = target::takeTargetFailure(cubin.takeError());
      std::fprintf(stderr, "FAIL %s: %s\n", k.name.c_str(), f.message.c_str());
      ++bad;
      continue;
    }
    std::ofstream(dir + "/" + k.name + ".cubin", std::ios::binary)
        .write(reinterpret_cast<const char *>(cubin->data()), cubin->size());
    std::string why;
    auto block = requiredBlock(*cubin, k.name, why);
    if (!block) {
      std::fprintf(stderr, "FAIL %s: %s\n", k.name.c_str(), why.c_str());
      ++bad;
      continue;
    }
    manifest << k.name << " " << it.kind << " " << k.grid[0] << " " << k.grid[1] << " " << k.grid[2]
             << " " << (*block)[0] << " " << (*block)[1] << " " << (*block)[2] << " " << it.sizes
             << "\n";
    std::printf("ok   %s: %zu bytes of bytecode, %zu-byte cubin\n", k.name.c_str(),
                k.bytecode.size(), cubin->size());
  }
  return bad ? 1 : 0;
}
