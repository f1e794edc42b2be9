//===- LaunchGuard.cpp - Refusing launches that would be wrong ------------===//
//
// Evaluates launch metadata against concrete dims and a device, collecting
// every failed `requires` clause into one message (LaunchGuard.h).
//
//===----------------------------------------------------------------------===//
#include "runtime/LaunchGuard.h"
#include "runtime/CudaDriver.h"
#include "runtime/TargetCompat.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace kina::runtime {

std::size_t LaunchPlan::tensorBytes() const {
  std::size_t n = 0;
  for (const ParamPlan &p : params)
    n += p.bytes;
  return n;
}

Result<DimValues> parseDimsArgument(const std::string &text) {
  DimValues out;
  std::size_t i = 0;
  auto fail = [&](const std::string &why) {
    return makeError(ErrorKind::InvalidDims, "--dims `" + text + "`: " + why);
  };
  auto skipWs = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
      ++i;
  };
  while (true) {
    skipWs();
    if (i >= text.size())
      break;
    std::size_t start = i;
    while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_'))
      ++i;
    std::string name = text.substr(start, i - start);
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
      return fail("expected a dim name at column " + std::to_string(start + 1));
    skipWs();
    if (i >= text.size() || text[i] != '=')
      return fail("expected `=` after `" + name + "`");
    ++i;
    skipWs();
    std::size_t numStart = i;
    std::int64_t v = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, text[i] - '0', &v))
        return fail("value of `" + name + "` is too large");
      ++i;
    }
    if (i == numStart)
      return fail("expected a non-negative integer after `" + name + "=`");
    if (!out.emplace(name, v).second)
      return fail("`" + name + "` given twice");
    skipWs();
    if (i < text.size()) {
      if (text[i] != ',')
        return fail("expected `,` at column " + std::to_string(i + 1));
      ++i;
    }
  }
  return out;
}

static std::string joinNames(const std::vector<std::string> &names) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i)
    s += (i ? ", " : "") + names[i];
  return s.empty() ? "none" : s;
}

