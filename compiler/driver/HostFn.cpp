//===- HostFn.cpp - Host functions: algebraic IR, pass A, execution -------===//
//
// `kina build FILE --emit=algebraic-ir [--fn NAME]` prints the algebraic IR;
// `kina report FILE --fn NAME --dims ...` prints pass A's plan (each step's
// kernel, what was fused, every candidate and why, the times that decided);
// `kina run FILE --fn NAME --dims ... [--inputs ...] [--output OUT.npy]`
// runs it: copies through pinned staging, Kina kernels through the launch
// guard, cuBLASLt through dlopen, host-placed operations on the CPU. With
// --interpret the Kina kernels run on the tile-IR interpreter and the
// cuBLASLt steps on the CPU reference (algebraic/Evaluate.h), no GPU needed.
//
//===----------------------------------------------------------------------===//
#include "algebraic/Build.h"
#include "algebraic/Evaluate.h"
#include "algebraic/PassA.h"
#include "codegen/Codegen.h"
#include "codegen/LaunchMetadata.h"
#include "diag/Render.h"
#include "driver/Commands.h"
#include "driver/CompileKernel.h"
#include "driver/SourceLoader.h"
#include "lower/TileIRFromAst.h"
#include "reference/Interpreter.h"
#include "runtime/CublasLt.h"
#include "runtime/CudaDriver.h"
#include "runtime/Device.h"
#include "runtime/EventTimer.h"
#include "runtime/HostStaging.h"
#include "runtime/HostTensor.h"
#include "runtime/Launch.h"
#include "runtime/LaunchGuard.h"
#include "runtime/LaunchSpec.h"
#include "runtime/Nccl.h"
#include "runtime/Npy.h"
#include "runtime/Random.h"
#include "runtime/TensorMap.h"
#include "sema/Frontend.h"
#include "target/Registry.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>
#include <unistd.h>

namespace kina::driver {

namespace {

namespace alg = kina::algebraic;
namespace fs = std::filesystem;

int fail(const std::string &message, int code = InputErrors) {
  std::cerr << "kina: error: " << message << "\n";
  return code;
}

int coded(DiagId id, const std::string &message, int code) {
  std::cerr << "kina: error[" << diagInfo(id).code << "]: " << message << "\n";
  return code;
}

/// Where the stdlib is: $KINA_STDLIB, else next to the binary's tree
/// (build/compiler/driver/kina -> stdlib/), else ./stdlib.
std::string stdlibDir() {
  if (const char *p = std::getenv("KINA_STDLIB"); p && *p)
    return p;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (fs::path p = exe.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path())
      if (fs::exists(p / "stdlib" / "gemm_bf16_hopper.kina", ec))
        return (p / "stdlib").string();
  return "stdlib";
}

/// A checked source and its lowered kernels, kept for the whole command.
struct LoadedSource {
  std::unique_ptr<SourceFile> file;
  std::unique_ptr<sema::Analysis> analysis;
  std::string error; ///< why it cannot be used (empty: usable)
  std::map<std::string, std::unique_ptr<ir::Kernel>> kernels;
};

struct Kernels {
  std::string target;
  std::map<std::string, LoadedSource> sources; ///< by path (or generated name)

  LoadedSource &load(const std::string &key, const std::string *text) {
    auto it = sources.find(key);
    if (it != sources.end())
      return it->second;
    LoadedSource &s = sources[key];
    if (text) {
      s.file = std::make_unique<SourceFile>(key, *text);
    } else {
      std::string err;
      auto f = loadSource(key, err);
      if (!f) {
        s.error = err;
        return s;
      }
      s.file = std::make_unique<SourceFile>(std::move(*f));
    }
    sema::FrontendOptions fe;
    fe.target = target;
    s.analysis = std::make_unique<sema::Analysis>(sema::analyze(*s.file, fe));
    for (const Diagnostic &d : s.analysis->diagnostics)
      if (d.severity() == Severity::Error) {
        s.error = key + " does not check for " + target + ": error[" +
                  std::string(diagInfo(d.id).code) + "] " + d.message;
        break;
      }
    return s;
  }

