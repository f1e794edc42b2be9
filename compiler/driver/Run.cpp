//===- Run.cpp - `kina run`: compile, launch, check against the reference -===//
//
// For each kernel of the file (or the one under --kernel):
//   source -> check -> tile IR -> launch guard part 1 (dims against
//   `requires`, from the tile IR's launch metadata: no GPU, no ptxas) ->
//   inputs (seeded random or .npy) -> cubin -> launch guard part 2 (the
//   device against the target) -> launch -> results.
// `--check` runs the tile-IR reference interpreter on the same inputs and
// compares with dtype tolerances; `--bench` times >= 20 launches after
// warm-up and prints the median. `--interpret` runs the interpreter instead
// of the GPU (no device needed); `--save DIR` writes the inputs used and the
// outputs computed as .npy (DIR/<kernel>/), for independent references.
// Without a CUDA device the guard still runs, then
// `SKIP: no CUDA device (<reason>)`, exit 77.
//
//===----------------------------------------------------------------------===//
#include "codegen/Codegen.h"
#include "codegen/LaunchMetadata.h"
#include "diag/Render.h"
#include "driver/BuildTileIr.h"
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

#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <unistd.h>

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

int refused(const runtime::RuntimeError &e, const std::string &kernel) {
  std::cerr << "kina: error[" << diagInfo(e.diagId()).code << "]: kernel `" << kernel
            << "` refused before launch: " << e.message << "\n";
  return InputErrors;
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

std::string roleName(runtime::ParamRole r) {
  switch (r) {
  case runtime::ParamRole::Input:
    return "input";
  case runtime::ParamRole::Output:
    return "output";
  case runtime::ParamRole::InOut:
    return "inout";
  }
  return "input";
}

/// The refusal when the tensors of a launch cannot fit this machine's memory
/// (host copies, plus the interpreter's float64 buffers when it runs): the
/// allocation would otherwise end the process with bad_alloc.
std::optional<runtime::RuntimeError> hostMemoryShortfall(const runtime::LaunchPlan &plan,
                                                         bool interpreter) {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0)
    return std::nullopt;
  double memory = double(pages) * double(pageSize);
  double need = 0;
  for (const runtime::ParamPlan &p : plan.params) {
    if (p.kind != runtime::ParamKind::Tensor)
      continue;
    double elems = double(p.bytes) / double(runtime::dtypeSize(p.dtype));
    need += double(p.bytes) * 2 + (interpreter ? elems * sizeof(double) * 2 : 0);
  }
  if (need <= memory * 0.8)
    return std::nullopt;
  auto gib = [](double b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GiB", b / double(1ull << 30));
    return std::string(buf);
  };
  return runtime::RuntimeError{runtime::ErrorKind::InvalidDims,
                               "these dims need about " + gib(need) +
                                   " of host memory for the tensors" +
                                   (interpreter ? " and the interpreter's buffers" : "") +
                                   "; this machine has " + gib(memory)};
}

/// What every kernel of one `kina run` shares.
struct Session {
  const RunOptions &options;
  const SourceFile &file;
  const sema::Analysis &analysis;
  std::string targetName;
  runtime::Device *device = nullptr;             ///< null: no device (or --interpret)
  std::optional<runtime::RuntimeError> noDevice; ///< why there is none
  bool several = false;                          ///< more than one kernel runs
  nlohmann::json reports = nlohmann::json::array();
};

/// Whether plan parameter i is a result updated with atomics, which starts
/// at zero (ir/Atomics.cpp; the metadata's `"init": "zero"`).
bool zeroInitParam(const ir::Kernel &tileIR, const runtime::LaunchPlan &plan, size_t i) {
  size_t t = 0;
  for (size_t j = 0; j < i && j < plan.params.size(); ++j)
    t += plan.params[j].kind == runtime::ParamKind::Tensor;
  return i < plan.params.size() && plan.params[i].kind == runtime::ParamKind::Tensor &&
         t < tileIR.params.size() && tileIR.params[t].zeroInit;
}

