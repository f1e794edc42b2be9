//===- PassA.cpp - Lowering pass A: kernel selection and fusion -----------===//
#include "algebraic/PassA.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace kina::algebraic {

const char *epilogueName(Epilogue e) {
  switch (e) {
  case Epilogue::None:
    return "DEFAULT";
  case Epilogue::Bias:
    return "BIAS";
  case Epilogue::Relu:
    return "RELU";
  case Epilogue::BiasRelu:
    return "RELU_BIAS";
  case Epilogue::GeluTanh:
    return "GELU";
  case Epilogue::BiasGeluTanh:
    return "GELU_BIAS";
  }
  return "?";
}

unsigned Plan::kernelLaunches() const {
  unsigned n = 0;
  for (const Step &s : steps)
    n += s.backend == Backend::Kina || s.backend == Backend::CublasLt;
  return n;
}

std::string shapeKey(const std::map<std::string, int64_t> &kdims, const std::string &dtype) {
  std::string k;
  for (const auto &[name, v] : kdims)
    k += name + "=" + std::to_string(v) + ",";
  return k + "dtype=" + dtype;
}

std::string defaultTuningCachePath() {
  if (const char *p = std::getenv("KINA_TUNE_CACHE"); p && *p)
    return p;
  if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return std::string(x) + "/kina/tune.jsonl";
  if (const char *h = std::getenv("HOME"); h && *h)
    return std::string(h) + "/.cache/kina/tune.jsonl";
  return "";
}

std::map<std::string, double> readTuningCache(const std::string &path, std::string &source) {
  std::map<std::string, double> out;
  std::ifstream in(path);
  if (path.empty() || !in) {
    source = "no tuning cache" + (path.empty() ? std::string() : " at " + path);
    return out;
  }
  std::string line;
  size_t records = 0;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object())
      continue;
    std::string cand = j.value("candidate", j.value("kernel", std::string()));
    if (cand.empty())
      continue;
    if (cand.find(':') == std::string::npos)
      cand = "kina:" + cand;
    std::map<std::string, int64_t> dims;
    const nlohmann::json &shape = j.contains("shape") && j["shape"].is_object() ? j["shape"] : j;
    for (const char *d : {"M", "N", "K"})
      if (shape.contains(d) && shape[d].is_number_integer())
        dims[d] = shape[d].get<int64_t>();
    std::string dtype = j.value("dtype", std::string());
    // `kina tune`'s records (compiler/tune/Cache.cpp): the shape as
    // "K=..,M=..,N=..", "medianMs", "dtypes" as "BF16,BF16->BF16" (the
    // first operand's type names the GEMM), and only a winner counts.
    if (j.contains("envKey")) {
      if (!j.value("winner", false) || !j.value("ok", true))
        continue;
      if (j.contains("shape") && j["shape"].is_string()) {
        std::string text = j["shape"].get<std::string>();
        for (size_t at = 0; at < text.size();) {
          size_t comma = text.find(',', at), eq = text.find('=', at);
          if (comma == std::string::npos)
            comma = text.size();
          if (eq != std::string::npos && eq < comma)
            dims[text.substr(at, eq - at)] = std::atoll(text.c_str() + eq + 1);
          at = comma + 1;
        }
      }
      if (dtype.empty())
        dtype =
            j.value("dtypes", std::string()).substr(0, j.value("dtypes", std::string()).find(','));
    }
    double us = -1;
    for (const char *f : {"median_us", "us", "time_us"})
      if (j.contains(f) && j[f].is_number())
        us = j[f].get<double>();
    for (const char *f : {"median_ms", "medianMs"})
      if (us < 0 && j.contains(f) && j[f].is_number())
        us = j[f].get<double>() * 1e3;
    if (us <= 0 || dims.empty() || dtype.empty())
      continue;
    std::string key = cand + "@" + shapeKey(dims, dtype);
    auto it = out.find(key);
    if (it == out.end() || us < it->second)
      out[key] = us;
    ++records;
  }
  source = std::to_string(records) + " tuning record(s) from " + path;
  return out;
}

