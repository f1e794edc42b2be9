//===- Run.cpp - `kina run`: compile, launch, check against the reference -===//
//
// source -> check -> tile IR -> cubin + launch metadata -> launch guard
// (dims against `requires`, device against the target) -> inputs (seeded
// random or .npy) -> launch -> results. `--check` runs the tile-IR reference
// interpreter on the same inputs and compares with dtype tolerances;
// `--bench` times >= 20 launches after warm-up and prints the median.
// Without a CUDA device: `SKIP: no CUDA device (<reason>)`, exit 77.
//
//===----------------------------------------------------------------------===//
#include "codegen/Codegen.h"
#include "diag/Render.h"
#include "driver/Commands.h"
#include "driver/CompileKernel.h"
#include "driver/SourceLoader.h"
#include "reference/Interpreter.h"
#include "runtime/Compare.h"
#include "runtime/Device.h"
#include "runtime/EventTimer.h"
#include "runtime/Launch.h"
#include "runtime/LaunchGuard.h"
#include "runtime/LaunchSpec.h"
#include "runtime/Npy.h"
#include "runtime/Random.h"
#include "sema/Frontend.h"
#include "target/Registry.h"

#include <iostream>
#include <nlohmann/json.hpp>
#include <functional>
#include <set>
#include <thread>

