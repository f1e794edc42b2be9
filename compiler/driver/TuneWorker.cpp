//===- TuneWorker.cpp - `kina tune --worker`: one process, many candidates -===//
//
// The measuring child of `kina tune` (Tune.cpp, docs/architecture.md
// "kina tune"). It opens the device once, makes the problem's inputs once
// (seeded, the values `kina run --seed` makes, filled on every core) and
// uploads them once, then answers one JSON request per stdin line with one
// JSON reply per line on its protocol descriptor (the original stdout; its
// stdout proper goes to stderr so a stray print cannot break the protocol):
//
//   {"kernel": K, "point": "BM=128,...", "cubin": PATH or "", "reference":
//    bool, "checkInterpreter": bool, "referenceDir": DIR, "iterations": N}
//   -> {"ok": bool, "status": "ok" | "wrong: ..." | "failed: ...",
//       "medianMs", "minMs", "iterations", "tflops", "fatal": bool,
//       "phases": {"check", "compile", "inputs", "load", "run", "copyBack",
//                  "compare", "timing"}}
//
// A candidate runs once, its outputs are copied back and compared with the
// reference's (bytes first, then the dtype tolerance); then it is timed
// (L2 flushed before each run, 10 warm-up runs, the median of >= 20). The
// request with "reference": true keeps its outputs as the reference (and
// writes them to referenceDir so that a restarted worker reloads them);
// "checkInterpreter" also compares it with the tile-IR interpreter (small
// shapes). A CUDA error leaves the context unusable: the reply says
// "fatal": true and the worker exits; the parent starts another one. A
// fault that kills the process or a hang is the parent's timeout's job.
//
// With --interpret the candidates run on the tile-IR interpreter (no GPU:
// the pipeline's tests); "medianMs" is then the interpreter's wall time.
//
// Test hook: KINA_TUNE_INJECT=crash:POINT, hang:POINT or wrong:POINT makes
// the worker abort, sleep, or change one output element on the request for
// POINT (the tests of the restart, timeout and wrong-output paths on
// machines without a GPU; the parent's handling is the real one).
//
//===----------------------------------------------------------------------===//
#include "codegen/LaunchMetadata.h"
#include "driver/Commands.h"
#include "driver/CompileKernel.h"
#include "driver/SourceLoader.h"
#include "runtime/Compare.h"
#include "runtime/Device.h"
#include "runtime/EventTimer.h"
#include "runtime/Launch.h"
#include "runtime/LaunchGuard.h"
#include "runtime/LaunchSpec.h"
#include "runtime/Npy.h"
#include "runtime/Random.h"
#include "runtime/TensorMap.h"
#include "syntax/TuneParams.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>
#include <unistd.h>

namespace kina::driver {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string shapeText(const std::vector<int64_t> &shape) { return runtime::shapeString(shape); }

/// One tensor of the problem, made once.
struct Tensor {
  runtime::HostTensor host;
  std::optional<runtime::DeviceBuffer> device;
};

class Worker {
public:
  Worker(const TuneOptions &o, int protoFd) : o_(o), protoFd_(protoFd) {}

  int serve() {
    std::string error;
    file_ = loadSource(o_.file, error);
    if (!file_) {
      reply({{"ready", false}, {"status", "failed: " + error}});
      return UsageError;
    }
    auto start = Clock::now();
    target_ = o_.common.target;
    if (!o_.interpret) {
      auto opened = runtime::Device::open(0);
      if (!opened) {
        reply({{"ready", false}, {"status", "failed: " + opened.error().message}});
        return ToolFailure;
      }
      device_.emplace(opened.take());
      if (target_.empty() || target_ == "auto")
        target_ = kinaTargetForDevice(device_->info());
      auto timer = runtime::EventTimer::create(*device_);
      if (!timer) {
        reply({{"ready", false}, {"status", "failed: " + timer.error().message}});
        return ToolFailure;
      }
      timer_.emplace(timer.take());
    }
    for (const auto &[k, v] : o_.shape)
      dims_[k] = v;
    reply({{"ready", true}, {"seconds", since(start)}, {"target", target_}});
    const char *inject = std::getenv("KINA_TUNE_INJECT");
    std::string line;
    while (std::getline(std::cin, line)) {
      if (line.empty())
        continue;
      nlohmann::json req = nlohmann::json::parse(line, nullptr, false);
      if (!req.is_object()) {
        reply({{"ok", false}, {"status", "failed: malformed request"}});
        continue;
      }
      std::string point = req.value("point", "");
      if (inject) {
        std::string spec = inject;
        if (spec == "crash:" + point)
          std::abort(); // the fault path's test: the parent sees SIGABRT
        injectWrong_ = spec == "wrong:" + point;
        if (spec == "hang:" + point)
          for (;;)
            std::this_thread::sleep_for(std::chrono::seconds(60));
      }
      nlohmann::json out = measure(req);
      bool fatal = out.value("fatal", false);
      reply(out);
      if (fatal)
        return ToolFailure;
    }
    return Success;
  }

private:
  void reply(const nlohmann::json &j) {
    std::string text = j.dump() + "\n";
    const char *p = text.data();
    size_t left = text.size();
    while (left) {
      ssize_t n = ::write(protoFd_, p, left);
      if (n <= 0)
        std::exit(ToolFailure); // the parent is gone
      p += n;
      left -= static_cast<size_t>(n);
    }
  }

