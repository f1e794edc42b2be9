//===- hopper_run.cpp - Run a Hopper cubin through kina_runtime -----------===//
//
// The GPU bring-up runner of tests/gpu/hopper/run.sh, for the machine with
// the H200 (no LLVM there): it loads a cubin and its launch metadata, both
// made on the build machine by kina-codegen-fixture from the tile IR
// kernels of tests/unit/ir/HopperKernels.h, and launches it through the
// real runtime path: launch guard, seeded inputs, TMA tensor maps encoded
// with cuTensorMapEncodeTiled (runtime/TensorMap.h), > 48 KB of dynamic
// shared memory, then saves every tensor (inputs and outputs) as .npy for
// the NumPy reference (check.py) and optionally times the kernel.
//
//   hopper_run CUBIN LAUNCH_JSON --dims M=..,N=..,K=.. --save DIR
//              [--seed S] [--iters N] [--device D]
//
// Exit status: 0 launched and saved, 1 failure, 2 usage, 77 SKIP (no GPU).
//
//===----------------------------------------------------------------------===//
#include "runtime/CudaDriver.h"
#include "runtime/Device.h"
#include "runtime/EventTimer.h"
#include "runtime/HostTensor.h"
#include "runtime/Launch.h"
#include "runtime/LaunchGuard.h"
#include "runtime/Npy.h"
#include "runtime/Random.h"
#include "runtime/TensorMap.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>

using namespace kina::runtime;

namespace {

int failWith(const std::string &what, const std::string &why) {
  std::printf("FAIL %s: %s\n", what.c_str(), why.c_str());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"Run a Hopper cubin through kina_runtime (exit 77 = SKIP: no CUDA device)"};
  std::string cubin, launchPath, dimsText, saveDir;
  std::uint64_t seed = 1;
  int iters = 0, ordinal = 0;
  app.add_option("cubin", cubin, "cubin file")->required();
  app.add_option("launch", launchPath, "<kernel>.launch.json")->required();
  app.add_option("--dims", dimsText, "M=..,N=..,K=..");
  app.add_option("--save", saveDir, "directory for <param>.npy (inputs and outputs)");
  app.add_option("--seed", seed, "seed of the random inputs");
  app.add_option("--iters", iters, "timed launches after the checked one (0: none)");
  app.add_option("--device", ordinal, "device ordinal");
  CLI11_PARSE(app, argc, argv);

  auto spec = loadLaunchSpec(launchPath);
  if (!spec)
    return failWith("launch metadata", spec.error().message);
  auto dims = parseDimsArgument(dimsText);
  if (!dims)
    return failWith("dims", dims.error().message);
  // The device-independent guard first: refused dims fail without a GPU too.
  if (auto p = checkDims(*spec, *dims); !p)
    return failWith("launch guard", p.error().message);
  auto dev = Device::open(ordinal);
  if (!dev) {
    if (dev.error().isNoDevice()) {
      std::printf("SKIP: no CUDA device (%s)\n", dev.error().message.c_str());
      return 77;
    }
    return failWith("open device", dev.error().message);
  }
  std::printf("device %d: %s\n", ordinal, dev->info().summary().c_str());
  auto plan = checkLaunch(*spec, *dims, dev->info());
  if (!plan)
    return failWith("launch guard", plan.error().message);
  auto mod = Module::loadFile(*dev, cubin);
  if (!mod)
    return failWith("load " + cubin, mod.error().message);
  auto kernel = mod->kernel(spec->symbol);
  if (!kernel)
    return failWith("kernel", kernel.error().message);
  if (auto a = kernel->attributes())
    std::printf("kernel %s: %d registers, %d bytes static smem, %d bytes local, %u dynamic\n",
                spec->kernel.c_str(), a->numRegs, a->staticSharedBytes, a->localBytes,
                plan->config.dynamicSharedBytes);

  std::vector<HostTensor> hosts;
  std::vector<DeviceBuffer> buffers;
  std::vector<const ParamPlan *> tensors;
  std::size_t index = 0;
  for (const ParamPlan &p : plan->params) {
    ++index;
    if (p.kind != ParamKind::Tensor)
      continue;
    HostTensor t(p.dtype, p.shape);
    if (p.role != ParamRole::Output)
      fillRandom(t, seed, index - 1);
    auto buf = DeviceBuffer::alloc(*dev, t.byteSize(), "parameter `" + p.name + "`");
    if (!buf)
      return failWith("alloc", buf.error().message);
    // Outputs start as NaN bytes so that unwritten elements show.
    Status s = p.role != ParamRole::Output ? buf->copyFromHost(t.span()) : buf->fill(0xFF);
    if (!s)
      return failWith("copy " + p.name, s.error().message);
    hosts.push_back(std::move(t));
    buffers.push_back(buf.take());
    tensors.push_back(&p);
  }
  std::vector<const DeviceBuffer *> ptrs;
  for (const DeviceBuffer &b : buffers)
    ptrs.push_back(&b);
  TensorMapCache maps(dev->api());
  auto args = packArguments(*plan, ptrs, &maps);
  if (!args)
    return failWith("arguments",
                    std::string(errorKindName(args.error().kind)) + ": " + args.error().message);
  std::printf("tensor maps encoded: %zu\n", maps.encodeCalls());
  Status s = launch(*kernel, plan->config, *args);
  if (s)
    s = dev->synchronize("kernel `" + spec->kernel + "`");
  if (!s)
    return failWith("launch", s.error().message);
  std::printf("PASS launch %s grid %s block %s\n", spec->kernel.c_str(),
              plan->config.grid.str().c_str(), plan->config.block.str().c_str());
  for (std::size_t t = 0; t < hosts.size(); ++t) {
    if (tensors[t]->role != ParamRole::Input)
      if (Status c = buffers[t].copyToHost(hosts[t].span()); !c)
        return failWith("copy back", c.error().message);
    if (!saveDir.empty())
      if (Status w = writeNpy(saveDir + "/" + tensors[t]->name + ".npy", hosts[t]); !w)
        return failWith("save", w.error().message);
  }
  if (iters > 0) {
    auto timer = EventTimer::create(*dev);
    if (!timer)
      return failWith("timer", timer.error().message);
    auto stats = timer->measure([&] { return launch(*kernel, plan->config, *args); },
                                {5, iters, true}, spec->kernel);
    if (!stats)
      return failWith("timing", stats.error().message);
    std::printf("median %.4f ms over %d runs", stats->medianMs, iters);
    if (plan->flops)
      std::printf(", %.2f TFLOP/s", *plan->flops / (stats->medianMs * 1e9));
    std::printf("\n");
  }
  return 0;
}
