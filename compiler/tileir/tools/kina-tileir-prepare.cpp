//===- kina-tileir-prepare.cpp - Cubins of the writer's kernels -----------===//
//
// On the build machine: writes the hand-built Tile IR kernels
// (SmokeKernels.h) at the version chosen for the selected tileiras,
// assembles each for --target, and puts DIR/<kernel>.tileirbc,
// DIR/<kernel>.cubin and DIR/manifest.txt (one line per kernel: name, kind,
// grid x y z, sizes) for tests/gpu/tileir/tileir_run on the GPU machine,
// which has no tileiras. Exit 1 on any discovery, writer or assembly error.
//
// Usage: kina-tileir-prepare DIR [--target sm_90] [--small]
//
//===----------------------------------------------------------------------===//
#include "target/TargetError.h"
#include "tileir/Assembler.h"
#include "tileir/SmokeKernels.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

using namespace kina;
using namespace kina::tileir;

int main(int argc, char **argv) {
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
    manifest << k.name << " " << it.kind << " " << k.grid[0] << " " << k.grid[1] << " " << k.grid[2]
             << " " << it.sizes << "\n";
    std::printf("ok   %s: %zu bytes of bytecode, %zu-byte cubin\n", k.name.c_str(),
                k.bytecode.size(), cubin->size());
  }
  return bad ? 1 : 0;
}