namespace {

struct Kernels {
  Epilogue epilogue;
  const char *dtype;
  const char *name;
  const char *file;
};

// The stdlib GEMMs pass A knows, by what they compute: c = epi(a * transpose(b)
// [+ bias]), a [M, K], b [N, K], bias [N], all of `dtype`, F32 accumulation.
constexpr Kernels kGemms[] = {
    {Epilogue::None, "BF16", "gemm_bf16_hopper_persistent", "gemm_bf16_hopper_persistent.kina"},
    {Epilogue::None, "BF16", "gemm_bf16_hopper", "gemm_bf16_hopper.kina"},
    {Epilogue::None, "F16", "gemm_f16_hopper_persistent", "gemm_f16_hopper_persistent.kina"},
    {Epilogue::None, "F16", "gemm_f16_hopper", "gemm_f16_hopper.kina"},
    {Epilogue::BiasRelu, "BF16", "gemm_bf16_hopper_persistent_bias_relu",
     "gemm_bf16_hopper_persistent_bias_relu.kina"},
    {Epilogue::BiasRelu, "BF16", "gemm_bf16_hopper_bias_relu", "gemm_bf16_hopper_bias_relu.kina"},
    {Epilogue::BiasGeluTanh, "BF16", "gemm_bf16_hopper_persistent_bias_gelu",
     "gemm_bf16_hopper_persistent_bias_gelu.kina"},
    {Epilogue::BiasGeluTanh, "BF16", "gemm_bf16_hopper_bias_gelu",
     "gemm_bf16_hopper_bias_gelu.kina"},
};

bool hasBias(Epilogue e) {
  return e == Epilogue::Bias || e == Epilogue::BiasRelu || e == Epilogue::BiasGeluTanh;
}

struct Selector {
  const Function &f;
  const std::map<std::string, int64_t> &dims;
  const Catalogue &cat;
  std::vector<std::vector<int>> users;
  std::vector<bool> covered;
  Plan plan;

  Selector(const Function &f, const std::map<std::string, int64_t> &dims, const Catalogue &cat)
      : f(f), dims(dims), cat(cat), users(f.ops.size()), covered(f.ops.size()) {
    for (size_t i = 0; i < f.ops.size(); ++i)
      for (int a : f.ops[i].operands)
        users[a].push_back(int(i));
  }

  /// One device's extent: a step on a mesh runs on each device over its
  /// local blocks, so its kernel sees the block's extents (issue 19).
  int64_t extent(int v, size_t axis) {
    const TensorType &t = f.ops[v].type;
    if (axis >= t.shape.size())
      return 1;
    auto e = evalDim(t.shape[axis], dims);
    return e ? localExtent(t, axis, *e) : -1;
  }
  /// The one user of `v` (and `v` is not the result), or -1.
  int soleUser(int v) {
    if (v == f.result || users[v].size() != 1)
      return -1;
    return users[v][0];
  }
  const Op &op(int v) { return f.ops[v]; }

  void noKernel(int v, const std::string &why) {
    // The extents at these dims: the candidates' reasons name the kernels'
    // own dims (a stdlib kernel's N may be the function's H).
    std::string here;
    for (size_t i = 0; i < op(v).type.shape.size(); ++i)
      here += (i ? ", " : "") + std::to_string(extent(v, i));
    plan.errors.push_back(Diagnostic{DiagId::HostNoKernel,
                                     op(v).span,
                                     std::string("no kernel computes `") + opName(op(v).kind) +
                                         "` on " + printType(op(v).type) + " at [" + here +
                                         "]: " + why,
                                     {},
                                     {},
                                     {}});
  }

  /// Picks among the accepted candidates: the tuning cache's fastest when it
  /// timed any of them, else the first in `preference` order.
  int decide(Step &s, const std::string &dtype, const std::string &defaultWhy) {
    std::string key = shapeKey(s.kdims, dtype);
    int best = -1, timed = -1;
    for (size_t i = 0; i < s.candidates.size(); ++i) {
      Candidate &c = s.candidates[i];
      if (auto it = cat.tuned.find(c.name + "@" + key); it != cat.tuned.end())
        c.us = it->second;
      if (!c.accepted)
        continue;
      if (best < 0)
        best = int(i);
      if (c.us && (timed < 0 || *c.us < *s.candidates[timed].us))
        timed = int(i);
    }
    if (timed >= 0) {
      std::ostringstream os;
      os << "tuning cache: " << s.candidates[timed].name << " is the fastest accepted candidate ("
         << *s.candidates[timed].us << " us at " << key << ")";
      s.decision = os.str();
      return timed;
    }
    if (best == 0)
      s.decision = "default (no tuning record for " + key + "): " + defaultWhy;
    else if (best > 0)
      s.decision = "default (no tuning record for " + key + "): " + s.candidates[best].name +
                   ", the first accepted candidate (" + s.candidates[0].name + " is refused)";
    return best;
  }

