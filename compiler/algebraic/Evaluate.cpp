//===- Evaluate.cpp - CPU reference semantics of the algebraic IR ---------===//
#include "algebraic/Evaluate.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace kina::algebraic {

size_t Value::numel() const {
  size_t n = 1;
  for (int64_t d : shape)
    n *= size_t(d);
  return n;
}

namespace {

/// float -> bfloat16 -> float, round to nearest even (NaN stays NaN).
float roundBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return f;
  u += 0x7fffu + ((u >> 16) & 1u);
  u &= 0xffff0000u;
  std::memcpy(&f, &u, 4);
  return f;
}

} // namespace

double roundToDType(const std::string &dtype, double v) {
  if (dtype == "F32")
    return double(float(v));
  if (dtype == "BF16")
    return double(roundBf16(float(v)));
  if (dtype == "F16")
    return double(static_cast<_Float16>(float(v)));
  if (dtype == "I32" || dtype == "I64" || dtype == "I8" || dtype == "U8") {
    double lo = dtype == "I8" ? -128 : dtype == "U8" ? 0 : dtype == "I32" ? -2147483648.0 : -9.2e18;
    double hi = dtype == "I8" ? 127 : dtype == "U8" ? 255 : dtype == "I32" ? 2147483647.0 : 9.2e18;
    return std::clamp(std::nearbyint(v), lo, hi);
  }
  return v;
}

namespace {

double geluTanh(double x) {
  const double k = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}

} // namespace

namespace {

/// One operation on one device's (or the host's) values.
std::optional<std::string> evalOne(const Op &op, const std::vector<const Value *> &in, Value &out) {
  out.dtype = op.type.dtype;
  switch (op.kind) {
  case OpKind::Param:
    return "a parameter is not evaluated";
  case OpKind::Call:
    return "a kernel call is not evaluated here";
  case OpKind::CopyToDevice:
  case OpKind::CopyToHost:
    out = *in[0];
    break;
  case OpKind::MatMul: {
    const Value &a = *in[0], &b = *in[1];
    int64_t M = a.shape[0], K = a.shape[1], N = b.shape[1];
    out.shape = {M, N};
    out.data.assign(size_t(M * N), 0.0);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t k = 0; k < K; ++k) {
        double x = a.data[size_t(i * K + k)];
        const double *brow = &b.data[size_t(k * N)];
        double *orow = &out.data[size_t(i * N)];
        for (int64_t j = 0; j < N; ++j)
          orow[j] += x * brow[j];
      }
    break;
  }
  case OpKind::Transpose: {
    const Value &a = *in[0];
    int64_t R = a.shape[0], C = a.shape[1];
    out.shape = {C, R};
    out.data.resize(a.data.size());
    for (int64_t i = 0; i < R; ++i)
      for (int64_t j = 0; j < C; ++j)
        out.data[size_t(j * R + i)] = a.data[size_t(i * C + j)];
    break;
  }
  case OpKind::Softmax:
  case OpKind::LayerNorm:
  case OpKind::RmsNorm: {
    const Value &x = *in[0];
    int64_t R = x.shape[0], C = x.shape[1];
    out.shape = x.shape;
    out.data.resize(x.data.size());
    for (int64_t i = 0; i < R; ++i) {
      const double *row = &x.data[size_t(i * C)];
      double *o = &out.data[size_t(i * C)];
      if (op.kind == OpKind::Softmax) {
        double mx = -std::numeric_limits<double>::infinity(), sum = 0;
        for (int64_t j = 0; j < C; ++j)
          mx = std::max(mx, row[j]);
        for (int64_t j = 0; j < C; ++j)
          sum += (o[j] = std::exp(row[j] - mx));
        for (int64_t j = 0; j < C; ++j)
          o[j] /= sum;
      } else if (op.kind == OpKind::LayerNorm) {
        double mean = 0, var = 0;
        for (int64_t j = 0; j < C; ++j)
          mean += row[j];
        mean /= double(C);
        for (int64_t j = 0; j < C; ++j)
          var += (row[j] - mean) * (row[j] - mean);
        var /= double(C);
        double inv = 1.0 / std::sqrt(var + 1e-5);
        for (int64_t j = 0; j < C; ++j)
          o[j] = (row[j] - mean) * inv * in[1]->data[size_t(j)] + in[2]->data[size_t(j)];
      } else {
        double ms = 0;
        for (int64_t j = 0; j < C; ++j)
          ms += row[j] * row[j];
        double inv = 1.0 / std::sqrt(ms / double(C) + 1e-6);
        for (int64_t j = 0; j < C; ++j)
          o[j] = row[j] * inv * in[1]->data[size_t(j)];
      }
    }
    break;
  }
  default: {
    const Value &x = *in[0];
    out.shape = x.shape;
    out.data.resize(x.data.size());
    int64_t C = x.shape.size() == 2 ? x.shape[1] : 1;
    for (size_t i = 0; i < x.data.size(); ++i) {
      double a = x.data[i], b = 0;
      if (isElementwiseBinary(op.kind)) {
        switch (op.broadcast) {
        case Broadcast::None:
          b = in[1]->data[i];
          break;
        case Broadcast::Row:
          b = in[1]->data[i % size_t(C)];
          break;
        case Broadcast::Column:
          b = in[1]->data[i / size_t(C)];
          break;
        case Broadcast::Scalar:
          b = op.scalar;
          break;
        }
      }
      double r = 0;
      switch (op.kind) {
      case OpKind::Add:
        r = a + b;
        break;
      case OpKind::Sub:
        r = a - b;
        break;
      case OpKind::Mul:
        r = a * b;
        break;
      case OpKind::Div:
        r = a / b;
        break;
      case OpKind::Max:
        r = std::max(a, b);
        break;
      case OpKind::Min:
        r = std::min(a, b);
        break;
      case OpKind::Relu:
        r = a > 0 ? a : 0;
        break;
      case OpKind::Exp:
        r = std::exp(a);
        break;
      case OpKind::Neg:
        r = -a;
        break;
      case OpKind::Gelu:
        r = 0.5 * a * (1.0 + std::erf(a / std::sqrt(2.0)));
        break;
      case OpKind::GeluTanh:
        r = geluTanh(a);
        break;
      case OpKind::Silu:
        r = a / (1.0 + std::exp(-a));
        break;
      default:
        return std::string("no reference for `") + opName(op.kind) + "`";
      }
      out.data[i] = r;
    }
    break;
  }
  }
  return std::nullopt;
}