Result<LaunchPlan> checkDims(const LaunchSpec &spec, const DimValues &dims) {
  const std::string who = "kernel `" + spec.kernel + "`";
  // 1. Every dim given, positive; no unknown names.
  for (const auto &[name, value] : dims) {
    bool known = false;
    for (const std::string &d : spec.dims)
      known |= d == name;
    if (!known)
      return makeError(ErrorKind::InvalidDims, who + " has no dim `" + name + "` (its dims: " +
                                                   joinNames(spec.dims) + ")");
  }
  std::vector<std::string> missing;
  for (const std::string &d : spec.dims) {
    auto it = dims.find(d);
    if (it == dims.end())
      missing.push_back(d);
    else if (it->second <= 0)
      return makeError(ErrorKind::InvalidDims,
                       who + ": dim " + d + " = " + std::to_string(it->second) +
                           " must be positive");
  }
  if (!missing.empty())
    return makeError(ErrorKind::InvalidDims, who + ": --dims lacks " + joinNames(missing));

  // 2. requires facts, all of them.
  std::string failures;
  for (const RequiresFact &f : spec.requirements) {
    if (f.condition) {
      auto holds = f.condition->evaluate(dims);
      // A formula that cannot be evaluated (an inexact `/`) after a failed
      // requirement follows from that failure: report the failure, the cause.
      if (!holds && !failures.empty())
        break;
      if (!holds)
        return makeError(ErrorKind::InvalidDims,
                         who + ": " + f.clause() + ": " + holds.error().message);
      if (*holds != 0)
        continue;
      std::string line = f.clause() + " fails:";
      const char *sep = " ";
      for (const std::string &n : f.condition->names()) {
        line += sep + n + " = " + std::to_string(dims.at(n));
        sep = ", ";
      }
      failures += (failures.empty() ? "" : "\n") + line;
      continue;
    }
    auto v = f.expr.evaluate(dims);
    if (!v && !failures.empty())
      break;
    if (!v)
      return makeError(ErrorKind::InvalidDims, who + ": " + f.clause() + ": " + v.error().message);
    std::int64_t m = *v % f.modulus;
    if (m < 0)
      m += f.modulus;
    if (m == f.remainder)
      continue;
    std::string line = f.clause() + " fails: ";
    for (const std::string &n : f.expr.names())
      line += n + " = " + std::to_string(dims.at(n)) + ", ";
    if (!f.expr.isName())
      line += f.expr.text() + " = " + std::to_string(*v) + ", ";
    line += std::to_string(*v) + " mod " + std::to_string(f.modulus) + " = " + std::to_string(m);
    failures += (failures.empty() ? "" : "\n") + line;
  }
  if (!failures.empty())
    return makeError(ErrorKind::RequiresFailed, who + " cannot launch: " + failures);

  // 3. Grid and parameters.
  LaunchPlan plan;
  plan.dims = dims;
  std::uint32_t grid[3];
  static const char *axis[3] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    auto g = spec.grid[i].evaluate(dims);
    if (!g)
      return makeError(ErrorKind::InvalidDims,
                       who + ": grid " + axis[i] + ": " + g.error().message);
    if (*g < 1 || *g > std::int64_t(UINT32_MAX))
      return makeError(ErrorKind::InvalidDims, who + ": grid " + axis[i] + " = `" +
                                                   spec.grid[i].text() + "` = " +
                                                   std::to_string(*g) + " is out of range");
    grid[i] = std::uint32_t(*g);
  }
  plan.config.grid = {grid[0], grid[1], grid[2]};
  plan.config.block = spec.block;
  plan.config.cluster = spec.cluster;
  // Clusters (cuLaunchKernelEx, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION): the
  // driver wants each grid extent a multiple of the cluster's, and at most
  // 8 CTAs per cluster without the non-portable opt-in.
  if (spec.cluster.volume() > 1) {
    unsigned c[3] = {spec.cluster.x, spec.cluster.y, spec.cluster.z};
    if (spec.cluster.volume() > 8)
      return makeError(ErrorKind::ClusterInvalid, who + ": cluster " + spec.cluster.str() +
                                                      " has " +
                                                      std::to_string(spec.cluster.volume()) +
                                                      " CTAs; at most 8 are portable");
    for (int i = 0; i < 3; ++i)
      if (c[i] == 0 || grid[i] % c[i] != 0)
        return makeError(ErrorKind::ClusterInvalid,
                         who + ": grid " + axis[i] + " = `" + spec.grid[i].text() + "` = " +
                             std::to_string(grid[i]) + " is not a multiple of the cluster's " +
                             std::to_string(c[i]) + " (cluster " + spec.cluster.str() + ")");
  }
  if (spec.dynamicSharedBytes > std::int64_t(UINT32_MAX))
    return makeError(ErrorKind::InvalidMetadata, who + ": dynamic shared memory too large");
  plan.config.dynamicSharedBytes = std::uint32_t(spec.dynamicSharedBytes);

  for (const ParamSpec &p : spec.params) {
    ParamPlan pp;
    pp.name = p.name;
    pp.kind = p.kind;
    pp.dtype = p.dtype;
    pp.role = p.role;
    pp.intBits = p.intBits;
    pp.scalarType = p.scalarType;
    if (p.kind == ParamKind::Scalar) {
      plan.params.push_back(std::move(pp));
      continue;
    }
    if (p.kind == ParamKind::TensorMap) {
      std::size_t tensors = 0;
      bool found = false;
      for (const ParamPlan &q : plan.params) {
        if (q.kind != ParamKind::Tensor)
          continue;
        if (q.name == p.tensor) {
          pp.tensorIndex = tensors;
          pp.shape = q.shape;
          if (q.dtype != p.dtype)
            return makeError(ErrorKind::InvalidMetadata,
                             who + ": tensor map `" + p.name + "` is " +
                                 std::string(dtypeName(p.dtype)) + ", its tensor `" + p.tensor +
                                 "` " + std::string(dtypeName(q.dtype)));
          found = true;
          break;
        }
        ++tensors;
      }
      if (!found)
        return makeError(ErrorKind::InvalidMetadata,
                         who + ": tensor map `" + p.name + "` names no earlier tensor `" +
                             p.tensor + "`");
      if (p.box.size() != pp.shape.size())
        return makeError(ErrorKind::InvalidMetadata,
                         who + ": tensor map `" + p.name + "` has a box of rank " +
                             std::to_string(p.box.size()) + " for a tensor of rank " +
                             std::to_string(pp.shape.size()));
      pp.tensor = p.tensor;
      pp.box = p.box;
      pp.swizzle128B = p.swizzle128B;
      plan.params.push_back(std::move(pp));
      continue;
    }
    if (p.kind == ParamKind::Dim) {
      auto v = p.value.evaluate(dims);
      if (!v)
        return makeError(ErrorKind::InvalidDims,
                         who + ": parameter `" + p.name + "`: " + v.error().message);
      if (p.intBits == 32 && (*v > INT32_MAX || *v < INT32_MIN))
        return makeError(ErrorKind::InvalidDims, who + ": parameter `" + p.name + "` = " +
                                                     std::to_string(*v) +
                                                     " does not fit its 32-bit type");
      pp.value = *v;
    } else {
      std::size_t n = 1;
      for (std::size_t k = 0; k < p.shape.size(); ++k) {
        auto e = p.shape[k].evaluate(dims);
        if (!e)
          return makeError(ErrorKind::InvalidDims,
                           who + ": shape of `" + p.name + "`: " + e.error().message);
        if (*e < 0)
          return makeError(ErrorKind::InvalidDims,
                           who + ": shape of `" + p.name + "` has negative extent " +
                               std::to_string(*e));
        if (*e != 0 && n > (std::size_t(1) << 46) / std::size_t(*e))
          return makeError(ErrorKind::InvalidDims,
                           who + ": parameter `" + p.name + "` is too large");
        n *= std::size_t(*e);
        pp.shape.push_back(*e);
      }
      // The generated PTX computes element offsets
      // in 32 bits: a larger tensor would wrap them and read or write the
      // wrong elements, so the launch (and the interpreter) refuse it.
      if (n > std::size_t(INT32_MAX))
        return makeError(ErrorKind::InvalidDims,
                         who + ": tensor `" + p.name + "` has " + std::to_string(n) +
                             " elements; a tensor has at most 2147483647 (2^31 - 1), since the "
                             "kernel computes element offsets in 32 bits");
      pp.bytes = n * dtypeSize(p.dtype);
    }
    plan.params.push_back(std::move(pp));
  }
  if (spec.flops) {
    auto f = spec.flops->evaluate(dims);
    if (!f)
      return makeError(ErrorKind::InvalidDims, who + ": flops: " + f.error().message);
    plan.flops = double(*f);
  }
  if (spec.reduction) {
    auto r = spec.reduction->evaluate(dims);
    if (!r)
      return makeError(ErrorKind::InvalidDims, who + ": reduction: " + r.error().message);
    plan.reductionLength = *r;
  }
  return plan;
}

