//===- Npy.cpp - NumPy .npy reader and writer ------------------------------===//
//
// A strict parser for the header dictionary NumPy writes
// ({'descr': ..., 'fortran_order': ..., 'shape': (...), }) and the matching
// writer; see Npy.h for the dtype conventions.
//
//===----------------------------------------------------------------------===//
#include "runtime/Npy.h"
#include "runtime/Device.h"

#include <cctype>
#include <fstream>
#include <optional>

namespace kina::runtime {

namespace {

/// The header dictionary, parsed.
struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  std::vector<std::int64_t> shape;
  bool haveDescr = false, haveOrder = false, haveShape = false;
};

class HeaderParser {
public:
  explicit HeaderParser(std::string_view text) : s_(text) {}

  std::optional<std::string> parse(NpyHeader &h) {
    skipWs();
    if (!eat('{'))
      return "header does not start with '{'";
    while (true) {
      skipWs();
      if (eat('}'))
        break;
      auto key = parseString();
      if (!key)
        return "expected a quoted key in the header";
      skipWs();
      if (!eat(':'))
        return "expected ':' after '" + *key + "'";
      skipWs();
      if (*key == "descr") {
        auto v = parseString();
        if (!v)
          return std::string("'descr' must be a string (structured dtypes are not supported)");
        h.descr = *v;
        h.haveDescr = true;
      } else if (*key == "fortran_order") {
        if (eatWord("True"))
          h.fortranOrder = true;
        else if (eatWord("False"))
          h.fortranOrder = false;
        else
          return std::string("'fortran_order' must be True or False");
        h.haveOrder = true;
      } else if (*key == "shape") {
        if (auto err = parseShape(h.shape))
          return err;
        h.haveShape = true;
      } else {
        return "unexpected key '" + *key + "' in the header";
      }
      skipWs();
      if (eat(','))
        continue;
      skipWs();
      if (eat('}'))
        break;
      return std::string("expected ',' or '}' in the header");
    }
    if (!h.haveDescr || !h.haveOrder || !h.haveShape)
      return std::string("header lacks 'descr', 'fortran_order' or 'shape'");
    return std::nullopt;
  }

private:
  void skipWs() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_])))
      ++i_;
  }
  bool eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool eatWord(std::string_view w) {
    if (s_.substr(i_, w.size()) == w) {
      i_ += w.size();
      return true;
    }
    return false;
  }
  std::optional<std::string> parseString() {
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"'))
      return std::nullopt;
    char q = s_[i_++];
    std::string out;
    while (i_ < s_.size() && s_[i_] != q)
      out.push_back(s_[i_++]);
    if (!eat(q))
      return std::nullopt;
    return out;
  }
  std::optional<std::string> parseShape(std::vector<std::int64_t> &shape) {
    if (!eat('('))
      return std::string("'shape' must be a tuple");
    while (true) {
      skipWs();
      if (eat(')'))
        return std::nullopt;
      std::size_t start = i_;
      std::int64_t v = 0;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
        if (v > (std::int64_t(1) << 50))
          return std::string("shape extent too large");
        v = v * 10 + (s_[i_++] - '0');
      }
      if (i_ == start)
        return std::string("'shape' must hold non-negative integers");
      eat('L'); // Python 2 longs
      shape.push_back(v);
      skipWs();
      if (eat(','))
        continue;
      skipWs();
      if (eat(')'))
        return std::nullopt;
      return std::string("malformed 'shape' tuple");
    }
  }
  std::string_view s_;
  std::size_t i_ = 0;
};

std::optional<DType> dtypeForDescr(const std::string &descr, std::string &why) {
  if (descr.size() < 2) {
    why = "unsupported dtype '" + descr + "'";
    return std::nullopt;
  }
  char order = descr[0];
  std::string code = descr.substr(1);
  if (order == '>' && code != "i1" && code != "u1") {
    why = "big-endian data ('" + descr +
          "') is not supported: save with "
          "arr.astype(arr.dtype.newbyteorder('<'))";
    return std::nullopt;
  }
  if (order != '<' && order != '|' && order != '=' && order != '>') {
    // A bare code like 'V2'.
    code = descr;
  }
  if (code == "f2")
    return DType::F16;
  if (code == "f4")
    return DType::F32;
  if (code == "i1")
    return DType::I8;
  if (code == "i4")
    return DType::I32;
  if (code == "f8")
    return DType::F64;
  if (code == "u1")
    return DType::U8;
  if (code == "i8")
    return DType::I64;
  if (code == "u2" || code == "i2" || code == "V2")
    return DType::BF16;
  why = "unsupported dtype '" + descr +
        "' (Kina reads <f2, <f4, <f8, |i1, |u1, <i4, <i8, and <u2 for bf16)";
  return std::nullopt;
}

const char *numpyName(DType t) {
  switch (t) {
  case DType::F16:
    return "float16";
  case DType::BF16:
    return "uint16";
  case DType::F32:
    return "float32";
  case DType::F64:
    return "float64";
  case DType::I8:
    return "int8";
  case DType::U8:
    return "uint8";
  case DType::I32:
    return "int32";
  case DType::I64:
    return "int64";
  }
  return "float32";
}