  void gemm(int mm) {
    int a = op(mm).operands[0], b = op(mm).operands[1];
    Step s;
    s.ops.push_back(mm);
    int weight = b;
    if (op(b).kind == OpKind::Transpose && soleUser(b) == mm && !covered[b]) {
      weight = op(b).operands[0];
      s.weightTransposed = true;
      s.ops.insert(s.ops.begin(), b);
    }
    // The epilogue chain: + bias over the rows, then an activation.
    int out = mm, bias = -1;
    Epilogue epi = Epilogue::None;
    std::vector<int> chain;
    if (int u = soleUser(out); u >= 0 && op(u).kind == OpKind::Add &&
                               op(u).broadcast == Broadcast::Row && op(u).operands[0] == out) {
      bias = op(u).operands[1];
      epi = Epilogue::Bias;
      chain.push_back(u);
      out = u;
    }
    if (int u = soleUser(out);
        u >= 0 && (op(u).kind == OpKind::Relu || op(u).kind == OpKind::GeluTanh)) {
      bool relu = op(u).kind == OpKind::Relu;
      epi = bias >= 0 ? (relu ? Epilogue::BiasRelu : Epilogue::BiasGeluTanh)
                      : (relu ? Epilogue::Relu : Epilogue::GeluTanh);
      chain.push_back(u);
    }
    const std::string dtype = op(mm).type.dtype;
    int64_t M = extent(a, 0), K = extent(a, 1), N = extent(mm, 1);
    // Shrink the epilogue until some candidate computes it.
    for (;;) {
      Step t = s;
      t.epilogue = epi;
      t.kdims = {{"M", M}, {"N", N}, {"K", K}};
      size_t fusedOps = epi == Epilogue::None ? 0 : epi == Epilogue::Bias ? 1 : chain.size();
      for (size_t i = 0; i < fusedOps && i < chain.size(); ++i)
        t.ops.push_back(chain[i]);
      t.output = t.ops.back();
      t.inputs = {a, weight};
      if (hasBias(epi))
        t.inputs.push_back(bias);
      // cuBLASLt: its epilogues; GELU is the tanh form, so only gelu_tanh fuses.
      Candidate lt{std::string("cublaslt:") + epilogueName(epi), false, "", std::nullopt};
      if (!cat.cublasLt)
        lt.why = cat.cublasLtWhy;
      else if (dtype != "BF16" && dtype != "F16" && dtype != "F32")
        lt.why = "cuBLASLt is used for BF16, F16 and F32 here, not " + dtype;
      else {
        lt.accepted = true;
        lt.why = std::string("cublasLtMatmul, ") +
                 (s.weightTransposed ? "b read as [N, K]" : "b as [K, N]") +
                 ", F32 accumulation, epilogue " + epilogueName(epi);
      }
      std::vector<Candidate> kina;
      for (const Kernels &k : kGemms) {
        if (k.epilogue != epi || dtype != k.dtype)
          continue;
        Candidate c{std::string("kina:") + k.name, false, "", std::nullopt};
        if (!s.weightTransposed)
          c.why = "takes b as [N, K] (a * transpose(b)); write `matmul a (transpose w)` with w : "
                  "[N, K]";
        else if (auto r = cat.refusal ? cat.refusal(k.file, k.name, t.kdims)
                                      : std::optional<std::string>("no kernel catalogue"))
          c.why = *r;
        else {
          c.accepted = true;
          c.why = std::string("stdlib/") + k.file;
        }
        kina.push_back(std::move(c));
      }
      // The default: cuBLASLt where the committed H200 results show it ahead
      // (plain GEMM: Kina's cluster GEMM 0.95-1.01x; bias+GELU: 0.97x/0.94x),
      // the Kina kernel where it is not behind (bias+ReLU: 1.00x/1.05x).
      bool kinaFirst = epi == Epilogue::BiasRelu;
      if (kinaFirst) {
        t.candidates = kina;
        t.candidates.push_back(lt);
      } else {
        t.candidates.push_back(lt);
        t.candidates.insert(t.candidates.end(), kina.begin(), kina.end());
      }
      int pick = decide(
          t, dtype,
          kinaFirst
              ? "the Kina fused kernel (1.00x/1.05x of cuBLASLt's epilogue on the H200, README)"
              : "cuBLASLt (ahead of the Kina GEMMs of this epilogue on the H200, README)");
      if (pick >= 0) {
        const Candidate &c = t.candidates[pick];
        if (c.name.rfind("cublaslt:", 0) == 0) {
          t.backend = Backend::CublasLt;
          t.kernel = epilogueName(epi);
        } else {
          t.backend = Backend::Kina;
          t.kernel = c.name.substr(5);
          for (const Kernels &k : kGemms)
            if (t.kernel == k.name)
              t.file = std::string("stdlib/") + k.file;
        }
        for (int v : t.ops)
          covered[v] = true;
        plan.steps.push_back(std::move(t));
        return;
      }
      if (epi == Epilogue::None) {
        std::string why;
        for (const Candidate &c : t.candidates)
          why += (why.empty() ? "" : "; ") + c.name + ": " + c.why;
        noKernel(mm, why);
        for (int v : s.ops)
          covered[v] = true;
        return;
      }
      // Drop the activation, then the bias: they become elementwise steps.
      if (epi == Epilogue::BiasRelu || epi == Epilogue::BiasGeluTanh)
        epi = Epilogue::Bias;
      else
        epi = Epilogue::None;
    }
  }