namespace kina::driver {

namespace {

int fail(const std::string &message, int code = InputErrors) {
  std::cerr << "kina: error: " << message << "\n";
  return code;
}

int runtimeFailure(const runtime::RuntimeError &e, const std::string &kernel) {
  if (e.isNoDevice()) {
    std::cout << "SKIP: no CUDA device (" << e.message << ")\n";
    return Skipped;
  }
  std::cerr << "kina: error[" << diagInfo(e.diagId()).code << "]: kernel `" << kernel
            << "`: " << e.message << "\n";
  return ToolFailure;
}

/// The Kina target for a device: its architecture-specific variant when the
/// registry has one (sm_90a on an H100/H200), else the plain one.
std::string targetForDevice(const runtime::DeviceInfo &info) {
  std::string best;
  for (target::TargetId id : target::targetsForDevice(info.ccMajor, info.ccMinor)) {
    const target::TargetInfo &t = target::targetInfo(id);
    if (best.empty() || t.archSpecific)
      best = std::string(t.name);
  }
  return best;
}

reference::Buffer toReference(const runtime::HostTensor &t, ir::DType dtype) {
  reference::Buffer b;
  b.shape = t.shape;
  b.dtype = dtype;
  b.data.resize(t.numel());
  for (size_t i = 0; i < b.data.size(); ++i)
    b.data[i] = t.get(i);
  return b;
}

} // namespace

int runRunCommand(const RunOptions &options) {
  std::string error;
  auto file = loadSource(options.file, error);
  if (!file)
    return fail(error, UsageError);

  // Resolve `--target auto` from the device (which also detects "no GPU").
  std::optional<runtime::Device> device;
  std::string targetName = options.common.target;
  if (targetName == "auto") {
    auto opened = runtime::Device::open(0);
    if (!opened) {
      // Without a device there is no target to pick, but errors in the file
      // still come first: check it against the default target.
      sema::FrontendOptions fe;
      sema::Analysis analysis = sema::analyze(*file, fe);
      bool errors = false;
      for (const Diagnostic &d : analysis.diagnostics) {
        errors |= d.severity() == Severity::Error;
        std::cerr << renderDiagnostic(d, *file);
      }
      if (errors)
        return InputErrors;
      return runtimeFailure(opened.error(), options.kernel);
    }
    device.emplace(opened.take());
    targetName = targetForDevice(device->info());
    if (targetName.empty())
      return fail("no Kina target matches the device " + device->info().summary(), ToolFailure);
  } else if (!target::lookupTarget(targetName)) {
    return fail(target::unknownTargetMessage(targetName), UsageError);
  }

  auto built = compileKernelToCubin(*file, targetName, options.kernel);
  if (auto *code = std::get_if<int>(&built))
    return *code;
  CompiledKernel &ck = std::get<CompiledKernel>(built);
  const std::string &kernelName = ck.name;
  const ir::Kernel *tileIR = &ck.tileIR;
  const codegen::CodegenResult *compiled = &ck.result;

  auto spec = runtime::launchSpecFromJson(codegen::toJson(compiled->launch));
  if (!spec)
    return runtimeFailure(spec.error(), kernelName);

  // Launch guard, part 1: dims against `requires` (needs no GPU).
  runtime::DimValues dims(options.dims.begin(), options.dims.end());
  auto plan = runtime::checkDims(*spec, dims);
  if (!plan) {
    std::cerr << "kina: error[" << diagInfo(plan.error().diagId()).code << "]: kernel `"
              << kernelName << "` refused before launch: " << plan.error().message << "\n";
    return InputErrors;
  }

  // Scalar parameters: --scalars, else a seeded value (LaunchGuard.h).
  std::vector<double> scalarValues; // in tile-IR order (= metadata order)
  {
    auto given = runtime::parseScalarsArgument(options.scalars);
    if (!given)
      return fail(given.error().message, UsageError);
    std::set<std::string> used;
    for (size_t i = 0; i < plan->params.size(); ++i) {
      runtime::ParamPlan &p = plan->params[i];
      if (p.kind != runtime::ParamKind::Scalar)
        continue;
      auto it = given->find(p.name);
      p.scalar = it != given->end() ? it->second
                                    : runtime::defaultScalarValue(p.scalarType, options.seed, i);
      used.insert(p.name);
      scalarValues.push_back(p.scalar);
    }
    for (const auto &[name, value] : *given)
      if (!used.count(name))
        return fail("--scalars names `" + name + "`, which is not a scalar parameter of `" +
                        kernelName + "`",
                    UsageError);
  }

  // Inputs: seeded random values or .npy files, in parameter order.
  std::vector<runtime::HostTensor> hosts;
  size_t inputIndex = 0;
  for (size_t i = 0; i < plan->params.size(); ++i) {
    const runtime::ParamPlan &p = plan->params[i];
    if (p.kind != runtime::ParamKind::Tensor) {
      hosts.emplace_back();
      continue;
    }
    runtime::HostTensor t(p.dtype, p.shape);
    if (p.role == runtime::ParamRole::Input) {
      bool fromFile = inputIndex < options.inputs.size() && options.inputs[inputIndex] != "random";
      if (fromFile) {
        auto loaded = runtime::readNpyFor(options.inputs[inputIndex], p.name, p.dtype, p.shape);
        if (!loaded)
          return runtimeFailure(loaded.error(), kernelName);
        t = loaded.take();
      } else {
        runtime::fillRandom(t, options.seed, i);
      }
      ++inputIndex;
    }
    hosts.push_back(std::move(t));
  }
  if (inputIndex < options.inputs.size())
    return fail("--inputs gives " + std::to_string(options.inputs.size()) +
                    " files, the kernel has " + std::to_string(inputIndex) + " inputs",
                UsageError);

  // Launch guard, part 2: the device.
  if (!device) {
    auto opened = runtime::Device::open(0);
    if (!opened)
      return runtimeFailure(opened.error(), kernelName);
    device.emplace(opened.take());
  }
  if (auto ok = runtime::checkDevice(*spec, *plan, device->info()); !ok) {
    std::cerr << "kina: error[" << diagInfo(ok.error().diagId()).code << "]: kernel `"
              << kernelName << "` refused before launch: " << ok.error().message << "\n";
    return InputErrors;
  }

  auto module = runtime::Module::load(
      *device,
      std::span<const uint8_t>(reinterpret_cast<const uint8_t *>(compiled->cubin.data()),
                               compiled->cubin.size()),
      kernelName);
  if (!module)
    return runtimeFailure(module.error(), kernelName);
  auto kernel = module->kernel(spec->symbol);
  if (!kernel)
    return runtimeFailure(kernel.error(), kernelName);
  if (plan->config.dynamicSharedBytes > 0)
    if (auto ok = kernel->setMaxDynamicSharedBytes(static_cast<int>(plan->config.dynamicSharedBytes));
        !ok)
      return runtimeFailure(ok.error(), kernelName);

  std::vector<runtime::DeviceBuffer> buffers;
  std::vector<const runtime::DeviceBuffer *> bufferPtrs;
  buffers.reserve(hosts.size());
  for (size_t i = 0; i < plan->params.size(); ++i) {
    const runtime::ParamPlan &p = plan->params[i];
    if (p.kind != runtime::ParamKind::Tensor)
      continue;
    auto buf = runtime::DeviceBuffer::alloc(*device, hosts[i].byteSize(), p.name);
    if (!buf)
      return runtimeFailure(buf.error(), kernelName);
    buffers.push_back(buf.take());
    if (p.role == runtime::ParamRole::Input) {
      if (auto ok = buffers.back().copyFromHost(hosts[i].span()); !ok)
        return runtimeFailure(ok.error(), kernelName);
    } else if (auto ok = buffers.back().fill(0xFF); !ok) { // NaN: unwritten elements show
      return runtimeFailure(ok.error(), kernelName);
    }
  }
  for (const auto &b : buffers)
    bufferPtrs.push_back(&b);
  auto args = runtime::packArguments(*plan, bufferPtrs);
  if (!args)
    return runtimeFailure(args.error(), kernelName);
  std::function<runtime::Status()> launchOnce = [&]() -> runtime::Status {
    return runtime::launch(*kernel, plan->config, *args);
  };
  if (auto ok = launchOnce(); !ok)
    return runtimeFailure(ok.error(), kernelName);
  if (auto ok = device->synchronize(kernelName); !ok)
    return runtimeFailure(ok.error(), kernelName);

  nlohmann::json report = {{"kernel", kernelName},
                           {"target", targetName},
                           {"device", device->info().name},
                           {"dims", options.dims}};
  int status = Success;
  size_t bufferIndex = 0;
  for (size_t i = 0; i < plan->params.size(); ++i) {
    const runtime::ParamPlan &p = plan->params[i];
    if (p.kind != runtime::ParamKind::Tensor)
      continue;
    if (p.role != runtime::ParamRole::Input)
      if (auto ok = buffers[bufferIndex].copyToHost(hosts[i].span()); !ok)
        return runtimeFailure(ok.error(), kernelName);
    ++bufferIndex;
  }

  if (options.check) {
    // The reference sees the tensors only, in tile-IR parameter order.
    std::vector<size_t> tensorPlanIndex;
    for (size_t i = 0; i < plan->params.size(); ++i)
      if (plan->params[i].kind == runtime::ParamKind::Tensor)
        tensorPlanIndex.push_back(i);
    if (tensorPlanIndex.size() != tileIR->params.size())
      return fail("launch metadata lists " + std::to_string(tensorPlanIndex.size()) +
                      " tensors, the tile IR " + std::to_string(tileIR->params.size()),
                  ToolFailure);
    std::vector<reference::Buffer> refs;
    for (size_t t = 0; t < tensorPlanIndex.size(); ++t) {
      size_t i = tensorPlanIndex[t];
      reference::Buffer b = toReference(hosts[i], tileIR->params[t].dtype);
      if (plan->params[i].role != runtime::ParamRole::Input)
        std::fill(b.data.begin(), b.data.end(), 0.0);
      refs.push_back(std::move(b));
    }
    std::vector<int64_t> dimValues;
    for (const ir::Dim &d : tileIR->dims)
      dimValues.push_back(dims.at(d.name));
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    if (auto err = reference::execute(*tileIR, dimValues, refs, threads, scalarValues))
      return fail("the reference interpreter failed: " + *err, ToolFailure);
    for (size_t t = 0; t < tensorPlanIndex.size(); ++t) {
      size_t i = tensorPlanIndex[t];
      const runtime::ParamPlan &p = plan->params[i];
      if (p.role == runtime::ParamRole::Input)
        continue;
      runtime::HostTensor want(p.dtype, p.shape);
      for (size_t e = 0; e < want.numel(); ++e)
        want.set(e, refs[t].data[e]);
      auto cmp = runtime::compareTensors(
          hosts[i], want, runtime::defaultTolerance(p.dtype, plan->reductionLength));
      if (!cmp)
        return runtimeFailure(cmp.error(), kernelName);
      std::string text = runtime::describeComparison(*cmp, want);
      report["check"] = {{"ok", cmp->ok},
                         {"maxAbsError", cmp->maxAbsError},
                         {"maxRelError", cmp->maxRelError},
                         {"mismatches", cmp->mismatches},
                         {"elements", cmp->count},
                         {"summary", text}};
      if (!options.json)
        std::cout << (cmp->ok ? "check: PASS " : "check: FAIL ") << p.name << ": " << text << "\n";
      if (!cmp->ok)
        status = InputErrors;
    }
  }

  if (options.bench) {
    auto timer = runtime::EventTimer::create(*device);
    if (!timer)
      return runtimeFailure(timer.error(), kernelName);
    runtime::EventTimer::Options topts;
    topts.warmup = 10;
    topts.iterations = 50;
    auto stats = timer->measure(launchOnce, topts, kernelName);
    if (!stats)
      return runtimeFailure(stats.error(), kernelName);
    double seconds = stats->medianMs * 1e-3;
    nlohmann::json bench = {{"medianMs", stats->medianMs},
                            {"minMs", stats->minMs},
                            {"iterations", topts.iterations}};
    std::string rate;
    if (plan->flops) {
      double tflops = *plan->flops / seconds * 1e-12;
      bench["tflops"] = tflops;
      rate = std::to_string(tflops) + " TFLOP/s";
    }
    double gbps = static_cast<double>(plan->tensorBytes()) / seconds * 1e-9;
    bench["gbps"] = gbps;
    if (rate.empty())
      rate = std::to_string(gbps) + " GB/s";
    report["bench"] = bench;
    if (!options.json)
      std::cout << "bench: " << kernelName << " median " << stats->medianMs << " ms over "
                << topts.iterations << " runs, " << rate << "\n";
  }
  if (options.json)
    std::cout << report.dump(2) << "\n";
  else if (!options.check && !options.bench)
    std::cout << "ran " << kernelName << " on " << device->info().name << " (" << targetName
              << ")\n";
  return status;
}

} // namespace kina::driver