Status checkDevice(const LaunchSpec &spec, const LaunchPlan &plan, const DeviceInfo &dev) {
  const std::string who = "kernel `" + spec.kernel + "`";
  std::string device = "device " + std::to_string(dev.ordinal) + " (" + dev.name +
                       ") is compute capability " + std::to_string(dev.ccMajor) + "." +
                       std::to_string(dev.ccMinor);
  auto target = parseCubinTarget(spec.target);
  if (!target)
    return makeError(ErrorKind::InvalidMetadata,
                     who + ": unknown target \"" + spec.target + "\" in launch metadata");
  if (!cubinRunsOn(*target, dev.ccMajor, dev.ccMinor))
    return makeError(ErrorKind::TargetMismatch,
                     who + " was compiled for " + spec.target + ", which runs on " +
                         describeCompatibleDevices(*target) + "; " + device + " (" +
                         dev.archName() + "): rebuild with --target auto or --target " +
                         dev.archName());

  const LaunchConfig &c = plan.config;
  const std::uint32_t blk[3] = {c.block.x, c.block.y, c.block.z};
  const std::uint32_t grd[3] = {c.grid.x, c.grid.y, c.grid.z};
  static const char *axis[3] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    if (std::int64_t(blk[i]) > dev.maxBlockDim[i])
      return makeError(ErrorKind::ResourceLimit,
                       who + ": block " + axis[i] + " = " + std::to_string(blk[i]) +
                           " exceeds the device limit " + std::to_string(dev.maxBlockDim[i]));
    if (std::int64_t(grd[i]) > dev.maxGridDim[i])
      return makeError(ErrorKind::ResourceLimit,
                       who + ": grid " + axis[i] + " = `" + spec.grid[i].text() + "` = " +
                           std::to_string(grd[i]) + " exceeds the device limit " +
                           std::to_string(dev.maxGridDim[i]));
  }
  if (c.block.volume() > std::uint64_t(dev.maxThreadsPerBlock))
    return makeError(ErrorKind::ResourceLimit,
                     who + ": " + std::to_string(c.block.volume()) +
                         " threads per block exceed the device limit " +
                         std::to_string(dev.maxThreadsPerBlock));
  std::int64_t smem = spec.dynamicSharedBytes + std::max<std::int64_t>(spec.staticSharedBytes, 0);
  if (smem > dev.maxSharedPerBlockOptin)
    return makeError(ErrorKind::ResourceLimit,
                     who + " needs " + std::to_string(smem) +
                         " bytes of shared memory per block; " + dev.name + " allows " +
                         std::to_string(dev.maxSharedPerBlockOptin));
  return {};
}