  /// Kina source of one kernel computing an elementwise chain over 2-D
  /// tensors of one shape (scalars inline), or "" when the chain has a
  /// broadcast operand or a dtype the template does not cover.
  std::string generate(const std::string &name, const std::vector<int> &chainOps,
                       std::vector<int> &inputs) {
    const TensorType &t = op(chainOps.back()).type;
    if (t.shape.size() != 2 || (t.dtype != "F32" && t.dtype != "BF16" && t.dtype != "F16"))
      return "";
    bool half = t.dtype != "F32";
    std::map<int, std::string> expr;
    std::set<int> rows; ///< row-bias inputs ([N] or [1, N]): read as slices
    inputs.clear();
    auto index = [&](int v) {
      auto in = std::find(inputs.begin(), inputs.end(), v);
      size_t k = size_t(in - inputs.begin());
      if (in == inputs.end())
        inputs.push_back(v);
      return k;
    };
    bool mixed = false; ///< a value read both as a row and as a tile
    auto operand = [&](int v) -> std::string {
      if (auto it = expr.find(v); it != expr.end())
        return "(" + it->second + ")";
      mixed |= rows.count(v) > 0;
      std::string r = "r" + std::to_string(index(v));
      return half ? "(convert F32 " + r + ")" : r;
    };
    for (int v : chainOps) {
      const Op &o = op(v);
      if (o.broadcast == Broadcast::Column)
        return "";
      // A row bias is a broadcast slice of a global tensor (converted to
      // the F32 tile's type as it loads): `x1[bn * 64 ..+ 64]`.
      if (o.broadcast == Broadcast::Row && expr.count(o.operands[1]))
        return ""; // a row computed in the chain: not in this version
      std::string e = opName(o.kind);
      if (o.kind == OpKind::Gelu)
        e = "gelu";
      e += " " + operand(o.operands[0]);
      if (o.broadcast == Broadcast::Row) {
        int b = o.operands[1];
        if (std::find(inputs.begin(), inputs.end(), b) != inputs.end() && !rows.count(b))
          return "";
        rows.insert(b);
        std::string x = "x" + std::to_string(index(b));
        e += " " + x + (op(b).type.shape.size() == 1 ? "[bn * 64 ..+ 64]" : "[0, bn * 64 ..+ 64]");
        expr[v] = e;
        continue;
      }
      if (o.broadcast == Broadcast::Scalar) {
        std::ostringstream os;
        os << o.scalar;
        std::string lit = os.str();
        if (lit.find_first_of(".e") == std::string::npos)
          lit += ".0";
        e += " " + (o.scalar < 0 ? "(" + lit + ")" : lit);
      } else if (o.operands.size() > 1) {
        e += " " + operand(o.operands[1]);
      }
      expr[v] = e;
    }
    if (mixed)
      return "";
    const std::string dt = t.dtype;
    std::ostringstream src;
    src << "kernel " << name << "\n    [M, N]\n    requires (M mod 64 = 0)\n"
        << "    requires (N mod 64 = 0)\n    requires capability(sm_80)\n";
    for (size_t k = 0; k < inputs.size(); ++k)
      src << "    (x" << k << " : Tensor[" << dt << ", "
          << (!rows.count(inputs[k])                 ? "[M, N]"
              : op(inputs[k]).type.shape.size() == 1 ? "[N]"
                                                     : "[1, N]")
          << ", on=cuda:global])\n";
    src << "    : (out : Tensor[" << dt << ", [M, N], on=cuda:global]) {\n"
        << "  block_grid [M/64, N/64] {\n    let bm = block_id 0 in\n    let bn = block_id 1 in\n"
        << "    warp_grid [4] {\n      let row = bm * 64 + warp_id 0 * 16 in\n";
    for (size_t k = 0; k < inputs.size(); ++k)
      if (!rows.count(inputs[k]))
        src << "      register r" << k << " : Tile[" << dt << ", [16, 64], on=cuda:register]\n";
    for (size_t k = 0; k < inputs.size(); ++k)
      if (!rows.count(inputs[k]))
        src << "      r" << k << " <- x" << k << "[row ..+ 16, bn * 64 ..+ 64]\n";
    std::string body = expr[chainOps.back()];
    src << "      out[row ..+ 16, bn * 64 ..+ 64] <- "
        << (half ? "convert " + dt + " (" + body + ")" : body) << "\n    }\n  }\n}\n";
    return src.str();
  }

