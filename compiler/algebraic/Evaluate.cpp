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

std::optional<std::string> evaluateOps(const Function &f, const std::vector<int> &ops,
                                       std::map<int, Value> &values, bool roundEach) {
  for (size_t n = 0; n < ops.size(); ++n) {
    int v = ops[n];
    const Op &op = f.ops[v];
    std::vector<const Value *> in;
    for (int a : op.operands) {
      auto it = values.find(a);
      if (it == values.end())
        return "operand %" + std::to_string(a) + " of %" + std::to_string(v) + " has no value";
      in.push_back(&it->second);
    }
    Value out;
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
    if (roundEach || n + 1 == ops.size())
      for (double &d : out.data)
        d = roundToDType(out.dtype, d);
    values[v] = std::move(out);
  }
  return std::nullopt;
}

} // namespace kina::algebraic