  static nlohmann::json failed(const std::string &why, bool fatal = false) {
    return {{"ok", false}, {"status", "failed: " + why}, {"fatal", fatal}};
  }

  /// The problem's tensor `i` of `plan` (inputs seeded once, outputs
  /// allocated once); keyed by name, dtype and shape.
  Tensor *tensorFor(const runtime::ParamPlan &p, size_t i, double &seconds) {
    std::string key = p.name + ":" + std::string(runtime::dtypeName(p.dtype)) + shapeText(p.shape) +
                      ":" + std::to_string(static_cast<int>(p.role));
    auto it = tensors_.find(key);
    if (it != tensors_.end())
      return &it->second;
    auto start = Clock::now();
    Tensor t;
    t.host = runtime::HostTensor(p.dtype, p.shape);
    if (p.role != runtime::ParamRole::Output)
      runtime::fillRandomParallel(t.host, kSeed, i, std::thread::hardware_concurrency());
    if (device_) {
      auto buf = runtime::DeviceBuffer::alloc(*device_, t.host.byteSize(), p.name);
      if (!buf)
        return nullptr;
      t.device.emplace(buf.take());
      if (p.role != runtime::ParamRole::Output && !t.device->copyFromHost(t.host.span()))
        return nullptr;
    }
    seconds += since(start);
    return &tensors_.emplace(key, std::move(t)).first->second;
  }