  void elementwise(int first) {
    std::vector<int> chain{first};
    int cur = first;
    for (;;) {
      int u = soleUser(cur);
      if (u < 0 || covered[u] || op(u).type.on != Placement::Device ||
          !(isElementwiseUnary(op(u).kind) || isElementwiseBinary(op(u).kind)) ||
          op(u).operands[0] != cur || !(op(u).type == op(cur).type))
        break;
      chain.push_back(u);
      cur = u;
    }
    Step s;
    s.ops = chain;
    s.output = chain.back();
    s.kdims = {{"M", extent(s.output, 0)}, {"N", extent(s.output, 1)}};
    std::string name = "kina_fused_" + f.name + "_" + std::to_string(s.output);
    std::vector<int> inputs;
    std::string source = generate(name, chain, inputs);
    Candidate gen{"kina:" + name, false, "", std::nullopt};
    if (source.empty())
      gen.why =
          "the generated elementwise kernel covers 2-D F32, BF16 and F16 tensors of one shape "
          "with scalar operands and row biases; this chain has a column operand or another "
          "shape";
    else if (auto r = cat.generatedRefusal ? cat.generatedRefusal(source, s.kdims)
                                           : std::optional<std::string>("no kernel generator"))
      gen.why = *r;
    else {
      gen.accepted = true;
      gen.why = "generated: " + std::to_string(chain.size()) + " op(s) in one kernel, " +
                std::to_string(inputs.size()) + " input(s)";
    }
    s.candidates.push_back(gen);
    int pick = decide(s, op(s.output).type.dtype, "the one generated kernel for the chain");
    if (pick < 0) {
      noKernel(first, gen.why);
      for (int v : chain)
        covered[v] = true;
      return;
    }
    s.backend = Backend::Kina;
    s.kernel = name;
    s.source = source;
    s.inputs = inputs;
    for (int v : chain)
      covered[v] = true;
    plan.steps.push_back(std::move(s));
  }

  /// One op by one stdlib kernel of `file`: the first of `kernels` the
  /// launch guard accepts for the input's [rows, cols] (named `dims` in the
  /// kernel), unless the tuning cache knows a faster accepted one.
  void single(int v, std::initializer_list<const char *> kernels, const char *file,
              const char *dtype, std::pair<const char *, const char *> dims = {"M", "N"}) {
    Step s;
    s.ops = {v};
    s.output = v;
    s.inputs = op(v).operands;
    s.kdims = {{dims.first, extent(s.inputs[0], 0)}, {dims.second, extent(s.inputs[0], 1)}};
    for (const char *kernel : kernels) {
      Candidate c{std::string("kina:") + kernel, false, "", std::nullopt};
      if (op(v).type.dtype != dtype)
        c.why = std::string("computes ") + dtype + ", not " + op(v).type.dtype;
      else if (auto r = cat.refusal ? cat.refusal(file, kernel, s.kdims)
                                    : std::optional<std::string>("no kernel catalogue"))
        c.why = *r;
      else {
        c.accepted = true;
        c.why = std::string("stdlib/") + file;
      }
      s.candidates.push_back(c);
    }
    int pick = decide(s, op(v).type.dtype, std::string("the stdlib kernel ") + *kernels.begin());
    if (pick < 0) {
      std::string why;
      for (const Candidate &c : s.candidates)
        why += (why.empty() ? "" : "; ") + c.name + ": " + c.why;
      noKernel(v, why);
      covered[v] = true;
      return;
    }
    s.backend = Backend::Kina;
    s.kernel = s.candidates[pick].name.substr(5); // past "kina:"
    s.file = std::string("stdlib/") + file;
    covered[v] = true;
    plan.steps.push_back(std::move(s));
  }