  /// The lowered kernel, or null with `error` set.
  const ir::Kernel *kernel(LoadedSource &s, const std::string &name, std::string &error) {
    if (!s.error.empty()) {
      error = s.error;
      return nullptr;
    }
    if (auto it = s.kernels.find(name); it != s.kernels.end())
      return it->second.get();
    bool found = false;
    for (const auto &k : s.analysis->program.kernels)
      found |= k.name == name;
    if (!found) {
      error = "no kernel `" + name + "` in " + s.file->path();
      return nullptr;
    }
    auto lowered = lower::lowerKernel(*s.analysis, name);
    if (!lowered) {
      error = renderDiagnostic(lower::loweringDiagnostic(lowered.takeError(), Span{}), *s.file);
      return nullptr;
    }
    return (s.kernels[name] = std::make_unique<ir::Kernel>(std::move(*lowered))).get();
  }
};

/// The launch guard's answer for `kernel` at `kdims` (dims against `requires`).
std::optional<std::string> guardRefusal(const ir::Kernel &kernel, const std::string &target,
                                        const std::map<std::string, int64_t> &kdims) {
  codegen::LaunchMetadata meta = codegen::makeLaunchMetadata(kernel, target, "", 0, 0);
  auto spec = runtime::launchSpecFromJson(codegen::toJson(meta));
  if (!spec)
    return spec.error().message;
  runtime::DimValues dims(kdims.begin(), kdims.end());
  auto plan = runtime::checkDims(*spec, dims);
  if (!plan)
    return plan.error().message;
  return std::nullopt;
}

std::string upper(std::string s) {
  for (char &c : s)
    c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string lower(std::string s) {
  for (char &c : s)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct HostSession {
  const SourceFile &file;
  const sema::Analysis &analysis;
  std::string target;
  Kernels kernels;
  alg::Catalogue catalogue;
  std::string stdlib;
};

void makeCatalogue(HostSession &hs, const HostOptions &host, bool interpret) {
  hs.kernels.target = hs.target;
  hs.stdlib = stdlibDir();
  alg::Catalogue &c = hs.catalogue;
  c.refusal = [&hs](const std::string &file, const std::string &name,
                    const std::map<std::string, int64_t> &kdims) -> std::optional<std::string> {
    LoadedSource &s = hs.kernels.load((fs::path(hs.stdlib) / file).string(), nullptr);
    std::string err;
    const ir::Kernel *k = hs.kernels.kernel(s, name, err);
    if (!k)
      return err;
    return guardRefusal(*k, hs.target, kdims);
  };
  c.generatedRefusal =
      [&hs](const std::string &source,
            const std::map<std::string, int64_t> &kdims) -> std::optional<std::string> {
    std::string name = source.substr(7, source.find('\n') - 7); // "kernel NAME\n"
    LoadedSource &s = hs.kernels.load("<generated " + name + ">", &source);
    std::string err;
    const ir::Kernel *k = hs.kernels.kernel(s, name, err);
    if (!k)
      return err;
    return guardRefusal(*k, hs.target, kdims);
  };
  if (host.cublasLt == "off") {
    c.cublasLt = false;
    c.cublasLtWhy = "not used (--cublaslt=off)";
  } else if (host.cublasLt == "on" || interpret) {
    c.cublasLt = true; // --interpret: the CPU reference computes its steps
  } else {
    std::string err;
    auto lt = runtime::CublasLt::load(err);
    c.cublasLt = lt != nullptr;
    c.cublasLtWhy = "not found on this machine: " + err;
  }
  c.tuned = alg::readTuningCache(alg::defaultTuningCachePath(), c.tuningSource);
}

std::optional<alg::Function> buildAndVerify(const sema::Analysis &analysis, const SourceFile &file,
                                            const std::string &name) {
  auto built = alg::buildFunction(analysis, name);
  if (auto *diags = std::get_if<std::vector<Diagnostic>>(&built)) {
    for (const Diagnostic &d : *diags)
      std::cerr << renderDiagnostic(d, file);
    return std::nullopt;
  }
  alg::Function f = std::move(std::get<alg::Function>(built));
  std::vector<std::string> errors = alg::verify(f);
  if (!errors.empty()) { // a builder bug: the checker accepted the function
    for (const std::string &e : errors)
      std::cerr << "kina: internal error: algebraic IR of `" << name << "`: " << e << "\n";
    return std::nullopt;
  }
  return f;
}

/// The function's dims from --dims, each bound (a usage error names the missing one).
std::optional<std::map<std::string, int64_t>>
functionDims(const alg::Function &f, const std::map<std::string, long long> &given,
             std::string &error) {
  std::map<std::string, int64_t> dims;
  for (const std::string &d : f.dims) {
    auto it = given.find(d);
    if (it == given.end()) {
      error = "fn `" + f.name + "` needs --dims for " + d + " (its dims:";
      for (const std::string &x : f.dims)
        error += " " + x;
      error += ")";
      return std::nullopt;
    }
    dims[d] = it->second;
  }
  for (const auto &[n, v] : given)
    if (!dims.count(n)) {
      error = "--dims names " + n + ", which is not a dim of fn `" + f.name + "`";
      return std::nullopt;
    }
  for (const std::string &r : f.requirements) {
    // `requires` of the host function, for these dims: LHS op RHS, each side
    // a dimension expression (`M mod 128 = 0`, `K >= 64`, `(A and B)` is
    // not split: a form evalDim cannot read is refused, never skipped).
    static const char *ops[] = {" >= ", " <= ", " != ", " = ", " < ", " > "};
    std::optional<bool> holds;
    for (const char *op : ops) {
      size_t at = r.find(op);
      if (at == std::string::npos)
        continue;
      auto lhs = alg::evalDim(r.substr(0, at), dims);
      auto rhs = alg::evalDim(r.substr(at + std::strlen(op)), dims);
      if (!lhs || !rhs)
        break;
      std::string o = op;
      holds = o == " >= "   ? *lhs >= *rhs
              : o == " <= " ? *lhs <= *rhs
              : o == " != " ? *lhs != *rhs
              : o == " = "  ? *lhs == *rhs
              : o == " < "  ? *lhs < *rhs
                            : *lhs > *rhs;
      break;
    }
    if (!holds) {
      error = "fn `" + f.name + "`: cannot evaluate requires (" + r +
              ") for --dims in this version (host functions take comparisons of dimension "
              "expressions)";
      return std::nullopt;
    }
    if (!*holds) {
      error = "fn `" + f.name + "` requires (" + r + "), which fails for these dims";
      return std::nullopt;
    }
  }
  return dims;
}

std::optional<std::vector<int64_t>> concreteShape(const alg::TensorType &t,
                                                  const std::map<std::string, int64_t> &dims) {
  std::vector<int64_t> shape;
  for (const std::string &d : t.shape) {
    auto v = alg::evalDim(d, dims);
    if (!v || *v <= 0)
      return std::nullopt;
    shape.push_back(*v);
  }
  return shape;
}

/// One device's shape of a value of type `t` (the block on a mesh).
std::optional<std::vector<int64_t>> localShape(const alg::TensorType &t,
                                               const std::map<std::string, int64_t> &dims) {
  auto shape = concreteShape(t, dims);
  if (shape)
    for (size_t a = 0; a < shape->size(); ++a)
      (*shape)[a] = alg::localExtent(t, a, (*shape)[a]);
  return shape;
}

/// The devices a host function uses: the highest index (-1: none) and
/// whether it uses more than device 0 (a mesh, or a device index).
std::pair<int64_t, bool> devicesUsed(const alg::Function &f) {
  int64_t top = -1;
  bool multi = false;
  for (const alg::Op &op : f.ops) {
    const alg::TensorType &t = op.type;
    if (t.on != alg::Placement::Device)
      continue;
    if (t.onMesh()) {
      multi = true;
      for (int64_t d : t.mesh)
        top = std::max(top, d);
    } else {
      multi |= t.device != 0;
      top = std::max(top, t.device);
    }
  }
  return {top, multi};
}

runtime::DType runtimeDType(const std::string &dtype) {
  return runtime::parseDType(lower(dtype)).value_or(runtime::DType::F32);
}

alg::Value toValue(const runtime::HostTensor &t, const std::string &dtype) {
  alg::Value v;
  v.shape = t.shape;
  v.dtype = dtype;
  v.data.resize(t.numel());
  for (size_t i = 0; i < v.data.size(); ++i)
    v.data[i] = t.get(i);
  return v;
}

runtime::HostTensor toTensor(const alg::Value &v) {
  runtime::HostTensor t(runtimeDType(v.dtype), v.shape);
  for (size_t i = 0; i < v.data.size(); ++i)
    t.set(i, v.data[i]);
  return t;
}

/// A Kina step's kernel: stdlib, generated, or the host function's file.
const ir::Kernel *stepKernel(HostSession &hs, const alg::Step &s, std::string &error) {
  if (!s.source.empty())
    return hs.kernels.kernel(hs.kernels.load("<generated " + s.kernel + ">", &s.source), s.kernel,
                             error);
  if (!s.file.empty())
    return hs.kernels.kernel(
        hs.kernels.load((fs::path(hs.stdlib) / fs::path(s.file).filename()).string(), nullptr),
        s.kernel, error);
  // The host function's own file: already checked.
  LoadedSource &own = hs.kernels.sources[hs.file.path() + "#own"];
  if (!own.analysis) {
    own.file = std::make_unique<SourceFile>(hs.file.path(), hs.file.text());
    sema::FrontendOptions fe;
    fe.target = hs.target;
    own.analysis = std::make_unique<sema::Analysis>(sema::analyze(*own.file, fe));
  }
  return hs.kernels.kernel(own, s.kernel, error);
}

/// The kernel's dims, bound from its tensor parameters' shapes (a bare dim
/// on an axis takes the argument's extent there).
std::map<std::string, int64_t> bindKernelDims(const ir::Kernel &k,
                                              const std::vector<std::vector<int64_t>> &shapes) {
  std::map<std::string, int64_t> dims;
  for (size_t p = 0; p < k.params.size() && p < shapes.size(); ++p)
    for (size_t a = 0; a < k.params[p].shape.size() && a < shapes[p].size(); ++a) {
      const ir::IndexExpr &e = k.params[p].shape[a];
      if (e.kind() == ir::IndexExpr::Kind::Dim && e.index() < k.dims.size())
        dims.emplace(k.dims[e.index()].name, shapes[p][a]);
    }
  return dims;
}

struct Execution {
  HostSession &hs;
  const alg::Function &f;
  const alg::Plan &plan;
  const std::map<std::string, int64_t> &dims;
  bool interpret;
  runtime::Device *device = nullptr;
  std::map<int, alg::Value> values;             ///< host values (and interpreted device ones)
  std::map<int, runtime::DeviceBuffer> buffers; ///< device values (GPU)
  std::unique_ptr<runtime::PinnedStaging> staging;
  std::unique_ptr<runtime::CublasLt> lt;
  runtime::DeviceBuffer workspace;
  struct Loaded {
    std::optional<runtime::Module> module;
    std::optional<runtime::Kernel> kernel;
    runtime::LaunchSpec spec;
  };
  std::map<std::string, Loaded> modules;
  std::unique_ptr<runtime::TensorMapCache> tensorMaps;
  unsigned launches = 0;
  std::vector<std::string> log; ///< one line per kernel step, for the summary

  // Issue 19: values on a mesh of real devices. Device 0 is `device`, with
  // `lt` and `workspace` above; the others are opened on first use. A mesh
  // value has one buffer per mesh position (its block, its copy or its
  // partial sum); every launch, cuBLASLt call and copy makes its device's
  // context current first.
  struct OtherDevice {
    std::optional<runtime::Device> dev;
    std::unique_ptr<runtime::CublasLt> lt;
    runtime::DeviceBuffer workspace;
  };
  std::map<int64_t, OtherDevice> others;
  std::map<int, std::vector<runtime::DeviceBuffer>> parts;
  struct CompiledKernel {
    std::string cubin;
    runtime::LaunchSpec spec;
  };
  std::map<std::string, CompiledKernel> compiled; ///< one compile, a module per device
  std::unique_ptr<runtime::Nccl> nccl;
  std::map<std::vector<int64_t>, std::vector<void *>> comms; ///< per mesh
  std::map<int64_t, runtime::Stream> ncclStreams;            ///< per device

  ~Execution() {
    if (nccl)
      for (auto &[mesh, c] : comms)
        nccl->destroy(c);
  }

  static size_t positions(const alg::TensorType &t) { return t.onMesh() ? t.mesh.size() : 1; }
  static int64_t deviceOf(const alg::TensorType &t, size_t pos) {
    return t.onMesh() ? t.mesh[pos] : t.device;
  }

  /// Device `d` (0 is `device`), opened on first use; its context current.
  runtime::Result<const runtime::Device *> deviceAt(int64_t d) {
    const runtime::Device *dev = device;
    if (d != 0) {
      OtherDevice &o = others[d];
      if (!o.dev) {
        auto opened = runtime::Device::open(int(d));
        if (!opened)
          return opened.error();
        o.dev.emplace(opened.take());
      }
      dev = &*o.dev;
    }
    if (auto ok = dev->context()->makeCurrent(); !ok)
      return ok.error();
    return dev;
  }

  /// The buffer of device value `v` at mesh position `pos` (a value on one
  /// device has one), or null.
  const runtime::DeviceBuffer *bufferOf(int v, size_t pos) const {
    if (auto it = parts.find(v); it != parts.end())
      return pos < it->second.size() ? &it->second[pos] : nullptr;
    auto it = buffers.find(v);
    return it == buffers.end() ? nullptr : &it->second;
  }

  /// The output buffer of value `v` (type `t`) at mesh position `pos`:
  /// reused when a previous run left one of `bytes`.
  runtime::Result<runtime::DeviceBuffer *> outputOn(int v, size_t pos, const alg::TensorType &t,
                                                    size_t bytes) {
    if (staged(t))
      return outputBuffer(v, bytes);
    auto dev = deviceAt(deviceOf(t, pos));
    if (!dev)
      return dev.error();
    runtime::DeviceBuffer *slot = nullptr;
    if (t.onMesh()) {
      std::vector<runtime::DeviceBuffer> &vec = parts[v];
      if (vec.size() != t.mesh.size())
        vec.resize(t.mesh.size());
      slot = &vec[pos];
    } else {
      slot = &buffers[v];
    }
    if (slot->size() != bytes) {
      auto buf = runtime::DeviceBuffer::alloc(
          **dev, bytes, "%" + std::to_string(v) + " on device " + std::to_string(deviceOf(t, pos)));
      if (!buf)
        return buf.error();
      *slot = buf.take();
    }
    return slot;
  }

  /// A value on device 0 alone goes through the pinned staging buffer (made
  /// for device 0's context); mesh parts and other devices copy directly.
  static bool staged(const alg::TensorType &t) { return !t.onMesh() && t.device == 0; }

  /// Uploads host value `host` (laid out as `t`: a block or a copy per mesh
  /// position) into value `v`'s device buffers.
  std::string upload(int v, const alg::Value &host, const alg::TensorType &t) {
    for (size_t pos = 0; pos < positions(t); ++pos) {
      runtime::HostTensor h = toTensor(t.onMesh() ? host.parts.at(pos) : host);
      auto buf = outputOn(v, pos, t, h.byteSize());
      if (!buf)
        return buf.error().message;
      if (staged(t)) {
        if (auto ok = staging->toDevice(**buf, h.span(), nullptr); !ok)
          return ok.error().message;
      } else if (auto ok = (*buf)->copyFromHost(h.span()); !ok) {
        return ok.error().message;
      }
    }
    return "";
  }

  /// Device value `v` (type `t`) read back: one tensor, or its parts (a
  /// mesh value, in the layout alg::gather reads).
  std::string download(int v, const alg::TensorType &t, alg::Value &out) {
    auto local = localShape(t, dims);
    if (!local)
      return "a shape extent is not positive for these dims";
    out = alg::Value{};
    out.dtype = t.dtype;
    for (size_t pos = 0; pos < positions(t); ++pos) {
      const runtime::DeviceBuffer *src = bufferOf(v, pos);
      if (!src)
        return "%" + std::to_string(v) + " has no buffer on device " +
               std::to_string(deviceOf(t, pos));
      runtime::HostTensor h(runtimeDType(t.dtype), *local);
      if (staged(t)) {
        if (auto ok = staging->toHost(h.span(), *src, nullptr); !ok)
          return ok.error().message;
      } else if (auto ok = src->copyToHost(h.span()); !ok) {
        return ok.error().message;
      }
      if (t.onMesh()) {
        out.parts.push_back(toValue(h, t.dtype));
        out.shape = *concreteShape(t, dims);
      } else {
        out = toValue(h, t.dtype);
      }
    }
    return "";
  }

  /// The device buffer for value `v` of `bytes`: reused when a previous run
  /// of the step left one (--bench times the steps without allocating).
  runtime::Result<runtime::DeviceBuffer *> outputBuffer(int v, size_t bytes) {
    if (auto it = buffers.find(v); it != buffers.end() && it->second.size() == bytes)
      return &it->second;
    auto buf = runtime::DeviceBuffer::alloc(*device, bytes, "%" + std::to_string(v));
    if (!buf)
      return buf.error();
    buffers[v] = buf.take();
    return &buffers[v];
  }

  std::string stepLabel(const alg::Step &s) {
    return "step %" + std::to_string(s.output) + " (" + s.kernel + ")";
  }

  /// Runs one step; returns an error message (with its code) or "".
  std::string run(const alg::Step &s) {
    const alg::Op &out = f.ops[s.output];
    switch (s.backend) {
    case alg::Backend::Host: {
      if (auto err = alg::evaluateOps(f, s.ops, values, /*roundEach=*/true))
        return *err;
      return "";
    }
    case alg::Backend::Copy:
      return copy(s);
    case alg::Backend::CublasLt:
      if (interpret) { // the CPU reference stands in for cuBLASLt
        if (auto err = alg::evaluateOps(f, s.ops, values, /*roundEach=*/false))
          return *err;
        launches += out.type.onMesh() ? unsigned(out.type.mesh.size()) : 1u; // one per device
        return "";
      }
      return cublasLt(s);
    case alg::Backend::Kina:
      return kina(s, out);
    case alg::Backend::Collective:
      if (interpret) { // the CPU reference computes what NCCL would
        if (auto err = alg::evaluateOps(f, s.ops, values, /*roundEach=*/true))
          return *err;
        return "";
      }
      return collective(s);
    }
    return "unknown step";
  }

  std::string copy(const alg::Step &s) {
    int in = s.inputs[0];
    bool toDevice = f.ops[s.output].kind == alg::OpKind::CopyToDevice;
    if (interpret) { // a mesh's replicated copy_to_host reads the first device's copy
      if (auto err = alg::evaluateOps(f, s.ops, values, /*roundEach=*/true))
        return *err;
      (void)in;
      return "";
    }
    const alg::TensorType &from = f.ops[in].type, &to = f.ops[s.output].type;
    if (toDevice && from.on == alg::Placement::Device) {
      // `copy_to_device d x` of a value already on a device: staged through
      // the host (a peer copy is the faster route between NVLink peers).
      alg::Value whole;
      if (std::string err = download(in, from, whole); !err.empty())
        return err;
      values[in] = from.onMesh() ? alg::gather(whole, from) : whole;
    }
    if (toDevice)
      return upload(s.output, to.onMesh() ? alg::distribute(values.at(in), to) : values.at(in), to);
    alg::Value back;
    if (std::string err = download(in, from, back); !err.empty())
      return err;
    values[s.output] = from.onMesh() ? alg::gather(back, from) : back;
    return "";
  }

  std::string cublasLt(const alg::Step &s) {
    const alg::TensorType &ot = f.ops[s.output].type;
    auto shape = localShape(ot, dims);
    const std::string &dt = ot.dtype;
    for (size_t pos = 0; pos < positions(ot); ++pos) {
      int64_t d = deviceOf(ot, pos);
      auto dev = deviceAt(d);
      if (!dev)
        return dev.error().message;
      std::unique_ptr<runtime::CublasLt> &handle = d == 0 ? lt : others[d].lt;
      runtime::DeviceBuffer &ws = d == 0 ? workspace : others[d].workspace;
      if (!handle) { // created with device d's context current
        std::string err;
        handle = runtime::CublasLt::load(err);
        if (!handle)
          return std::string("error[") + std::string(diagInfo(DiagId::CublasLtUnavailable).code) +
                 "]: " + err;
      }
      if (ws.size() == 0) { // cuBLASLt's heuristics pick faster kernels with room
        auto w = runtime::DeviceBuffer::alloc(**dev, size_t(32) << 20, "cuBLASLt workspace");
        if (!w)
          return w.error().message;
        ws = w.take();
      }
      auto buf = outputOn(s.output, pos, ot,
                          runtime::shapeNumel(*shape) * runtime::dtypeSize(runtimeDType(dt)));
      if (!buf)
        return buf.error().message;
      const runtime::DeviceBuffer *a = bufferOf(s.inputs[0], pos), *b = bufferOf(s.inputs[1], pos);
      const runtime::DeviceBuffer *bias =
          s.inputs.size() > 2 ? bufferOf(s.inputs[2], pos) : nullptr;
      if (!a || !b || (s.inputs.size() > 2 && !bias))
        return "an operand has no buffer on device " + std::to_string(d);
      runtime::CublasLtProblem p;
      p.type = dt == "BF16"  ? runtime::LtType::BF16
               : dt == "F16" ? runtime::LtType::F16
                             : runtime::LtType::F32;
      p.M = s.kdims.at("M");
      p.N = s.kdims.at("N");
      p.K = s.kdims.at("K");
      p.a = a->devicePtr();
      p.b = b->devicePtr();
      p.bTransposed = s.weightTransposed;
      if (bias)
        p.bias = bias->devicePtr();
      p.d = (*buf)->devicePtr();
      switch (s.epilogue) {
      case alg::Epilogue::None:
        p.epilogue = runtime::LtEpilogue::Default;
        break;
      case alg::Epilogue::Bias:
        p.epilogue = runtime::LtEpilogue::Bias;
        break;
      case alg::Epilogue::Relu:
        p.epilogue = runtime::LtEpilogue::Relu;
        break;
      case alg::Epilogue::BiasRelu:
        p.epilogue = runtime::LtEpilogue::ReluBias;
        break;
      case alg::Epilogue::GeluTanh:
        p.epilogue = runtime::LtEpilogue::Gelu;
        break;
      case alg::Epilogue::BiasGeluTanh:
        p.epilogue = runtime::LtEpilogue::GeluBias;
        break;
      }
      if (auto ok = (*dev)->context()->makeCurrent(); !ok)
        return ok.error().message;
      if (std::string err = handle->matmul(p, ws.devicePtr(), ws.size(), nullptr); !err.empty())
        return err;
      ++launches;
    }
    return "";
  }

  std::string kina(const alg::Step &s, const alg::Op &out) {
    std::string err;
    const ir::Kernel *k = stepKernel(hs, s, err);
    if (!k)
      return err;
    std::vector<int> args = s.inputs;
    std::vector<std::vector<int64_t>> shapes;
    // A step on a mesh: each device runs the kernel over its local blocks.
    for (int v : args)
      shapes.push_back(*localShape(f.ops[v].type, dims));
    auto outShape = localShape(out.type, dims);
    shapes.push_back(*outShape);
    std::map<std::string, int64_t> kd = bindKernelDims(*k, shapes);
    if (k->params.size() != args.size() + 1)
      return "kernel `" + s.kernel + "` takes " + std::to_string(k->params.size()) +
             " tensors, the step passes " + std::to_string(args.size() + 1);
    if (interpret) {
      if (auto r = guardRefusal(*k, hs.target, kd))
        return "kernel `" + s.kernel + "` refused before launch: " + *r;
      std::vector<int64_t> dv;
      for (const ir::Dim &d : k->dims)
        dv.push_back(kd.at(d.name));
      unsigned threads = std::max(1u, std::thread::hardware_concurrency());
      // One launch per device of the mesh (or one), each on that device's parts.
      size_t devices = out.type.onMesh() ? out.type.mesh.size() : 1;
      alg::Value result;
      result.shape = *concreteShape(out.type, dims);
      result.dtype = out.type.dtype;
      for (size_t dev = 0; dev < devices; ++dev) {
        std::vector<reference::Buffer> refs;
        for (size_t i = 0; i < args.size(); ++i) {
          const alg::Value &val = values.at(args[i]);
          reference::Buffer b;
          b.shape = shapes[i];
          b.dtype = k->params[i].dtype;
          b.data = out.type.onMesh() ? val.parts.at(dev).data : val.data;
          refs.push_back(std::move(b));
        }
        reference::Buffer o;
        o.shape = *outShape;
        o.dtype = k->params.back().dtype;
        o.data.assign(runtime::shapeNumel(*outShape), 0.0);
        refs.push_back(std::move(o));
        if (auto e = reference::execute(*k, dv, refs, threads))
          return "the reference interpreter failed on `" + s.kernel + "`: " + *e;
        alg::Value v;
        v.shape = *outShape;
        v.dtype = out.type.dtype;
        v.data = std::move(refs.back().data);
        if (out.type.onMesh())
          result.parts.push_back(std::move(v));
        else
          result = std::move(v);
        ++launches;
      }
      values[s.output] = std::move(result);
      return "";
    }
    // The GPU: compile once; per device of the mesh (or the one device) its
    // module, the launch guard and the launch on that device's blocks.
    std::string key = s.kernel + "@" + s.file + s.source;
    auto cit = compiled.find(key);
    if (cit == compiled.end()) {
      DiagnosticSink sink;
      codegen::CodegenOptions cg;
      cg.target = hs.target;
      auto c = codegen::compile(*k, cg, codegen::Stage::Cubin, sink);
      if (!c) {
        std::string m = "kernel `" + s.kernel + "` did not compile";
        for (const Diagnostic &d : sink.diagnostics())
          m += "; " + d.message;
        return m;
      }
      auto spec = runtime::launchSpecFromJson(codegen::toJson(c->launch));
      if (!spec)
        return spec.error().message;
      cit = compiled.emplace(key, CompiledKernel{std::move(c->cubin), *spec}).first;
    }
    const CompiledKernel &ck = cit->second;
    runtime::DimValues dv(kd.begin(), kd.end());
    const alg::TensorType &ot = out.type;
    for (size_t pos = 0; pos < positions(ot); ++pos) {
      int64_t d = deviceOf(ot, pos);
      auto dev = deviceAt(d);
      if (!dev)
        return dev.error().message;
      Loaded &L = modules[key + "#" + std::to_string(d)];
      if (!L.kernel) {
        L.spec = ck.spec;
        auto module = runtime::Module::load(
            **dev,
            std::span<const uint8_t>(reinterpret_cast<const uint8_t *>(ck.cubin.data()),
                                     ck.cubin.size()),
            s.kernel);
        if (!module)
          return module.error().message;
        L.module.emplace(module.take());
        auto kernel = L.module->kernel(L.spec.symbol);
        if (!kernel)
          return kernel.error().message;
        L.kernel.emplace(kernel.take());
      }
      auto lplan = runtime::checkDims(L.spec, dv);
      if (!lplan)
        return "kernel `" + s.kernel + "` refused before launch: " + lplan.error().message;
      if (auto ok = runtime::checkDevice(L.spec, *lplan, (*dev)->info()); !ok)
        return "kernel `" + s.kernel + "` refused before launch: " + ok.error().message;
      if (lplan->config.dynamicSharedBytes > 0)
        if (auto ok = L.kernel->setMaxDynamicSharedBytes(
                static_cast<int>(lplan->config.dynamicSharedBytes));
            !ok)
          return ok.error().message;
      auto buf = outputOn(s.output, pos, ot,
                          runtime::shapeNumel(*outShape) *
                              runtime::dtypeSize(runtimeDType(out.type.dtype)));
      if (!buf)
        return buf.error().message;
      std::vector<const runtime::DeviceBuffer *> ptrs;
      for (int v : args) {
        // The type rules put a mesh step's operands on its mesh; a value on
        // one device is read only by launches on that device.
        const alg::TensorType &it = f.ops[v].type;
        const runtime::DeviceBuffer *b = bufferOf(v, pos);
        if (!b || (!it.onMesh() && it.device != d))
          return "operand %" + std::to_string(v) + " is not on device " + std::to_string(d);
        ptrs.push_back(b);
      }
      ptrs.push_back(*buf);
      if (!tensorMaps)
        tensorMaps = std::make_unique<runtime::TensorMapCache>(device->api());
      auto packed = runtime::packArguments(*lplan, ptrs, tensorMaps.get());
      if (!packed)
        return packed.error().message;
      if (auto ok = (*dev)->context()->makeCurrent(); !ok)
        return ok.error().message;
      if (auto ok = runtime::launch(*L.kernel, lplan->config, *packed); !ok)
        return ok.error().message;
      ++launches;
    }
    return "";
  }

  /// A collective over real devices through NCCL: all_reduce in place on a
  /// copy of the partial sums; all_gather and reduce_scatter along dim 0
  /// (NCCL concatenates and splits whole buffers, which is a row-major
  /// tensor's dim-0 blocks). Each device's kernels finish first (they run
  /// on its default stream, NCCL on a stream of its own).
  std::string collective(const alg::Step &s) {
    const alg::Op &out = f.ops[s.output];
    const alg::TensorType &ot = out.type, &it = f.ops[s.inputs.at(0)].type;
    auto coded1352 = [&](const std::string &what) {
      return std::string("error[") + std::string(diagInfo(DiagId::CollectiveNotOnGpu).code) +
             "]: " + what + " on GPUs is not in this version; `--interpret` runs it";
    };
    if (!ot.onMesh() || !it.onMesh() || ot.mesh != it.mesh)
      return coded1352("a collective between different meshes");
    bool gather = out.kind == alg::OpKind::AllGather,
         scatter = out.kind == alg::OpKind::ReduceScatter;
    if (gather && it.shardDim != 0)
      return coded1352("all_gather along dim " + std::to_string(it.shardDim));
    if (scatter && ot.shardDim != 0)
      return coded1352("reduce_scatter to dim " + std::to_string(ot.shardDim));
    runtime::NcclType type;
    if (!runtime::ncclTypeOf(ot.dtype, type))
      return coded1352("a collective of " + ot.dtype);
    if (!nccl) {
      std::string err;
      nccl = runtime::Nccl::load(err);
      if (!nccl)
        return std::string("error[") + std::string(diagInfo(DiagId::NcclUnavailable).code) +
               "]: " + err;
    }
    std::vector<runtime::cuda::CUstream> streams;
    std::vector<const runtime::Device *> devs;
    for (size_t pos = 0; pos < ot.mesh.size(); ++pos) {
      int64_t d = ot.mesh[pos];
      auto dev = deviceAt(d);
      if (!dev)
        return dev.error().message;
      devs.push_back(*dev);
      if (auto ok = (*dev)->synchronize(stepLabel(s)); !ok)
        return ok.error().message;
      if (!ncclStreams.count(d)) {
        auto st = runtime::Stream::create(**dev);
        if (!st)
          return st.error().message;
        ncclStreams.emplace(d, st.take());
      }
      streams.push_back(ncclStreams.at(d).handle());
    }
    std::vector<void *> &c = comms[ot.mesh];
    if (c.empty()) {
      std::vector<int> devs(ot.mesh.begin(), ot.mesh.end());
      if (std::string err = nccl->initAll(devs, c); !err.empty())
        return err;
    }
    auto inShape = localShape(it, dims), outShape = localShape(ot, dims);
    size_t elem = runtime::dtypeSize(runtimeDType(ot.dtype));
    size_t inCount = runtime::shapeNumel(*inShape), outCount = runtime::shapeNumel(*outShape);
    std::vector<runtime::cuda::CUdeviceptr> send, recv;
    for (size_t pos = 0; pos < ot.mesh.size(); ++pos) {
      const runtime::DeviceBuffer *src = bufferOf(s.inputs[0], pos);
      auto dst = outputOn(s.output, pos, ot, outCount * elem);
      if (!src || !dst)
        return !dst ? dst.error().message : "the collective's input has no buffer";
      send.push_back(src->devicePtr());
      recv.push_back((*dst)->devicePtr());
      if (!gather && !scatter) { // in place: start from the partial sum
        runtime::cuda::CUcontext ctx = devs[pos]->context()->context;
        if (runtime::cuda::CUresult rc =
                device->api().cuMemcpyPeer(recv.back(), ctx, send.back(), ctx, inCount * elem);
            rc != runtime::cuda::CUDA_SUCCESS)
          return device->api().error(rc, "copying the partial sum").message;
      }
    }
    std::string err = gather    ? nccl->allGather(send, recv, inCount, type, c, streams)
                      : scatter ? nccl->reduceScatter(send, recv, outCount, type, c, streams)
                                : nccl->allReduce(recv, outCount, type, c, streams);
    if (!err.empty())
      return err;
    for (const auto &[d, st] : ncclStreams)
      if (auto ok = st.synchronize(stepLabel(s)); !ok)
        return ok.error().message;
    return "";
  }

  /// The whole plan once; frees device values no later step reads.
  bool keepAll = false; ///< --bench: keep every device value for the timed reruns

  std::string runAll() {
    // Parameters declared on the device: uploaded from their inputs first.
    if (!interpret)
      for (int p : f.params)
        if (f.ops[p].type.on == alg::Placement::Device && !buffers.count(p) && !parts.count(p))
          if (std::string err = upload(p, values.at(p), f.ops[p].type); !err.empty())
            return "parameter `" + f.ops[p].name + "`: " + err;
    std::vector<int> lastUse(f.ops.size(), -1);
    for (size_t i = 0; i < plan.steps.size(); ++i)
      for (int v : plan.steps[i].inputs)
        lastUse[v] = int(i);
    for (size_t i = 0; i < plan.steps.size(); ++i) {
      if (std::string err = run(plan.steps[i]); !err.empty())
        return stepLabel(plan.steps[i]) + ": " + err;
      const alg::Step &st = plan.steps[i];
      if (st.backend == alg::Backend::Kina)
        log.push_back("%" + std::to_string(st.output) + ": Kina kernel " + st.kernel +
                      (interpret ? " (tile-IR interpreter)" : ""));
      else if (st.backend == alg::Backend::CublasLt)
        log.push_back("%" + std::to_string(st.output) + ": cuBLASLt " + st.kernel +
                      (interpret ? " (CPU reference)" : ""));
      else if (st.backend == alg::Backend::Collective)
        log.push_back("%" + std::to_string(st.output) + ": " + st.kernel +
                      (interpret ? " (CPU reference over the simulated devices)" : ""));
      if (const alg::TensorType &t = f.ops[st.output].type;
          t.onMesh() && (st.backend == alg::Backend::Kina || st.backend == alg::Backend::CublasLt))
        log.back() += ", on each of " + std::to_string(t.mesh.size()) + " devices";
      auto dead = [&](int v) { return !keepAll && lastUse[v] <= int(i) && v != f.result; };
      for (auto it = buffers.begin(); it != buffers.end();)
        it = dead(it->first) ? buffers.erase(it) : std::next(it);
      for (auto it = parts.begin(); it != parts.end();)
        it = dead(it->first) ? parts.erase(it) : std::next(it);
    }
    if (device)
      if (auto ok = device->synchronize("fn " + f.name); !ok)
        return ok.error().message;
    for (const auto &[d, o] : others)
      if (o.dev)
        if (auto ok = o.dev->synchronize("fn " + f.name + " on device " + std::to_string(d)); !ok)
          return ok.error().message;
    return "";
  }
};

} // namespace

int runHostBuild(const BuildOptions &options, const HostOptions &host) {
  std::string error;
  auto file = loadSource(options.file, error);
  if (!file)
    return fail(error, UsageError);
  auto analysis = checkFileForTarget(*file, options.common.target);
  if (auto *code = std::get_if<int>(&analysis))
    return *code;
  const sema::Analysis &a = std::get<sema::Analysis>(analysis);
  std::vector<std::string> names =
      host.fn.empty() ? alg::hostFunctionNames(a) : std::vector<std::string>{host.fn};
  if (names.empty())
    return fail("'" + options.file + "' has no host function (`fn`)", UsageError);
  std::string text;
  for (const std::string &n : names) {
    auto f = buildAndVerify(a, *file, n);
    if (!f)
      return InputErrors;
    text += alg::print(*f);
  }
  if (options.output.empty()) {
    std::cout << text;
    return Success;
  }
  FILE *out = std::fopen(options.output.c_str(), "w");
  if (!out || std::fwrite(text.data(), 1, text.size(), out) != text.size())
    return fail("cannot write '" + options.output + "'", ToolFailure);
  std::fclose(out);
  return Success;
}

int runHostReport(const ReportOptions &options, const HostOptions &host) {
  std::string error;
  auto file = loadSource(options.file, error);
  if (!file)
    return fail(error, UsageError);
  auto analysis = checkFileForTarget(*file, options.common.target);
  if (auto *code = std::get_if<int>(&analysis))
    return *code;
  const sema::Analysis &a = std::get<sema::Analysis>(analysis);
  auto f = buildAndVerify(a, *file, host.fn);
  if (!f)
    return InputErrors;
  auto dims = functionDims(*f, host.dims, error);
  if (!dims)
    return fail(error, UsageError);
  HostSession hs{*file, a, options.common.target, {}, {}, {}};
  makeCatalogue(hs, host, /*interpret=*/false);
  alg::Plan plan = alg::selectKernels(*f, *dims, hs.catalogue);
  std::cout << alg::describePlan(*f, plan, hs.catalogue);
  for (const Diagnostic &d : plan.errors)
    std::cerr << renderDiagnostic(d, *file);
  return plan.errors.empty() ? Success : InputErrors;
}

int runHostRun(const RunOptions &options, const HostOptions &host) {
  std::string error;
  auto file = loadSource(options.file, error);
  if (!file)
    return fail(error, UsageError);
  std::optional<runtime::Device> device;
  std::optional<runtime::RuntimeError> noDevice;
  std::string target = options.common.target;
  if (!options.interpret) {
    auto opened = runtime::Device::open(0);
    if (opened)
      device.emplace(opened.take());
    else
      noDevice = opened.error();
  }
  if (target == "auto") {
    target = std::string(target::defaultTargetName());
    if (device)
      for (target::TargetId id :
           target::targetsForDevice(device->info().ccMajor, device->info().ccMinor)) {
        const target::TargetInfo &t = target::targetInfo(id);
        if (target == target::defaultTargetName() || t.archSpecific)
          target = std::string(t.name);
      }
  }
  if (noDevice && !noDevice->isNoDevice())
    return fail(noDevice->message, ToolFailure);
  auto analysis = checkFileForTarget(*file, target);
  if (auto *code = std::get_if<int>(&analysis))
    return *code;
  const sema::Analysis &a = std::get<sema::Analysis>(analysis);
  auto f = buildAndVerify(a, *file, host.fn);
  if (!f)
    return InputErrors;
  auto dims = functionDims(*f, options.dims, error);
  if (!dims)
    return fail(error, UsageError);
  // Issue 19: more than device 0 needs those devices (K1351) and, in this
  // version, the interpreter (K1352).
  if (auto [top, multi] = devicesUsed(*f); multi && !options.interpret) {
    int found = 0;
    if (device)
      if (auto n = runtime::Device::count())
        found = *n;
    if (top + 1 > found)
      return coded(DiagId::NotEnoughDevices,
                   "fn `" + f->name + "` uses devices 0 to " + std::to_string(top) + " (" +
                       std::to_string(top + 1) + " devices), and this machine has " +
                       std::to_string(found) + (device ? "" : " (" + noDevice->message + ")") +
                       "; `--interpret` simulates them on the CPU",
                   ToolFailure);
  }
  HostSession hs{*file, a, target, {}, {}, {}};
  makeCatalogue(hs, host, options.interpret);
  alg::Plan plan = alg::selectKernels(*f, *dims, hs.catalogue);
  if (!plan.errors.empty()) {
    for (const Diagnostic &d : plan.errors)
      std::cerr << renderDiagnostic(d, *file);
    return InputErrors;
  }
  bool needsLt = false;
  for (const alg::Step &s : plan.steps)
    needsLt |= s.backend == alg::Backend::CublasLt;
  // cuBLASLt before the device: its absence is a clear error on any machine.
  std::unique_ptr<runtime::CublasLt> lt;
  if (needsLt && !options.interpret) {
    lt = runtime::CublasLt::load(error);
    if (!lt)
      return coded(DiagId::CublasLtUnavailable,
                   "fn `" + f->name + "` runs a GEMM on cuBLASLt (see `kina report --fn " +
                       f->name + "`), and " + error +
                       "; set KINA_CUBLASLT, or pass --cublaslt=off to use Kina kernels only",
                   ToolFailure);
  }
  if (!options.interpret && !device) {
    std::cout << "SKIP: no CUDA device (" << noDevice->message << ")\n";
    return Skipped;
  }

  // Inputs: one per parameter, `random` (seeded) or a .npy file.
  if (options.inputs.size() > f->params.size())
    return coded(DiagId::HostInputMismatch,
                 "--inputs gives " + std::to_string(options.inputs.size()) + " entries, fn `" +
                     f->name + "` has " + std::to_string(f->params.size()) + " parameters",
                 UsageError);
  std::map<int, alg::Value> inputs;
  for (size_t i = 0; i < f->params.size(); ++i) {
    const alg::Op &p = f->ops[f->params[i]];
    auto shape = concreteShape(p.type, *dims);
    if (!shape)
      return fail("parameter `" + p.name + "`: a shape extent is not positive for these dims",
                  UsageError);
    runtime::DType dt = runtimeDType(p.type.dtype);
    runtime::HostTensor t(dt, *shape);
    if (i < options.inputs.size() && options.inputs[i] != "random") {
      auto loaded = runtime::readNpyFor(options.inputs[i], p.name, dt, *shape);
      if (!loaded)
        return coded(DiagId::HostInputMismatch, loaded.error().message, InputErrors);
      t = loaded.take();
    } else {
      runtime::fillRandom(t, options.seed, i);
    }
    // A parameter on a mesh: each device gets its block or its copy.
    inputs[f->params[i]] = alg::distribute(toValue(t, p.type.dtype), p.type);
  }

  std::optional<std::pair<size_t, size_t>> memBefore, memAfter;
  unsigned repeat = std::max(1u, host.repeat);
  alg::Value result;
  unsigned launches = 0;
  double lastMs = 0;
  std::vector<double> times;
  std::vector<std::string> stepLog;
  for (unsigned r = 0; r < repeat; ++r) {
    Execution ex{hs, *f, plan, *dims, options.interpret, device ? &*device : nullptr};
    ex.values = inputs;
    if (device)
      ex.staging = std::make_unique<runtime::PinnedStaging>(*device);
    ex.lt = std::move(lt); // one handle for every run
    auto t0 = std::chrono::steady_clock::now();
    if (std::string err = ex.runAll(); !err.empty()) {
      std::cerr << "kina: error: fn `" << f->name << "`: " << err << "\n";
      return ToolFailure;
    }
    lastMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    times.push_back(lastMs);
    launches = ex.launches;
    if (r == 0)
      stepLog = ex.log;
    const alg::Op &res = f->ops[f->result];
    if (res.type.on == alg::Placement::Host)
      result = ex.values.at(f->result);
    else if (options.interpret)
      result = alg::gather(ex.values.at(f->result), res.type);
    else {
      alg::Value back;
      if (std::string err = ex.download(f->result, res.type, back); !err.empty())
        return fail("fn `" + f->name + "`: reading the result: " + err, ToolFailure);
      result = res.type.onMesh() ? alg::gather(back, res.type) : back;
    }
    lt = std::move(ex.lt);
    // The free device memory after the first run (lazy module loading and
    // cuBLASLt's first use settle there) and after the last: a leak shows
    // as a difference that grows with --repeat.
    if (device && (r == 0 || r + 1 == repeat))
      if (auto m = device->memoryInfo())
        (r == 0 ? memBefore : memAfter) = *m;
  }
  // --bench: the device-resident part (every kernel step, inputs already on
  // the device, outputs reused), median of CUDA-event timings.
  std::optional<runtime::TimingStats> bench;
  if (options.bench && device) {
    Execution ex{hs, *f, plan, *dims, false, &*device};
    ex.values = inputs;
    ex.keepAll = true;
    ex.staging = std::make_unique<runtime::PinnedStaging>(*device);
    ex.lt = std::move(lt);
    if (std::string err = ex.runAll(); !err.empty())
      return fail("fn `" + f->name + "` (bench): " + err, ToolFailure);
    auto timer = runtime::EventTimer::create(*device);
    if (!timer)
      return fail(timer.error().message, ToolFailure);
    std::function<runtime::Status()> once = [&]() -> runtime::Status {
      for (const alg::Step &st : plan.steps)
        if (st.backend == alg::Backend::Kina || st.backend == alg::Backend::CublasLt ||
            st.backend == alg::Backend::Collective)
          if (std::string err = ex.run(st); !err.empty())
            return runtime::makeError(runtime::ErrorKind::LaunchFailed, err);
      return {};
    };
    runtime::EventTimer::Options topts;
    topts.warmup = 5;
    topts.iterations = 20;
    topts.warmupMs = 25; // as kina run --bench (EventTimer.h)
    topts.targetMs = 100;
    auto stats = timer->measure(once, topts, "fn " + f->name);
    if (!stats)
      return fail("fn `" + f->name + "` (bench): " + stats.error().message, ToolFailure);
    bench = *stats;
    lt = std::move(ex.lt);
  }

  std::cout << (options.interpret ? "interpreted" : "ran") << " fn " << f->name << " ("
            << plan.steps.size() << " steps, " << launches << " kernel launch(es)"
            << (options.interpret ? ", tile-IR interpreter and CPU reference, no GPU"
                                  : ", " + device->info().name)
            << ")\n";
  for (const std::string &line : stepLog)
    std::cout << "  " << line << "\n";
  if (repeat > 1) {
    std::sort(times.begin(), times.end());
    std::cout << "repeat: " << repeat << " runs, median " << times[times.size() / 2]
              << " ms wall\n";
  }
  if (bench)
    std::cout << "bench: device steps (" << launches << " kernel launch(es)) median "
              << bench->medianMs * 1e3 << " us, min " << bench->minMs * 1e3 << " us over "
              << bench->samplesMs.size() << " runs (CUDA events, L2 flushed)\n";
  if (memBefore && memAfter && repeat > 1) {
    long long leaked = (long long)memBefore->first - (long long)memAfter->first;
    std::cout << "device memory: free after run 1 " << memBefore->first << ", after run " << repeat
              << " " << memAfter->first << " bytes (difference " << leaked << ")\n";
  }
  if (!host.output.empty()) {
    if (auto ok = runtime::writeNpy(host.output, toTensor(result)); !ok)
      return fail(ok.error().message, ToolFailure);
    std::cout << "wrote " << host.output << " (" << result.dtype << ", "
              << runtime::shapeString(result.shape) << ")\n";
  }
  (void)lastMs;
  return Success;
}

} // namespace kina::driver