int64_t product(const std::vector<int64_t> &s, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t i = from; i < to && i < s.size(); ++i)
    n *= s[i];
  return n;
}

/// Block `i` of `n` of `whole` along axis `d`.
Value block(const Value &whole, int d, size_t i, size_t n) {
  Value b;
  b.dtype = whole.dtype;
  b.shape = whole.shape;
  int64_t outer = product(whole.shape, 0, size_t(d)), ext = whole.shape[size_t(d)];
  int64_t inner = product(whole.shape, size_t(d) + 1, whole.shape.size());
  int64_t len = ext / int64_t(n);
  b.shape[size_t(d)] = len;
  b.data.reserve(size_t(outer * len * inner));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t r = int64_t(i) * len; r < int64_t(i + 1) * len; ++r)
      for (int64_t c = 0; c < inner; ++c)
        b.data.push_back(whole.data[size_t((o * ext + r) * inner + c)]);
  return b;
}

/// The blocks concatenated along axis `d`.
Value concat(const std::vector<Value> &parts, int d) {
  Value w;
  w.dtype = parts[0].dtype;
  w.shape = parts[0].shape;
  int64_t len = parts[0].shape[size_t(d)];
  w.shape[size_t(d)] = len * int64_t(parts.size());
  int64_t outer = product(w.shape, 0, size_t(d)),
          inner = product(w.shape, size_t(d) + 1, w.shape.size());
  w.data.resize(w.numel());
  for (size_t p = 0; p < parts.size(); ++p)
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t r = 0; r < len; ++r)
        for (int64_t c = 0; c < inner; ++c)
          w.data[size_t((o * w.shape[size_t(d)] + int64_t(p) * len + r) * inner + c)] =
              parts[p].data[size_t((o * len + r) * inner + c)];
  return w;
}

