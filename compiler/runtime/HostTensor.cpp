//===- HostTensor.cpp - Host arrays in device encoding ---------------------===//
//
// Element access for HostTensor, converting between double and the stored
// encoding of each DType.
//
//===----------------------------------------------------------------------===//
#include "runtime/HostTensor.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace kina::runtime {

std::size_t shapeNumel(const std::vector<std::int64_t> &shape) {
  std::size_t n = 1;
  for (std::int64_t d : shape)
    n *= std::size_t(d < 0 ? 0 : d);
  return n;
}

std::string shapeString(const std::vector<std::int64_t> &shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

HostTensor::HostTensor(DType dt, std::vector<std::int64_t> sh)
    : dtype(dt), shape(std::move(sh)), bytes(shapeNumel(shape) * dtypeSize(dt), 0) {}

std::size_t HostTensor::numel() const { return bytes.size() / dtypeSize(dtype); }

double HostTensor::get(std::size_t i) const {
  const std::uint8_t *p = bytes.data() + i * dtypeSize(dtype);
  switch (dtype) {
  case DType::F16: {
    std::uint16_t h;
    std::memcpy(&h, p, 2);
    return halfToFloat(h);
  }
  case DType::BF16: {
    std::uint16_t h;
    std::memcpy(&h, p, 2);
    return bf16ToFloat(h);
  }
  case DType::F32: {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  case DType::F64: {
    double f;
    std::memcpy(&f, p, 8);
    return f;
  }
  case DType::I8:
    return double(std::int8_t(*p));
  case DType::U8:
    return double(*p);
  case DType::I32: {
    std::int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case DType::I64: {
    std::int64_t v;
    std::memcpy(&v, p, 8);
    return double(v);
  }
  }
  return 0;
}

template <typename I> static I saturate(double v) {
  if (std::isnan(v))
    return 0;
  double r = std::nearbyint(v);
  if (r <= double(std::numeric_limits<I>::min()))
    return std::numeric_limits<I>::min();
  if (r >= double(std::numeric_limits<I>::max()))
    return std::numeric_limits<I>::max();
  return I(r);
}

void HostTensor::set(std::size_t i, double v) {
  std::uint8_t *p = bytes.data() + i * dtypeSize(dtype);
  switch (dtype) {
  case DType::F16: {
    std::uint16_t h = floatToHalf(float(v));
    std::memcpy(p, &h, 2);
    return;
  }
  case DType::BF16: {
    std::uint16_t h = floatToBf16(float(v));
    std::memcpy(p, &h, 2);
    return;
  }
  case DType::F32: {
    float f = float(v);
    std::memcpy(p, &f, 4);
    return;
  }
  case DType::F64:
    std::memcpy(p, &v, 8);
    return;
  case DType::I8:
    *p = std::uint8_t(saturate<std::int8_t>(v));
    return;
  case DType::U8:
    *p = saturate<std::uint8_t>(v);
    return;
  case DType::I32: {
    std::int32_t x = saturate<std::int32_t>(v);
    std::memcpy(p, &x, 4);
    return;
  }
  case DType::I64: {
    std::int64_t x = saturate<std::int64_t>(v);
    std::memcpy(p, &x, 8);
    return;
  }
  }
}

std::string HostTensor::indexString(std::size_t i) const {
  std::vector<std::int64_t> idx(shape.size(), 0);
  for (std::size_t d = shape.size(); d-- > 0;) {
    std::int64_t ext = shape[d] > 0 ? shape[d] : 1;
    idx[d] = std::int64_t(i % std::size_t(ext));
    i /= std::size_t(ext);
  }
  return shapeString(idx);
}

std::string HostTensor::typeString() const {
  return std::string(dtypeName(dtype)) + shapeString(shape);
}

} // namespace kina::runtime