  /// Whether every element of `got` is within `tol` of `want` (same shape
  /// and dtype), on every core: the tolerance check of compareTensors over
  /// slices, so that an LLM-sized output (30M+ elements) costs tens of ms.
  static bool withinTolerance(const runtime::HostTensor &got, const runtime::HostTensor &want,
                              runtime::Tolerance tol) {
    size_t n = got.numel(), elem = runtime::dtypeSize(got.dtype);
    unsigned threads = static_cast<unsigned>(
        std::clamp<size_t>(n / (1u << 20), 1, std::max(1u, std::thread::hardware_concurrency())));
    size_t chunk = (n + threads - 1) / threads;
    std::vector<char> pass(threads, 0);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        size_t b = std::min(n, t * chunk), e = std::min(n, b + chunk);
        runtime::HostTensor g(got.dtype, {static_cast<int64_t>(e - b)});
        runtime::HostTensor w(got.dtype, {static_cast<int64_t>(e - b)});
        std::memcpy(g.bytes.data(), got.bytes.data() + b * elem, (e - b) * elem);
        std::memcpy(w.bytes.data(), want.bytes.data() + b * elem, (e - b) * elem);
        auto cmp = runtime::compareTensors(g, w, tol);
        pass[t] = cmp && cmp->ok;
      });
    for (std::thread &t : pool)
      t.join();
    return std::all_of(pass.begin(), pass.end(), [](char c) { return c != 0; });
  }

  /// Compares `got` with the reference output `name`; empty when equal
  /// within the dtype's tolerance.
  std::optional<std::string> compare(const std::string &name, const runtime::HostTensor &got,
                                     int64_t reductionLength, const std::string &refDir) {
    auto it = reference_.find(name);
    if (it == reference_.end() && !refDir.empty()) {
      auto loaded = runtime::readNpy((fs::path(refDir) / (name + ".npy")).string());
      if (loaded)
        it = reference_.emplace(name, loaded.take()).first;
    }
    if (it == reference_.end())
      return "no reference output for `" + name + "`";
    const runtime::HostTensor &want = it->second;
    if (want.shape == got.shape && want.dtype == got.dtype && want.bytes == got.bytes)
      return std::nullopt; // identical bits: the common case
    runtime::Tolerance tol = runtime::defaultTolerance(got.dtype, reductionLength);
    if (want.shape == got.shape && want.dtype == got.dtype && withinTolerance(got, want, tol))
      return std::nullopt;
    // A mismatch (or a shape or dtype change): the full report says where.
    auto cmp = runtime::compareTensors(got, want, tol);
    if (!cmp)
      return cmp.error().message;
    if (!cmp->ok)
      return runtime::describeComparison(*cmp, want);
    return std::nullopt;
  }

  nlohmann::json measure(const nlohmann::json &req) {
    nlohmann::json phases = nlohmann::json::object();
    std::string kernel = req.value("kernel", "");
    std::string pointText = req.value("point", "");
    bool isReference = req.value("reference", false);
    bool checkInterp = req.value("checkInterpreter", false);
    std::string refDir = req.value("referenceDir", "");
    std::string cubinPath = req.value("cubin", "");
    int iterations = std::max(20, req.value("iterations", 50));
    bool compareOutputs = req.value("compare", true);

    // Check and lower at the point (the tile IR names the tensors' roles
    // and drives the interpreter).
    auto start = Clock::now();
    syntax::TunePoint point;
    std::string error;
    std::vector<std::string> spec = {pointText};
    if (!pointText.empty() && !syntax::parsePointSpec(spec, point, error))
      return failed("bad point '" + pointText + "': " + error);
    auto analysis = checkFileForTarget(*file_, target_, point, "ptx", kernel);
    if (std::holds_alternative<int>(analysis))
      return failed("the checker rejected the point (see the worker's log)");
    auto lowered = lowerCheckedKernel(std::get<sema::Analysis>(analysis), kernel, *file_);
    if (std::holds_alternative<int>(lowered))
      return failed("lowering failed");
    const ir::Kernel &tileIR = std::get<ir::Kernel>(lowered);
    phases["check"] = since(start);

    // The launch spec: the precompiled cubin's, else compiled here.
    start = Clock::now();
    std::string cubin;
    std::optional<runtime::LaunchSpec> launchSpec;
    if (o_.interpret) {
      auto spec = runtime::launchSpecFromJson(
          codegen::toJson(codegen::makeLaunchMetadata(tileIR, target_, "", 0, 0)));
      if (!spec)
        return failed(spec.error().message);
      launchSpec = spec.take();
      if (!cubinPath.empty()) {
        // Compiled anyway (--compile-jobs with --interpret, the compile
        // phase's test): its launch metadata must read and accept the dims.
        fs::path meta = fs::path(cubinPath).replace_extension(".launch.json");
        auto built = runtime::loadLaunchSpec(meta.string());
        if (!fs::exists(cubinPath) || !built)
          return failed("cannot read " + cubinPath + " or " + meta.string());
        if (auto plan = runtime::checkDims(*built, dims_); !plan)
          return failed("the compiled point refuses the dims: " + plan.error().message);
      }
    } else if (!cubinPath.empty()) {
      std::ifstream in(cubinPath, std::ios::binary);
      cubin.assign(std::istreambuf_iterator<char>(in), {});
      fs::path meta = fs::path(cubinPath).replace_extension(".launch.json");
      auto spec = runtime::loadLaunchSpec(meta.string());
      if (cubin.empty() || !spec)
        return failed("cannot read " + cubinPath + " or " + meta.string());
      launchSpec = spec.take();
    } else {
      auto built = compileTileIRToCubin(tileIR, *file_, target_);
      if (std::holds_alternative<int>(built))
        return failed("code generation failed (see the worker's log)");
      const codegen::CodegenResult &compiled = std::get<codegen::CodegenResult>(built);
      cubin = compiled.cubin;
      auto spec = runtime::launchSpecFromJson(codegen::toJson(compiled.launch));
      if (!spec)
        return failed(spec.error().message);
      launchSpec = spec.take();
    }
    phases["compile"] = since(start);
    auto plan = runtime::checkDims(*launchSpec, dims_);
    if (!plan)
      return failed("refused before launch: " + plan.error().message);
    std::vector<double> scalarValues;
    for (size_t i = 0; i < plan->params.size(); ++i) {
      runtime::ParamPlan &p = plan->params[i];
      if (p.kind != runtime::ParamKind::Scalar)
        continue;
      p.scalar = runtime::defaultScalarValue(p.scalarType, kSeed, i);
      scalarValues.push_back(p.scalar);
    }

    // The problem's tensors (made on the first request only).
    double inputSeconds = 0;
    std::vector<Tensor *> tensors(plan->params.size(), nullptr);
    for (size_t i = 0; i < plan->params.size(); ++i)
      if (plan->params[i].kind == runtime::ParamKind::Tensor) {
        tensors[i] = tensorFor(plan->params[i], i, inputSeconds);
        if (!tensors[i])
          return failed("cannot allocate or upload `" + plan->params[i].name + "`", true);
      }
    phases["inputs"] = inputSeconds;

    std::vector<runtime::HostTensor> outputs(plan->params.size());
    double seconds = 0;
    nlohmann::json out = {{"ok", false}};
    if (o_.interpret) {
      std::vector<runtime::HostTensor> hosts(plan->params.size());
      for (size_t i = 0; i < plan->params.size(); ++i)
        if (tensors[i]) {
          hosts[i] = tensors[i]->host;
          if (plan->params[i].role == runtime::ParamRole::Output)
            std::fill(hosts[i].bytes.begin(), hosts[i].bytes.end(),
                      uint8_t{resultStartsAtZero(tileIR, *plan, i) ? uint8_t{0} : uint8_t{0xFF}});
        }
      start = Clock::now();
      auto computed = interpretOnHost(tileIR, *plan, dims_, hosts, scalarValues, false);
      seconds = since(start);
      phases["run"] = seconds;
      if (auto *err = std::get_if<std::string>(&computed))
        return failed(*err);
      outputs = std::move(std::get<std::vector<runtime::HostTensor>>(computed));
      out["medianMs"] = seconds * 1e3; // wall time: pipeline tests only
      out["iterations"] = 1;
    } else {
      runtime::Device &device = *device_;
      if (auto ok = runtime::checkDevice(*launchSpec, *plan, device.info()); !ok)
        return failed("refused before launch: " + ok.error().message);
      start = Clock::now();
      auto module = runtime::Module::load(
          device,
          std::span<const uint8_t>(reinterpret_cast<const uint8_t *>(cubin.data()), cubin.size()),
          kernel);
      if (!module)
        return failed(module.error().message, true);
      auto fn = module->kernel(launchSpec->symbol);
      if (!fn)
        return failed(fn.error().message, true);
      if (plan->config.dynamicSharedBytes > 0)
        if (auto ok =
                fn->setMaxDynamicSharedBytes(static_cast<int>(plan->config.dynamicSharedBytes));
            !ok)
          return failed(ok.error().message, true);
      std::vector<const runtime::DeviceBuffer *> bufferPtrs;
      for (size_t i = 0; i < plan->params.size(); ++i)
        if (tensors[i]) {
          bufferPtrs.push_back(&*tensors[i]->device);
          if (plan->params[i].role == runtime::ParamRole::Output)
            if (auto ok = tensors[i]->device->fill(resultStartsAtZero(tileIR, *plan, i) ? 0 : 0xFF);
                !ok)
              return failed(ok.error().message, true);
        }
      runtime::TensorMapCache tensorMaps(device.api());
      auto args = runtime::packArguments(*plan, bufferPtrs, &tensorMaps);
      if (!args)
        return failed(args.error().message);
      phases["load"] = since(start);
      std::function<runtime::Status()> launchOnce = [&]() -> runtime::Status {
        return runtime::launch(*fn, plan->config, *args);
      };
      start = Clock::now();
      if (auto ok = launchOnce(); !ok)
        return failed(ok.error().message, true);
      if (auto ok = device.synchronize(kernel); !ok)
        return failed(ok.error().message, true);
      phases["run"] = since(start);
      start = Clock::now();
      for (size_t i = 0; i < plan->params.size() && (compareOutputs || isReference); ++i)
        if (tensors[i] && plan->params[i].role != runtime::ParamRole::Input) {
          outputs[i] = runtime::HostTensor(plan->params[i].dtype, plan->params[i].shape);
          if (auto ok = tensors[i]->device->copyToHost(outputs[i].span()); !ok)
            return failed(ok.error().message, true);
        }
      phases["copyBack"] = since(start);
      // Timing: L2 flushed before each run, warm-up, the median.
      start = Clock::now();
      runtime::EventTimer::Options topts;
      topts.warmup = 10;
      topts.iterations = iterations;
      auto stats = timer_->measure(launchOnce, topts, kernel);
      if (!stats)
        return failed(stats.error().message, true);
      phases["timing"] = since(start);
      out["medianMs"] = stats->medianMs;
      out["minMs"] = stats->minMs;
      out["iterations"] = topts.iterations;
      if (plan->flops && stats->medianMs > 0)
        out["tflops"] = *plan->flops / (stats->medianMs * 1e-3) * 1e-12;
    }

    // The outputs against the reference.
    start = Clock::now();
    std::string wrong;
    std::optional<std::vector<runtime::HostTensor>> interpreted; // once, for every output
    for (size_t i = 0; i < plan->params.size() && wrong.empty(); ++i) {
      const runtime::ParamPlan &p = plan->params[i];
      if (!tensors[i] || p.role == runtime::ParamRole::Input)
        continue;
      if (isReference) {
        if (checkInterp && !o_.interpret) {
          // The reference itself against the interpreter (small shapes).
          if (!interpreted) {
            std::vector<runtime::HostTensor> hosts(plan->params.size());
            for (size_t j = 0; j < plan->params.size(); ++j)
              if (tensors[j])
                hosts[j] = tensors[j]->host;
            auto computed = interpretOnHost(tileIR, *plan, dims_, hosts, scalarValues, true);
            if (auto *err = std::get_if<std::string>(&computed))
              return failed(*err);
            interpreted = std::move(std::get<std::vector<runtime::HostTensor>>(computed));
          }
          const runtime::HostTensor &want = (*interpreted)[i];
          auto cmp = runtime::compareTensors(
              outputs[i], want, runtime::defaultTolerance(p.dtype, plan->reductionLength));
          if (!cmp)
            return failed(cmp.error().message);
          if (!cmp->ok)
            wrong = "against the interpreter: " + runtime::describeComparison(*cmp, want);
        }
        if (wrong.empty()) {
          if (!refDir.empty()) {
            std::error_code ec;
            fs::create_directories(refDir, ec);
            if (auto ok =
                    runtime::writeNpy((fs::path(refDir) / (p.name + ".npy")).string(), outputs[i]);
                !ok)
              return failed(ok.error().message);
          }
          reference_[p.name] = std::move(outputs[i]);
        }
      } else if (!compareOutputs) {
        continue; // re-timing: this point's outputs were compared already
      } else {
        if (injectWrong_ && outputs[i].numel() > 0)
          outputs[i].set(0, outputs[i].get(0) + 1000);
        if (auto why = compare(p.name, outputs[i], plan->reductionLength, refDir))
          wrong = *why;
      }
    }
    phases["compare"] = since(start);
    out["phases"] = phases;
    if (!wrong.empty()) {
      out["status"] = "wrong: " + wrong;
      return out;
    }
    out["ok"] = true;
    out["status"] = "ok";
    return out;
  }

  static constexpr uint64_t kSeed = 1;
  const TuneOptions &o_;
  int protoFd_;
  std::optional<SourceFile> file_;
  std::string target_;
  std::optional<runtime::Device> device_;
  std::optional<runtime::EventTimer> timer_;
  runtime::DimValues dims_;
  std::map<std::string, Tensor> tensors_;
  std::map<std::string, runtime::HostTensor> reference_;
  bool injectWrong_ = false; ///< KINA_TUNE_INJECT=wrong:POINT: one element changed
};

} // namespace

int runTuneWorker(const TuneOptions &o) {
  // The protocol keeps the original stdout; everything else printed to
  // stdout lands in stderr (the parent's log of this worker).
  std::cout.flush();
  int proto = ::dup(1);
  if (proto < 0 || ::dup2(2, 1) < 0) {
    std::cerr << "kina: error: the tune worker cannot set up its protocol descriptor\n";
    return ToolFailure;
  }
  Worker w(o, proto);
  return w.serve();
}

} // namespace kina::driver