std::string descrFor(DType t) {
  switch (t) {
  case DType::F16:
    return "<f2";
  case DType::BF16:
    return "<u2";
  case DType::F32:
    return "<f4";
  case DType::I8:
    return "|i1";
  case DType::F64:
    return "<f8";
  case DType::U8:
    return "|u1";
  case DType::I32:
    return "<i4";
  case DType::I64:
    return "<i8";
  }
  return "";
}

} // namespace

Result<HostTensor> parseNpy(std::span<const std::uint8_t> d, const std::string &label) {
  auto fail = [&](const std::string &why) {
    return makeError(ErrorKind::InvalidNpy, label + ": " + why);
  };
  static const std::uint8_t magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (d.size() < 10 || !std::equal(magic, magic + 6, d.begin()))
    return fail("not a .npy file (missing \\x93NUMPY magic)");
  std::uint8_t major = d[6];
  std::size_t headerLen, offset;
  if (major == 1) {
    headerLen = std::size_t(d[8]) | std::size_t(d[9]) << 8;
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (d.size() < 12)
      return fail("truncated header");
    headerLen = std::size_t(d[8]) | std::size_t(d[9]) << 8 | std::size_t(d[10]) << 16 |
                std::size_t(d[11]) << 24;
    offset = 12;
  } else {
    return fail("unsupported .npy format version " + std::to_string(major));
  }
  if (headerLen > d.size() - offset)
    return fail("truncated header");
  std::string_view text(reinterpret_cast<const char *>(d.data() + offset), headerLen);
  NpyHeader h;
  if (auto err = HeaderParser(text).parse(h))
    return fail(*err);
  if (h.fortranOrder)
    return fail("Fortran-order arrays are not supported: save np.ascontiguousarray(arr)");
  std::string why;
  auto dt = dtypeForDescr(h.descr, why);
  if (!dt)
    return fail(why);
  std::size_t n = 1;
  for (std::int64_t e : h.shape) {
    if (e != 0 && n > (std::size_t(1) << 48) / std::size_t(e))
      return fail("shape " + shapeString(h.shape) + " is too large");
    n *= std::size_t(e);
  }
  std::size_t dataBytes = n * dtypeSize(*dt);
  std::size_t have = d.size() - offset - headerLen;
  if (have != dataBytes)
    return fail("shape " + shapeString(h.shape) + " of '" + h.descr + "' needs " +
                std::to_string(dataBytes) + " data bytes, the file has " + std::to_string(have));
  HostTensor t(*dt, h.shape);
  std::copy(d.begin() + std::ptrdiff_t(offset + headerLen), d.end(), t.bytes.begin());
  return t;
}

Result<HostTensor> readNpy(const std::string &path) {
  auto bytes = readFileBytes(path);
  if (!bytes)
    return bytes.takeError();
  const std::string &b = *bytes;
  return parseNpy(
      std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t *>(b.data()), b.size()),
      path);
}

Result<HostTensor> readNpyFor(const std::string &path, const std::string &param, DType dtype,
                              const std::vector<std::int64_t> &shape) {
  auto t = readNpy(path);
  if (!t)
    return t;
  std::string want = std::string(dtypeName(dtype)) + shapeString(shape);
  if (t->dtype != dtype || t->shape != shape) {
    std::string hint;
    if (t->dtype != dtype)
      hint = dtype == DType::BF16
                 ? " (save bf16 as its raw bits: the top 16 bits of float32, "
                   "(a.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16))"
                 : std::string(" (save it with arr.astype(np.") + numpyName(dtype) + "))";
    return makeError(ErrorKind::InvalidNpy, path + " holds " + t->typeString() +
                                                " but parameter `" + param + "` is " + want + hint);
  }
  return t;
}

std::vector<std::uint8_t> encodeNpy(const HostTensor &t) {
  std::string dict = "{'descr': '" + descrFor(t.dtype) + "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < t.shape.size(); ++i)
    dict += std::to_string(t.shape[i]) +
            (t.shape.size() == 1 || i + 1 < t.shape.size() ? "," : "") +
            (i + 1 < t.shape.size() ? " " : "");
  dict += "), }";
  // Pad with spaces so that magic + version + length + header is a multiple
  // of 64 bytes, ending in '\n' (NumPy's layout).
  std::size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict.push_back('\n');
  std::vector<std::uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  out.push_back(std::uint8_t(dict.size() & 0xff));
  out.push_back(std::uint8_t(dict.size() >> 8));
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), t.bytes.begin(), t.bytes.end());
  return out;
}

Status writeNpy(const std::string &path, const HostTensor &t) {
  std::vector<std::uint8_t> img = encodeNpy(t);
  std::ofstream out(path, std::ios::binary);
  if (!out)
    return makeError(ErrorKind::Io, "cannot create " + path);
  out.write(reinterpret_cast<const char *>(img.data()), std::streamsize(img.size()));
  if (!out)
    return makeError(ErrorKind::Io, "cannot write " + path);
  return {};
}

} // namespace kina::runtime