/// The sum of the parts, rounded once to the element type (NCCL's sum of
/// two partial sums rounds once; with more devices it may round at each
/// step of its ring, within the same tolerance).
Value sum(const std::vector<Value> &parts) {
  Value w = parts[0];
  for (size_t p = 1; p < parts.size(); ++p)
    for (size_t i = 0; i < w.data.size(); ++i)
      w.data[i] += parts[p].data[i];
  for (double &x : w.data)
    x = roundToDType(w.dtype, x);
  return w;
}

} // namespace

Value distribute(const Value &whole, const TensorType &t) {
  if (!t.onMesh())
    return whole;
  Value v;
  v.dtype = whole.dtype;
  v.shape = whole.shape;
  for (size_t i = 0; i < t.mesh.size(); ++i) {
    if (t.shard == Shard::Sharded)
      v.parts.push_back(block(whole, t.shardDim, i, t.mesh.size()));
    else if (t.shard == Shard::Partial && i > 0) { // the whole on the first device, zeros elsewhere
      Value z = whole;
      std::fill(z.data.begin(), z.data.end(), 0.0);
      v.parts.push_back(std::move(z));
    } else
      v.parts.push_back(whole);
  }
  return v;
}

Value gather(const Value &v, const TensorType &t) {
  if (v.parts.empty())
    return v;
  if (t.shard == Shard::Sharded)
    return concat(v.parts, t.shardDim);
  if (t.shard == Shard::Partial)
    return sum(v.parts);
  return v.parts[0];
}

std::optional<std::string> evaluateOps(const Function &f, const std::vector<int> &ops,
                                       std::map<int, Value> &values, bool roundEach) {
  for (size_t n = 0; n < ops.size(); ++n) {
    int v = ops[n];
    const Op &op = f.ops[v];
    std::vector<const Value *> in;
    bool mesh = op.type.onMesh();
    for (int a : op.operands) {
      auto it = values.find(a);
      if (it == values.end())
        return "operand %" + std::to_string(a) + " of %" + std::to_string(v) + " has no value";
      in.push_back(&it->second);
      mesh |= !it->second.parts.empty();
    }
    Value out;
    out.dtype = op.type.dtype;
    if (op.kind == OpKind::AllReduce || op.kind == OpKind::AllGather ||
        op.kind == OpKind::ReduceScatter) {
      // Collectives: what NCCL computes, from every device's part.
      const TensorType &from = f.ops[op.operands[0]].type;
      if (in[0]->parts.size() != from.mesh.size() || from.mesh.empty())
        return "%" + std::to_string(v) + ": the operand is not on its mesh";
      Value whole =
          op.kind == OpKind::AllGather ? concat(in[0]->parts, from.shardDim) : sum(in[0]->parts);
      out = distribute(whole, op.type);
    } else if (mesh && op.kind == OpKind::CopyToHost) {
      out = in[0]->parts.at(0); // a replicated tensor: device mesh[0]'s copy
    } else if (mesh) {
      // On every device of the mesh, over its local blocks.
      size_t devices = 0;
      for (const Value *x : in)
        devices = std::max(devices, x->parts.size());
      for (size_t d = 0; d < devices; ++d) {
        std::vector<const Value *> local;
        for (const Value *x : in) {
          if (x->parts.size() != devices)
            return "%" + std::to_string(v) + ": operands on different meshes";
          local.push_back(&x->parts[d]);
        }
        Value part;
        if (auto err = evalOne(op, local, part))
          return err;
        out.parts.push_back(std::move(part));
      }
      out.shape = out.parts.empty() ? std::vector<int64_t>{} : out.parts[0].shape;
      if (op.type.shard == Shard::Sharded && !out.shape.empty())
        out.shape[size_t(op.type.shardDim)] *= int64_t(devices);
    } else if (auto err = evalOne(op, in, out)) {
      return err;
    }
    if (roundEach || n + 1 == ops.size()) {
      for (double &d : out.data)
        d = roundToDType(out.dtype, d);
      for (Value &p : out.parts)
        for (double &d : p.data)
          d = roundToDType(out.dtype, d);
    }
    values[v] = std::move(out);
  }
  return std::nullopt;
}

} // namespace kina::algebraic
