//===- smoke_runtime.cpp - Exercise kina_runtime on a real GPU ------------===//
//
// A standalone program for the GPU machine, independent of the compiler:
//
//   smoke_runtime --builtin [--device N] [--no-fault]
//       Loads hand-written PTX (tests/gpu/smoke.ptx, JIT-compiled by the
//       driver) and checks: device query, module/kernel lookup, copies,
//       launch + result, dynamic shared memory above 48 KiB, event timing,
//       the launch guard, and the error paths (bad image, unknown kernel,
//       oversized block, out of memory, and last a faulting kernel).
//   smoke_runtime CUBIN KERNEL [--launch K.launch.json --dims M=..,N=..]
//                 [--seed S] [--iters N] [--save DIR]
//       Loads a cubin, prints the kernel's attributes and, given launch
//       metadata and dims, runs the guard, fills inputs with seeded random
//       values, launches, times (median of N) and prints output checksums.
//
// Exit status: 0 all passed, 1 a check failed, 2 usage error,
// 77 `SKIP: no CUDA device (<reason>)`.
//
//===----------------------------------------------------------------------===//
#include "SmokePtx.h"
#include "runtime/Compare.h"
#include "runtime/CudaDriver.h"
#include "runtime/Device.h"
#include "runtime/EventTimer.h"
#include "runtime/Launch.h"
#include "runtime/LaunchGuard.h"
#include "runtime/Npy.h"
#include "runtime/Random.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstring>
#include <optional>

using namespace kina::runtime;