  void run() {
    for (size_t i = 0; i < f.ops.size(); ++i) {
      int v = int(i);
      if (covered[v] || op(v).kind == OpKind::Param)
        continue;
      const Op &o = op(v);
      // A transposed GEMM operand is read in place by the GEMM (gemm()).
      if (int u = soleUser(v); o.kind == OpKind::Transpose && o.type.on == Placement::Device &&
                               u >= 0 && op(u).kind == OpKind::MatMul && op(u).operands[1] == v)
        continue;
      Step s;
      s.ops = {v};
      s.output = v;
      s.inputs = o.operands;
      const TensorType &from = o.operands.empty() ? o.type : op(o.operands[0]).type;
      if (o.kind == OpKind::CopyToDevice && from.on == Placement::Device) {
        s.backend = Backend::Copy;
        s.decision = "device " + std::to_string(from.device) + " -> device " +
                     std::to_string(o.type.device) +
                     ": a peer copy (cuMemcpyPeer) where cuDeviceCanAccessPeer allows it, "
                     "else staged through pinned host memory";
      } else if (o.kind == OpKind::CopyToDevice || o.kind == OpKind::CopyToHost) {
        s.backend = Backend::Copy;
        s.decision =
            o.kind == OpKind::CopyToDevice
                ? "host -> device " + std::to_string(o.type.device) + " through pinned staging"
            : from.onMesh()
                ? "device " + std::to_string(from.mesh[0]) +
                      " (the first of the mesh; every device holds the "
                      "same copy) -> host through pinned staging"
                : "device " + std::to_string(from.device) + " -> host through pinned staging";
      } else if (o.kind == OpKind::AllReduce || o.kind == OpKind::AllGather ||
                 o.kind == OpKind::ReduceScatter) {
        s.backend = Backend::Collective;
        s.kernel = std::string("nccl:") + opName(o.kind);
        std::string mesh = shardName(from);
        mesh = mesh.substr(mesh.find("mesh="));
        mesh.pop_back();
        s.decision = std::string(o.kind == OpKind::AllReduce       ? "ncclAllReduce (sum)"
                                 : o.kind == OpKind::ReduceScatter ? "ncclReduceScatter (sum)"
                                                                   : "ncclAllGather") +
                     " over " + mesh + ", " + shardName(from) + " -> " + shardName(o.type) +
                     (o.inserted ? "; inserted by pass A: " + o.insertedFor : "; written");
      } else if (o.type.on == Placement::Host) {
        s.backend = Backend::Host;
        s.decision = "host tensors: computed on the CPU";
      } else if (o.kind == OpKind::Call) {
        s.backend = Backend::Kina;
        s.kernel = o.name;
        s.decision = "a kernel of this file, called by name";
      } else if (o.kind == OpKind::MatMul) {
        gemm(v);
        continue;
      } else if (isElementwiseUnary(o.kind) || isElementwiseBinary(o.kind)) {
        elementwise(v);
        continue;
      } else if (o.kind == OpKind::Softmax) {
        single(v, {"softmax_f32"}, "softmax.kina", "F32");
        continue;
      } else if (o.kind == OpKind::Transpose) {
        single(v, {"transpose_f32"}, "transpose.kina", "F32");
        continue;
      } else if (o.kind == OpKind::LayerNorm) {
        // The cp.async forms where D allows them (D mod 8; the resident one
        // for 1536 < D <= 4096), else the plain one.
        single(v, {"layernorm_res_bf16", "layernorm_cp_bf16", "layernorm_bf16"}, "layernorm.kina",
               "BF16", {"M", "D"});
        continue;
      } else if (o.kind == OpKind::RmsNorm) {
        single(v, {"rmsnorm_res_bf16", "rmsnorm_cp_bf16", "rmsnorm_bf16"}, "rmsnorm.kina", "BF16",
               {"M", "D"});
        continue;
      } else {
        noKernel(v, "there is no stdlib kernel for it in this version; call a kernel of your own "
                    "(`" +
                        std::string(opName(o.kind)) + "` on the host works on host tensors)");
        covered[v] = true;
        continue;
      }
      covered[v] = true;
      plan.steps.push_back(std::move(s));
    }
    std::stable_sort(plan.steps.begin(), plan.steps.end(),
                     [](const Step &x, const Step &y) { return x.output < y.output; });
  }
};

std::string backendName(Backend b) {
  switch (b) {
  case Backend::Host:
    return "host (CPU)";
  case Backend::Copy:
    return "transfer";
  case Backend::Collective:
    return "collective";
  case Backend::Kina:
    return "Kina kernel";
  case Backend::CublasLt:
    return "cuBLASLt";
  }
  return "?";
}

} // namespace