/// Runs the tile-IR interpreter on the tensors of `hosts` (plan order). The
/// outputs start as `hosts` has them, or as zeros with `zeroOutputs`; on
/// success the outputs of `hosts`-shaped tensors are returned in plan order
/// (inputs as given).
std::variant<std::vector<runtime::HostTensor>, std::string>
interpret(const ir::Kernel &tileIR, const runtime::LaunchPlan &plan, const runtime::DimValues &dims,
          const std::vector<runtime::HostTensor> &hosts, const std::vector<double> &scalarValues,
          bool zeroOutputs) {
  std::vector<size_t> tensorPlanIndex;
  for (size_t i = 0; i < plan.params.size(); ++i)
    if (plan.params[i].kind == runtime::ParamKind::Tensor)
      tensorPlanIndex.push_back(i);
  if (tensorPlanIndex.size() != tileIR.params.size())
    return "launch metadata lists " + std::to_string(tensorPlanIndex.size()) +
           " tensors, the tile IR " + std::to_string(tileIR.params.size());
  std::vector<reference::Buffer> refs;
  for (size_t t = 0; t < tensorPlanIndex.size(); ++t) {
    size_t i = tensorPlanIndex[t];
    reference::Buffer b = toReference(hosts[i], tileIR.params[t].dtype);
    if (zeroOutputs && plan.params[i].role == runtime::ParamRole::Output)
      std::fill(b.data.begin(), b.data.end(), 0.0);
    refs.push_back(std::move(b));
  }
  std::vector<int64_t> dimValues;
  for (const ir::Dim &d : tileIR.dims)
    dimValues.push_back(dims.at(d.name));
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  if (auto err = reference::execute(tileIR, dimValues, refs, threads, scalarValues))
    return "the reference interpreter failed: " + *err;
  std::vector<runtime::HostTensor> out = hosts;
  for (size_t t = 0; t < tensorPlanIndex.size(); ++t) {
    size_t i = tensorPlanIndex[t];
    if (plan.params[i].role == runtime::ParamRole::Input)
      continue;
    for (size_t e = 0; e < out[i].numel(); ++e)
      out[i].set(e, refs[t].data[e]);
  }
  return out;
}

/// --save: DIR/<kernel>/<param>.npy for every tensor (inputs as used,
/// outputs as computed), dims.json ({"M": 1024, ...}) and run.json (kernel,
/// target, backend, seed, scalar values, and each tensor's name, dtype,
/// shape, role, file).
std::optional<std::string> saveRun(const Session &s, const std::string &kernel,
                                   const runtime::LaunchPlan &plan,
                                   const std::vector<runtime::HostTensor> &hosts,
                                   const std::vector<double> &scalarValues,
                                   const std::string &backend) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(s.options.save) / kernel;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return "cannot create '" + dir.string() + "': " + ec.message();
  nlohmann::json params = nlohmann::json::array();
  for (size_t i = 0; i < plan.params.size(); ++i) {
    const runtime::ParamPlan &p = plan.params[i];
    if (p.kind != runtime::ParamKind::Tensor)
      continue;
    std::string name = p.name + ".npy";
    if (auto ok = runtime::writeNpy((dir / name).string(), hosts[i]); !ok)
      return ok.error().message;
    params.push_back({{"name", p.name},
                      {"dtype", std::string(runtime::dtypeName(p.dtype))},
                      {"shape", p.shape},
                      {"role", roleName(p.role)},
                      {"file", name}});
  }
  nlohmann::json dims = nlohmann::json::object();
  for (const auto &[name, value] : s.options.dims)
    dims[name] = value;
  // The values asked for (--scalars or seeded), not the plan's copy: a
  // reference computes with what the kernel should have received.
  nlohmann::json scalars = nlohmann::json::object();
  size_t j = 0;
  for (const runtime::ParamPlan &p : plan.params)
    if (p.kind == runtime::ParamKind::Scalar && j < scalarValues.size())
      scalars[p.name] = scalarValues[j++];
  nlohmann::json run = {{"kernel", kernel},   {"file", s.options.file}, {"target", s.targetName},
                        {"backend", backend}, {"seed", s.options.seed}, {"dims", dims},
                        {"scalars", scalars}, {"params", params}};
  for (const auto &[name, text] :
       {std::pair{"dims.json", dims.dump(2)}, std::pair{"run.json", run.dump(2)}}) {
    std::ofstream f(dir / name);
    f << text << "\n";
    if (!f)
      return "cannot write '" + (dir / name).string() + "'";
  }
  return std::nullopt;
}