Result<LaunchPlan> checkLaunch(const LaunchSpec &spec, const DimValues &dims,
                               const DeviceInfo &device) {
  auto plan = checkDims(spec, dims);
  if (!plan)
    return plan;
  if (Status s = checkDevice(spec, *plan, device); !s)
    return s.takeError();
  return plan;
}

// An integer scalar as the interpreter reads it (reference/Interpreter.cpp,
// roundTo): rounded to the nearest integer (ties to even), then modulo
// 2^bits; the bits of that two's-complement value. A C++ cast of an
// out-of-range double is undefined, and it truncates.
static std::uint64_t wrappedScalarBits(double v, int bits) {
  if (!std::isfinite(v))
    return 0;
  const double m = std::ldexp(1.0, bits);
  double r = std::fmod(std::nearbyint(v), m); // exact
  if (r < 0)
    r += m;
  return static_cast<std::uint64_t>(r);
}

// I64 scalars round to the nearest integer and saturate (the interpreter keeps
// I64 values as doubles, exact to 2^53).
static std::int64_t saturatedI64(double v) {
  if (std::isnan(v))
    return 0;
  double r = std::nearbyint(v);
  if (r >= 9223372036854775808.0)
    return INT64_MAX;
  if (r < -9223372036854775808.0)
    return INT64_MIN;
  return static_cast<std::int64_t>(r);
}