Plan selectKernels(const Function &f, const std::map<std::string, int64_t> &dims,
                   const Catalogue &catalogue) {
  Selector s(f, dims, catalogue);
  s.run();
  return std::move(s.plan);
}

std::string describePlan(const Function &f, const Plan &plan, const Catalogue &catalogue) {
  std::ostringstream os;
  os << "fn " << f.name << ": " << plan.steps.size() << " step(s), " << plan.kernelLaunches()
     << " kernel launch(es)\n";
  os << "  cuBLASLt: " << (catalogue.cublasLt ? "available" : catalogue.cublasLtWhy) << "\n";
  os << "  tuning: " << catalogue.tuningSource << "\n";
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const Step &s = plan.steps[i];
    os << "step " << i + 1 << ": %" << s.output << " = ";
    for (size_t k = 0; k < s.ops.size(); ++k) {
      const Op &o = f.ops[s.ops[k]];
      os << (k ? " -> " : "") << (o.kind == OpKind::Call ? "call @" + o.name : opName(o.kind));
      if (o.broadcast != Broadcast::None)
        os << (o.broadcast == Broadcast::Row      ? "{row}"
               : o.broadcast == Broadcast::Column ? "{column}"
                                                  : "{scalar}");
    }
    os << " : " << printType(f.ops[s.output].type) << "\n";
    os << "  runs: " << backendName(s.backend);
    if (s.backend == Backend::Kina)
      os << " " << s.kernel
         << (s.file.empty() ? s.source.empty() ? " (this file)" : " (generated)"
                            : " (" + s.file + ")");
    if (s.backend == Backend::CublasLt)
      os << " epilogue " << s.kernel << (s.weightTransposed ? ", b transposed ([N, K])" : "");
    if (s.backend == Backend::Collective)
      os << " " << s.kernel;
    std::string where; // after the kernel's dims, which are one device's
    if (const TensorType &t = f.ops[s.output].type;
        t.onMesh() && (s.backend == Backend::Kina || s.backend == Backend::CublasLt)) {
      where = " on each device of mesh [";
      for (size_t k = 0; k < t.mesh.size(); ++k)
        where += (k ? ", " : "") + std::to_string(t.mesh[k]);
      where += "] (local blocks)";
    } else if (t.on == Placement::Device && !t.onMesh() && t.device != 0 &&
               (s.backend == Backend::Kina || s.backend == Backend::CublasLt)) {
      where = " on device " + std::to_string(t.device);
    }
    if (!s.kdims.empty()) {
      os << " [";
      bool first = true;
      for (const auto &[n, v] : s.kdims) {
        os << (first ? "" : ", ") << n << "=" << v;
        first = false;
      }
      os << "]";
    }
    os << where << "\n";
    if (s.ops.size() > 1)
      os << "  fused: " << s.ops.size() << " ops in one "
         << (s.backend == Backend::CublasLt ? "cuBLASLt call" : "kernel") << "\n";
    if (!s.inputs.empty()) {
      os << "  inputs:";
      for (int v : s.inputs)
        os << " %" << v;
      os << "\n";
    }
    for (const Candidate &c : s.candidates) {
      os << "  candidate " << c.name << ": " << (c.accepted ? "accepted" : "refused") << " ("
         << c.why << ")";
      if (c.us)
        os << ", tuned " << *c.us << " us";
      os << "\n";
    }
    if (!s.decision.empty())
      os << "  decision: " << s.decision << "\n";
  }
  return os.str();
}

} // namespace kina::algebraic