int runKernel(Session &s, const std::string &kernelName) {
  const RunOptions &options = s.options;
  auto lowered = lowerCheckedKernel(s.analysis, kernelName, s.file);
  if (auto *code = std::get_if<int>(&lowered))
    return *code;
  const ir::Kernel &tileIR = std::get<ir::Kernel>(lowered);

  // Launch guard, part 1: dims against `requires`. The launch metadata of
  // the tile IR is enough (shared memory sizes wait for the cubin), so this
  // needs neither a GPU nor ptxas and runs before SKIP.
  codegen::LaunchMetadata meta = codegen::makeLaunchMetadata(tileIR, s.targetName, "", 0, 0);
  auto spec = runtime::launchSpecFromJson(codegen::toJson(meta));
  if (!spec)
    return runtimeFailure(spec.error(), kernelName);
  runtime::DimValues dims(options.dims.begin(), options.dims.end());
  auto plan = runtime::checkDims(*spec, dims);
  if (!plan)
    return refused(plan.error(), kernelName);
  if (auto tooBig = hostMemoryShortfall(*plan, options.check || options.interpret))
    return refused(*tooBig, kernelName);

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

  // Inputs: seeded random values or .npy files, in parameter order. Outputs
  // start as all-ones bytes (NaN for floats) so unwritten elements show.
  std::vector<runtime::HostTensor> hosts;
  size_t inputIndex = 0;
  for (size_t i = 0; i < plan->params.size(); ++i) {
    const runtime::ParamPlan &p = plan->params[i];
    if (p.kind != runtime::ParamKind::Tensor) {
      hosts.emplace_back();
      continue;
    }
    runtime::HostTensor t(p.dtype, p.shape);
    if (p.role != runtime::ParamRole::Output) {
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
    } else {
      // A result updated with atomics starts at zero; others as NaN.
      std::fill(t.bytes.begin(), t.bytes.end(),
                uint8_t{zeroInitParam(tileIR, *plan, i) ? uint8_t{0} : uint8_t{0xFF}});
    }
    hosts.push_back(std::move(t));
  }
  if (inputIndex < options.inputs.size())
    return fail("--inputs gives " + std::to_string(options.inputs.size()) + " files, kernel `" +
                    kernelName + "` has " + std::to_string(inputIndex) + " inputs",
                UsageError);

  nlohmann::json report = {
      {"kernel", kernelName}, {"target", s.targetName}, {"dims", options.dims}};

  if (options.interpret) {
    auto computed = interpret(tileIR, *plan, dims, hosts, scalarValues, /*zeroOutputs=*/false);
    if (auto *err = std::get_if<std::string>(&computed))
      return fail("kernel `" + kernelName + "`: " + *err, ToolFailure);
    hosts = std::move(std::get<std::vector<runtime::HostTensor>>(computed));
    report["backend"] = "interpreter";
    if (!options.save.empty()) {
      if (auto err = saveRun(s, kernelName, *plan, hosts, scalarValues, "interpreter"))
        return fail(*err, ToolFailure);
      report["saved"] = (std::filesystem::path(options.save) / kernelName).string();
    }
    s.reports.push_back(report);
    if (!options.json) {
      std::cout << "interpreted " << kernelName << " (tile-IR interpreter, " << s.targetName
                << ", no GPU)";
      if (!options.save.empty())
        std::cout << "; saved to " << (std::filesystem::path(options.save) / kernelName).string();
      std::cout << "\n";
    }
    return Success;
  }

  std::vector<std::uint8_t> cubin;
  if (options.backend == "tileir") {
    // Tile IR: the launch plan of the tile IR (block-level kernels have no
    // shared memory or clusters) with the block tileiras chose.
    std::vector<Diagnostic> diags;
    std::string error;
    auto image = tileIrImageForRun(tileIR, s.targetName, options.cubin, diags, error);
    for (const Diagnostic &d : diags)
      std::cerr << renderDiagnostic(d, s.file);
    if (!image)
      return error.empty() ? InputErrors
                           : fail("kernel `" + kernelName + "`: " + error, ToolFailure);
    std::vector<unsigned> want;
    for (const runtime::ParamPlan &p : plan->params)
      want.push_back(p.kind == runtime::ParamKind::Tensor ? 8u
                     : p.kind == runtime::ParamKind::Dim  ? (p.intBits == 64 ? 8u : 4u)
                                                          : 0u);
    if (want != image->paramSizes)
      return fail("kernel `" + kernelName + "`: the Tile IR cubin's " +
                      std::to_string(image->paramSizes.size()) +
                      " parameters do not match its launch plan's " + std::to_string(want.size()) +
                      " (pointers, then the dims as i32)",
                  ToolFailure);
    plan->config.block = {image->block[0], image->block[1], image->block[2]};
    plan->config.dynamicSharedBytes = 0;
    cubin = std::move(image->cubin);
    // Checked before the device: the cubin and its bytecode need none.
    if (!s.device)
      return runtimeFailure(*s.noDevice, kernelName);
  } else {
    if (!s.device)
      return runtimeFailure(*s.noDevice, kernelName);
    auto built = compileTileIRToCubin(tileIR, s.file, s.targetName);
    if (auto *code = std::get_if<int>(&built))
      return *code;
    codegen::CodegenResult &compiled = std::get<codegen::CodegenResult>(built);
    spec = runtime::launchSpecFromJson(codegen::toJson(compiled.launch));
    if (!spec)
      return runtimeFailure(spec.error(), kernelName);
    plan = runtime::checkDims(*spec, dims);
    if (!plan)
      return refused(plan.error(), kernelName);
    // The cubin's plan is new: it gets the same scalar values (without them
    // the launch passed zeros for every scalar parameter).
    for (size_t i = 0, j = 0; i < plan->params.size(); ++i)
      if (plan->params[i].kind == runtime::ParamKind::Scalar && j < scalarValues.size())
        plan->params[i].scalar = scalarValues[j++];
    cubin.assign(reinterpret_cast<const uint8_t *>(compiled.cubin.data()),
                 reinterpret_cast<const uint8_t *>(compiled.cubin.data()) + compiled.cubin.size());
  }

  // Launch guard, part 2: the device.
  runtime::Device &device = *s.device;
  if (auto ok = runtime::checkDevice(*spec, *plan, device.info()); !ok)
    return refused(ok.error(), kernelName);

  auto module = runtime::Module::load(device, std::span<const uint8_t>(cubin), kernelName);
  if (!module)
    return runtimeFailure(module.error(), kernelName);
  auto kernel = module->kernel(spec->symbol);
  if (!kernel)
    return runtimeFailure(kernel.error(), kernelName);
  if (plan->config.dynamicSharedBytes > 0)
    if (auto ok =
            kernel->setMaxDynamicSharedBytes(static_cast<int>(plan->config.dynamicSharedBytes));
        !ok)
      return runtimeFailure(ok.error(), kernelName);

  std::vector<runtime::DeviceBuffer> buffers;
  std::vector<const runtime::DeviceBuffer *> bufferPtrs;
  buffers.reserve(hosts.size());
  for (size_t i = 0; i < plan->params.size(); ++i) {
    const runtime::ParamPlan &p = plan->params[i];
    if (p.kind != runtime::ParamKind::Tensor)
      continue;
    auto buf = runtime::DeviceBuffer::alloc(device, hosts[i].byteSize(), p.name);
    if (!buf)
      return runtimeFailure(buf.error(), kernelName);
    buffers.push_back(buf.take());
    if (p.role != runtime::ParamRole::Output) {
      if (auto ok = buffers.back().copyFromHost(hosts[i].span()); !ok)
        return runtimeFailure(ok.error(), kernelName);
    } else if (auto ok = buffers.back().fill(zeroInitParam(tileIR, *plan, i) ? 0 : 0xFF); !ok) {
      // NaN: unwritten elements show (zero: a result updated with atomics)
      return runtimeFailure(ok.error(), kernelName);
    }
  }
  for (const auto &b : buffers)
    bufferPtrs.push_back(&b);
  runtime::TensorMapCache tensorMaps(device.api()); // Hopper kernels' TMA maps
  auto args = runtime::packArguments(*plan, bufferPtrs, &tensorMaps);
  if (!args)
    return runtimeFailure(args.error(), kernelName);
  std::function<runtime::Status()> launchOnce = [&]() -> runtime::Status {
    return runtime::launch(*kernel, plan->config, *args);
  };
  if (auto ok = launchOnce(); !ok)
    return runtimeFailure(ok.error(), kernelName);
  if (auto ok = device.synchronize(kernelName); !ok)
    return runtimeFailure(ok.error(), kernelName);

  // The inputs as the kernel got them, before copying its results back.
  std::vector<runtime::HostTensor> inputs = hosts;
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
  report["device"] = device.info().name;
  report["backend"] = options.backend == "tileir" ? "gpu-tileir" : "gpu";
  if (!options.save.empty()) {
    if (auto err = saveRun(s, kernelName, *plan, hosts, scalarValues, "gpu"))
      return fail(*err, ToolFailure);
    report["saved"] = (std::filesystem::path(options.save) / kernelName).string();
  }

  int status = Success;
  if (options.check) {
    auto computed = interpret(tileIR, *plan, dims, inputs, scalarValues, /*zeroOutputs=*/true);
    if (auto *err = std::get_if<std::string>(&computed))
      return fail("kernel `" + kernelName + "`: " + *err, ToolFailure);
    const auto &wants = std::get<std::vector<runtime::HostTensor>>(computed);
    for (size_t i = 0; i < plan->params.size(); ++i) {
      const runtime::ParamPlan &p = plan->params[i];
      if (p.kind != runtime::ParamKind::Tensor || p.role == runtime::ParamRole::Input)
        continue;
      auto cmp = runtime::compareTensors(hosts[i], wants[i],
                                         runtime::defaultTolerance(p.dtype, plan->reductionLength));
      if (!cmp)
        return runtimeFailure(cmp.error(), kernelName);
      std::string text = runtime::describeComparison(*cmp, wants[i]);
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
    auto timer = runtime::EventTimer::create(device);
    if (!timer)
      return runtimeFailure(timer.error(), kernelName);
    runtime::EventTimer::Options topts;
    topts.warmup = 10;
    topts.iterations = 50;
    topts.warmupMs = 25; // do_bench's warm-up and timing budget (EventTimer.h)
    topts.targetMs = 100;
    auto stats = timer->measure(launchOnce, topts, kernelName);
    if (!stats)
      return runtimeFailure(stats.error(), kernelName);
    double seconds = stats->medianMs * 1e-3;
    nlohmann::json bench = {
        {"medianMs", stats->medianMs}, {"minMs", stats->minMs}, {"iterations", stats->samplesMs.size()}};
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
                << stats->samplesMs.size() << " runs, " << rate << "\n";
  }
  s.reports.push_back(report);
  if (!options.json && !options.check && !options.bench)
    std::cout << "ran " << kernelName << " on " << device.info().name << " (" << s.targetName
              << ")\n";
  return status;
}

} // namespace