Result<KernelArgs> packArguments(const LaunchPlan &plan,
                                 const std::vector<const DeviceBuffer *> &tensorBuffers,
                                 TensorMapCache *maps) {
  KernelArgs args;
  std::size_t t = 0;
  for (const ParamPlan &p : plan.params)
    if (p.kind == ParamKind::TensorMap && !maps)
      return makeError(ErrorKind::InvalidArgument,
                       "tensor map `" + p.name + "` needs a TensorMapCache");
  for (const ParamPlan &p : plan.params) {
    if (p.kind == ParamKind::TensorMap) {
      if (!maps)
        return makeError(ErrorKind::InvalidArgument,
                         "tensor map `" + p.name + "` needs a TensorMapCache");
      if (p.tensorIndex >= tensorBuffers.size() || !tensorBuffers[p.tensorIndex])
        return makeError(ErrorKind::InvalidArgument,
                         "no device buffer for the tensor `" + p.tensor + "` of map `" + p.name +
                             "`");
      TensorMapRequest req;
      req.tensor = p.tensor;
      req.dtype = p.dtype;
      req.address = tensorBuffers[p.tensorIndex]->devicePtr();
      req.shape = p.shape;
      req.box = p.box;
      req.swizzle128B = p.swizzle128B;
      auto map = maps->get(req);
      if (!map)
        return map.takeError();
      args.tensorMap(*map);
      continue;
    }
    if (p.kind == ParamKind::Scalar) {
      const std::string &t = p.scalarType;
      if (t == "f32")
        args.f32(float(p.scalar));
      else if (t == "f64")
        args.f64(p.scalar);
      else if (t == "f16")
        args.u16(floatToHalf(float(p.scalar)));
      else if (t == "bf16")
        args.u16(floatToBf16(float(p.scalar)));
      else if (t == "i32")
        args.u32(std::uint32_t(wrappedScalarBits(p.scalar, 32)));
      else if (t == "i64")
        args.i64(saturatedI64(p.scalar));
      else if (t == "i8" || t == "u8")
        args.u8(std::uint8_t(wrappedScalarBits(p.scalar, 8)));
      else
        return makeError(ErrorKind::InvalidArgument,
                         "scalar parameter `" + p.name + "` has unknown type `" + t + "`");
      continue;
    }
    if (p.kind == ParamKind::Dim) {
      if (p.intBits == 64)
        args.i64(p.value);
      else
        args.i32(std::int32_t(p.value));
      continue;
    }
    if (t >= tensorBuffers.size() || !tensorBuffers[t])
      return makeError(ErrorKind::InvalidArgument,
                       "no device buffer for tensor parameter `" + p.name + "`");
    if (tensorBuffers[t]->size() != p.bytes)
      return makeError(ErrorKind::InvalidArgument,
                       "device buffer for `" + p.name + "` has " +
                           std::to_string(tensorBuffers[t]->size()) + " bytes, expected " +
                           std::to_string(p.bytes));
    args.pointer(*tensorBuffers[t]);
    ++t;
  }
  if (t != tensorBuffers.size())
    return makeError(ErrorKind::InvalidArgument, "more device buffers than tensor parameters");
  return args;
}

} // namespace kina::runtime

namespace kina::runtime {

double defaultScalarValue(std::string_view scalarType, std::uint64_t seed, std::size_t index) {
  // splitmix64 of (seed, index): independent of the tensor fills.
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (index + 1) + 0x5CA1A5ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  if (scalarTypeIsFloat(scalarType))
    return 0.5 + double(z >> 11) / double(1ull << 53);
  return double(1 + (z % 8));
}

Result<std::map<std::string, double>> parseScalarsArgument(const std::string &text) {
  std::map<std::string, double> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t comma = text.find(',', pos);
    std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    auto trim = [](std::string s) {
      while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.erase(s.begin());
      while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.pop_back();
      return s;
    };
    item = trim(item);
    if (!item.empty()) {
      std::size_t eq = item.find('=');
      if (eq == std::string::npos)
        return makeError(ErrorKind::InvalidArgument,
                         "--scalars: expected NAME=VALUE, got `" + item + "`");
      std::string name = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
      char *end = nullptr;
      errno = 0;
      double v = std::strtod(value.c_str(), &end);
      if (name.empty() || value.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
        return makeError(ErrorKind::InvalidArgument,
                         "--scalars: `" + item + "` is not NAME=<finite number>");
      if (!out.emplace(name, v).second)
        return makeError(ErrorKind::InvalidArgument, "--scalars: `" + name + "` is given twice");
    }
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  return out;
}

} // namespace kina::runtime