namespace {

int failures = 0;

void pass(const std::string &name, const std::string &detail = "") {
  std::printf("PASS %s%s%s\n", name.c_str(), detail.empty() ? "" : ": ", detail.c_str());
}
void fail(const std::string &name, const std::string &why) {
  std::printf("FAIL %s: %s\n", name.c_str(), why.c_str());
  ++failures;
}
/// Expects `s` to fail with `kind` and a message containing `needle`.
template <typename R>
void expectError(const std::string &name, const R &r, ErrorKind kind, const std::string &needle) {
  if (r.ok())
    return fail(name, "succeeded, expected a " + std::string(errorKindName(kind)) + " error");
  if (r.error().kind != kind)
    return fail(name, "got " + std::string(errorKindName(r.error().kind)) + " (" +
                          r.error().message + "), expected " + std::string(errorKindName(kind)));
  if (r.error().message.find(needle) == std::string::npos)
    return fail(name, "message lacks \"" + needle + "\": " + r.error().message);
  pass(name, r.error().message);
}

std::optional<Device> openOrSkip(int ordinal, int &exitCode) {
  auto dev = Device::open(ordinal);
  if (!dev) {
    if (dev.error().isNoDevice()) {
      std::printf("SKIP: no CUDA device (%s)\n", dev.error().message.c_str());
      exitCode = kSkipExitCode;
    } else {
      std::printf("FAIL open device %d: %s\n", ordinal, dev.error().message.c_str());
      exitCode = 1;
    }
    return std::nullopt;
  }
  std::printf("device %d: %s\n", ordinal, dev->info().summary().c_str());
  return dev.take();
}

std::span<const std::uint8_t> bytesOf(const char *text) {
  return {reinterpret_cast<const std::uint8_t *>(text), std::strlen(text)};
}

int runBuiltin(int ordinal, bool withFault) {
  int exitCode = 0;
  auto devOpt = openOrSkip(ordinal, exitCode);
  if (!devOpt)
    return exitCode;
  Device &dev = *devOpt;
  const DeviceInfo &info = dev.info();

  auto mod = Module::load(dev, bytesOf(kSmokePtx), "smoke.ptx");
  if (!mod) {
    fail("load smoke.ptx", mod.error().message);
    return 1;
  }
  pass("load smoke.ptx (driver JIT)");
  auto add = mod->kernel("kina_smoke_add");
  auto reverse = mod->kernel("kina_smoke_reverse");
  auto fault = mod->kernel("kina_smoke_fault");
  if (!add || !reverse || !fault) {
    fail("kernel lookup", "kina_smoke_add/reverse/fault missing");
    return 1;
  }
  pass("kernel lookup");
  expectError("unknown kernel", mod->kernel("no_such_kernel"), ErrorKind::KernelNotFound,
              "kernel `no_such_kernel` not found in smoke.ptx");
  const char garbage[] = "\x7f"
                         "ELF garbage that is not a cubin";
  auto bad = Module::load(dev, bytesOf(garbage), "garbage.cubin");
  if (bad)
    fail("invalid image", "garbage loaded as a module");
  else
    pass("invalid image refused", bad.error().message);

  if (auto attrs = add->attributes())
    pass("kernel attributes", "kina_smoke_add uses " + std::to_string(attrs->numRegs) +
                                  " registers");
  else
    fail("kernel attributes", attrs.error().message);

  // Vector add over a size that is not a multiple of the block.
  const std::int64_t n = (1 << 20) + 3;
  HostTensor a(DType::F32, {n}), b(DType::F32, {n}), c(DType::F32, {n}), want(DType::F32, {n});
  fillRandom(a, 1, 0);
  fillRandom(b, 1, 1);
  for (std::int64_t i = 0; i < n; ++i)
    want.set(std::size_t(i), double(float(a.get(std::size_t(i))) + float(b.get(std::size_t(i)))));
  auto da = DeviceBuffer::alloc(dev, a.byteSize(), "a");
  auto db = DeviceBuffer::alloc(dev, b.byteSize(), "b");
  auto dc = DeviceBuffer::alloc(dev, c.byteSize(), "c");
  if (!da || !db || !dc) {
    fail("alloc", "device allocation failed");
    return 1;
  }
  if (Status s = da->copyFromHost(a.span()); !s)
    fail("copy a", s.error().message);
  if (Status s = db->copyFromHost(b.span()); !s)
    fail("copy b", s.error().message);
  if (Status s = dc->fill(0xff); !s)
    fail("fill c", s.error().message);
  KernelArgs addArgs;
  addArgs.pointer(*da).pointer(*db).pointer(*dc).u32(std::uint32_t(n));
  LaunchConfig addCfg{{std::uint32_t((n + 255) / 256), 1, 1}, {256, 1, 1}, 0, {0, 0, 0}};
  if (Status s = launch(*add, addCfg, addArgs); !s)
    fail("launch add", s.error().message);
  else if (Status s2 = dev.synchronize("kina_smoke_add"); !s2)
    fail("sync add", s2.error().message);
  else if (Status s3 = dc->copyToHost(c.span()); !s3)
    fail("copy back c", s3.error().message);
  else {
    auto r = compareTensors(c, want, {0, 0});
    if (r && r->ok)
      pass("vector add result", describeComparison(*r, c));
    else
      fail("vector add result", r ? describeComparison(*r, c) : r.error().message);
  }

  // Dynamic shared memory beyond 48 KiB (needs the opt-in launch() does).
  const std::uint32_t block = 256;
  const std::uint32_t offset = 96 * 1024;
  const std::uint32_t smem = offset + block * 4;
  if (int(smem) <= info.maxSharedPerBlockOptin) {
    const std::int64_t m = block * 64;
    HostTensor in(DType::F32, {m}), out(DType::F32, {m}), expect(DType::F32, {m});
    fillRandom(in, 2, 0);
    for (std::int64_t i = 0; i < m; ++i) {
      std::int64_t base = i / block * block, t = i % block;
      expect.set(std::size_t(i), in.get(std::size_t(base + block - 1 - t)));
    }
    auto din = DeviceBuffer::alloc(dev, in.byteSize(), "in");
    auto dout = DeviceBuffer::alloc(dev, out.byteSize(), "out");
    if (din && dout && din->copyFromHost(in.span())) {
      KernelArgs args;
      args.pointer(*din).pointer(*dout).u32(offset);
      Status s = launch(*reverse, {{std::uint32_t(m / block), 1, 1}, {block, 1, 1}, smem, {0, 0, 0}},
                        args);
      if (s)
        s = dev.synchronize("kina_smoke_reverse");
      if (s)
        s = dout->copyToHost(out.span());
      if (!s)
        fail("dynamic smem " + std::to_string(smem) + " bytes", s.error().message);
      else if (auto r = compareTensors(out, expect, {0, 0}); r && r->ok)
        pass("dynamic smem " + std::to_string(smem) + " bytes (opt-in)");
      else
        fail("dynamic smem result", r ? describeComparison(*r, out) : r.error().message);
    } else {
      fail("dynamic smem setup", "allocation or copy failed");
    }
  } else {
    std::printf("note: device allows %d bytes of shared memory per block; smem test skipped\n",
                info.maxSharedPerBlockOptin);
  }

  // Timing.
  auto timer = EventTimer::create(dev);
  if (!timer) {
    fail("event timer", timer.error().message);
  } else {
    auto stats = timer->measure([&] { return launch(*add, addCfg, addArgs); },
                                {5, 20, true}, "kina_smoke_add");
    if (!stats)
      fail("event timing", stats.error().message);
    else if (stats->medianMs <= 0 || stats->samplesMs.size() != 20)
      fail("event timing", "implausible median " + std::to_string(stats->medianMs));
    else {
      char buf[160];
      std::snprintf(buf, sizeof buf, "median %.4f ms (min %.4f, max %.4f), %.1f GB/s",
                    stats->medianMs, stats->minMs, stats->maxMs,
                    3.0 * double(n) * 4 / (stats->medianMs * 1e6));
      pass("event timing", buf);
    }
  }

  // Launch guard against this device.
  {
    LaunchSpec spec;
    spec.kernel = "gemm_like";
    spec.target = info.archName();
    spec.dims = {"M"};
    spec.grid[0] = DimExpr::parse("M/128").take();
    spec.block = {128, 1, 1};
    spec.requirements.push_back({DimExpr::parse("M").take(), 128, 0, "requires (M mod 128 = 0)", std::nullopt});
    expectError("guard refuses M=1000", checkLaunch(spec, {{"M", 1000}}, info),
                ErrorKind::RequiresFailed, "requires (M mod 128 = 0) fails: M = 1000, 1000 mod 128 = 104");
    if (auto ok = checkLaunch(spec, {{"M", 1024}}, info); ok)
      pass("guard accepts M=1024 for " + spec.target);
    else
      fail("guard accepts M=1024", ok.error().message);
    spec.target = info.ccMajor == 8 ? "sm_90a" : "sm_80";
    expectError("guard refuses " + spec.target + " cubin", checkLaunch(spec, {{"M", 1024}}, info),
                ErrorKind::TargetMismatch, "was compiled for " + spec.target);
  }

  // Error paths of the driver.
  {
    KernelArgs args = addArgs;
    LaunchConfig huge = addCfg;
    huge.block = {2048, 1, 1};
    expectError("oversized block", launch(*add, huge, args), ErrorKind::LaunchFailed,
                "launching kernel `kina_smoke_add` with grid");
    auto oom = DeviceBuffer::alloc(dev, info.totalMemory * 4, "an oversized buffer");
    expectError("out of memory", oom, ErrorKind::OutOfMemory, "CUDA_ERROR_OUT_OF_MEMORY");
  }

  if (withFault) {
    Status s = launch(*fault, {{1, 1, 1}, {1, 1, 1}, 0, {0, 0, 0}}, KernelArgs());
    if (s)
      s = dev.synchronize("kernel `kina_smoke_fault`");
    expectError("faulting kernel", s, ErrorKind::LaunchFailed, "CUDA_ERROR_ILLEGAL_ADDRESS");
  }

  std::printf("%s: %d failure(s)\n", failures ? "FAILED" : "OK", failures);
  return failures ? 1 : 0;
}

int runCubin(int ordinal, const std::string &cubin, const std::string &kernelName,
             const std::string &launchPath, const std::string &dimsText, std::uint64_t seed,
             int iters, const std::string &saveDir) {
  std::optional<LaunchSpec> spec;
  std::optional<LaunchPlan> plan;
  if (!launchPath.empty()) {
    auto s = loadLaunchSpec(launchPath);
    if (!s) {
      fail("launch metadata", s.error().message);
      return 1;
    }
    spec = s.take();
    auto dims = parseDimsArgument(dimsText);
    if (!dims) {
      fail("dims", dims.error().message);
      return 1;
    }
    // Device-independent guard first: refused dims fail even without a GPU.
    auto p = checkDims(*spec, *dims);
    if (!p) {
      fail("launch guard", p.error().message);
      return 1;
    }
  }
  int exitCode = 0;
  auto devOpt = openOrSkip(ordinal, exitCode);
  if (!devOpt)
    return exitCode;
  Device &dev = *devOpt;
  auto mod = Module::loadFile(dev, cubin);
  if (!mod) {
    fail("load " + cubin, mod.error().message);
    return 1;
  }
  auto kernel = mod->kernel(spec ? spec->symbol : kernelName);
  if (!kernel) {
    fail("kernel", kernel.error().message);
    return 1;
  }
  if (auto a = kernel->attributes())
    std::printf("kernel %s: %d registers, %d bytes static smem, %d bytes local, max %d threads\n",
                kernelName.c_str(), a->numRegs, a->staticSharedBytes, a->localBytes,
                a->maxThreadsPerBlock);
  if (!spec) {
    std::printf("OK (no --launch metadata: loaded only)\n");
    return 0;
  }
  auto p = checkLaunch(*spec, *parseDimsArgument(dimsText), dev.info());
  if (!p) {
    fail("launch guard", p.error().message);
    return 1;
  }
  plan = p.take();
  std::vector<HostTensor> hosts;
  std::vector<DeviceBuffer> buffers;
  std::size_t paramIndex = 0;
  for (const ParamPlan &pp : plan->params) {
    ++paramIndex;
    if (pp.kind != ParamKind::Tensor)
      continue;
    HostTensor t(pp.dtype, pp.shape);
    if (pp.role != ParamRole::Output)
      fillRandom(t, seed, paramIndex - 1);
    auto buf = DeviceBuffer::alloc(dev, t.byteSize(), "parameter `" + pp.name + "`");
    if (!buf) {
      fail("alloc", buf.error().message);
      return 1;
    }
    if (Status s = buf->copyFromHost(t.span()); !s) {
      fail("copy", s.error().message);
      return 1;
    }
    hosts.push_back(std::move(t));
    buffers.push_back(buf.take());
  }
  std::vector<const DeviceBuffer *> ptrs;
  for (const DeviceBuffer &b : buffers)
    ptrs.push_back(&b);
  auto args = packArguments(*plan, ptrs);
  if (!args) {
    fail("arguments", args.error().message);
    return 1;
  }
  Status s = launch(*kernel, plan->config, *args);
  if (s)
    s = dev.synchronize("kernel `" + spec->kernel + "`");
  if (!s) {
    fail("launch", s.error().message);
    return 1;
  }
  pass("launch " + spec->kernel + " grid " + plan->config.grid.str() + " block " +
       plan->config.block.str());
  std::size_t t = 0;
  for (const ParamPlan &pp : plan->params) {
    if (pp.kind != ParamKind::Tensor)
      continue;
    if (pp.role != ParamRole::Input) {
      if (Status c = buffers[t].copyToHost(hosts[t].span()); !c) {
        fail("copy back", c.error().message);
        return 1;
      }
      double sum = 0;
      for (std::size_t i = 0; i < hosts[t].numel(); ++i)
        sum += hosts[t].get(i);
      std::printf("output %s %s: sum %.6g\n", pp.name.c_str(), hosts[t].typeString().c_str(),
                  sum);
      if (!saveDir.empty()) {
        std::string path = saveDir + "/" + pp.name + ".npy";
        if (Status w = writeNpy(path, hosts[t]); !w)
          fail("save", w.error().message);
      }
    }
    ++t;
  }
  auto timer = EventTimer::create(dev);
  if (!timer) {
    fail("timer", timer.error().message);
    return 1;
  }
  auto stats = timer->measure([&] { return launch(*kernel, plan->config, *args); },
                              {5, iters, true}, spec->kernel);
  if (!stats) {
    fail("timing", stats.error().message);
    return 1;
  }
  std::printf("median %.4f ms over %d runs", stats->medianMs, iters);
  if (plan->flops)
    std::printf(", %.2f TFLOP/s", *plan->flops / (stats->medianMs * 1e9));
  std::printf(", %.1f GB/s\n", double(plan->tensorBytes()) / (stats->medianMs * 1e6));
  return failures ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"Exercise kina_runtime on a GPU (exit 77 = SKIP: no CUDA device)"};
  bool builtin = false, noFault = false;
  int ordinal = 0, iters = 20;
  std::uint64_t seed = 0;
  std::string cubin, kernel, launchPath, dims, saveDir;
  app.add_flag("--builtin", builtin, "run the self-contained PTX checks");
  app.add_flag("--no-fault", noFault, "skip the faulting-kernel check (for compute-sanitizer)");
  app.add_option("--device", ordinal, "device ordinal");
  app.add_option("cubin", cubin, "cubin file");
  app.add_option("kernel", kernel, "kernel symbol");
  app.add_option("--launch", launchPath, "<kernel>.launch.json");
  app.add_option("--dims", dims, "M=..,N=..,K=..");
  app.add_option("--seed", seed, "random seed for inputs");
  app.add_option("--iters", iters, "timed iterations (>= 1)");
  app.add_option("--save", saveDir, "write outputs as .npy into this directory");
  CLI11_PARSE(app, argc, argv);
  if (builtin)
    return runBuiltin(ordinal, !noFault);
  if (cubin.empty() || kernel.empty()) {
    std::fprintf(stderr, "usage: smoke_runtime --builtin | CUBIN KERNEL [--launch J --dims D]\n");
    return 2;
  }
  if (!launchPath.empty() && dims.empty()) {
    std::fprintf(stderr, "--launch needs --dims\n");
    return 2;
  }
  return runCubin(ordinal, cubin, kernel, launchPath, dims, seed, iters < 1 ? 1 : iters, saveDir);
}