std::variant<std::vector<runtime::HostTensor>, std::string>
interpretOnHost(const ir::Kernel &tileIR, const runtime::LaunchPlan &plan,
                const runtime::DimValues &dims, const std::vector<runtime::HostTensor> &hosts,
                const std::vector<double> &scalarValues, bool zeroOutputs) {
  return interpret(tileIR, plan, dims, hosts, scalarValues, zeroOutputs);
}

std::string kinaTargetForDevice(const runtime::DeviceInfo &info) { return targetForDevice(info); }

bool resultStartsAtZero(const ir::Kernel &tileIR, const runtime::LaunchPlan &plan, size_t i) {
  return zeroInitParam(tileIR, plan, i);
}

int runRunCommand(const RunOptions &options) {
  std::string error;
  auto file = loadSource(options.file, error);
  if (!file)
    return fail(error, UsageError);
  if (options.interpret && (options.check || options.bench))
    return fail(std::string("--interpret runs the tile-IR interpreter instead of the GPU; ") +
                    (options.check ? "--check compares the GPU with that interpreter"
                                   : "--bench times the GPU") +
                    ", so the two do not combine",
                UsageError);
  if (!options.cubin.empty() && options.backend != "tileir")
    return fail("--cubin runs a Tile IR cubin: add --backend=tileir (a PTX-backend kernel is "
                "compiled by `kina run` itself)",
                UsageError);

  // The target: `auto` is the device's. Without a device (or with
  // --interpret) it is the registry's default, so the checker and the
  // launch guard still run before SKIP.
  std::optional<runtime::Device> device;
  std::optional<runtime::RuntimeError> noDevice;
  std::string targetName = options.common.target;
  if (targetName != "auto" && !target::lookupTarget(targetName))
    return fail(target::unknownTargetMessage(targetName), UsageError);
  if (!options.interpret) {
    auto opened = runtime::Device::open(0);
    if (opened)
      device.emplace(opened.take());
    else
      noDevice = opened.error();
  }
  if (targetName == "auto") {
    if (device) {
      targetName = targetForDevice(device->info());
      if (targetName.empty())
        return fail("no Kina target matches the device " + device->info().summary(), ToolFailure);
    } else {
      targetName = std::string(target::defaultTargetName());
    }
  }
  if (noDevice && !noDevice->isNoDevice())
    return runtimeFailure(*noDevice, options.kernel.empty() ? options.file : options.kernel);

  // A kernel with tune parameters runs at --param, else at the best point
  // the tuning cache has for these dims (Tune.cpp), else at its default.
  std::map<std::string, int64_t> tunePoint = options.common.tunePoint;
  if (tunePoint.empty()) {
    std::string note;
    tunePoint = cachedTunePoint(options.file, options.kernel, options.dims, targetName, note);
    if (!note.empty())
      std::cerr << note << "\n";
  }
  auto analysis = checkFileForTarget(*file, targetName, tunePoint, options.backend, options.kernel);
  if (auto *code = std::get_if<int>(&analysis))
    return *code;
  auto kernels = selectKernels(std::get<sema::Analysis>(analysis), options.kernel, options.file);
  if (auto *code = std::get_if<int>(&kernels))
    return *code;
  const auto &names = std::get<std::vector<std::string>>(kernels);
  if (names.size() > 1 && !options.inputs.empty())
    return fail("--inputs names the files of one kernel, and '" + options.file + "' has " +
                    std::to_string(names.size()) + " kernels; choose one with --kernel",
                UsageError);

  Session s{
      options, *file, std::get<sema::Analysis>(analysis), targetName, device ? &*device : nullptr,
      noDevice};
  s.several = names.size() > 1;
  // Every kernel runs; the first failure decides the exit code, else a SKIP.
  int status = Success;
  bool skipped = false;
  for (const std::string &name : names) {
    if (s.several && !options.json)
      std::cout << "== " << name << "\n";
    int code = runKernel(s, name);
    if (code == Skipped)
      skipped = true;
    else if (code != Success && status == Success)
      status = code;
  }
  if (options.json && !s.reports.empty())
    std::cout << (s.several ? s.reports : s.reports[0]).dump(2) << "\n";
  if (status == Success && skipped)
    return Skipped;
  return status;
}

} // namespace kina::driver
