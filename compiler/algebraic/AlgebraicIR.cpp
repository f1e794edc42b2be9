//===- AlgebraicIR.cpp - Names, printer, verifier of the algebraic IR -----===//
#include "algebraic/AlgebraicIR.h"

#include <cctype>
#include <sstream>

namespace kina::algebraic {

const char *placementName(Placement p) { return p == Placement::Host ? "host" : "cuda:global"; }

std::string shardName(const TensorType &t) {
  std::string mesh = "[";
  for (size_t i = 0; i < t.mesh.size(); ++i)
    mesh += (i ? ", " : "") + std::to_string(t.mesh[i]);
  mesh += "]";
  switch (t.shard) {
  case Shard::None:
    return "";
  case Shard::Replicated:
    return "Replicated(mesh=" + mesh + ")";
  case Shard::Sharded:
    return "Sharded(dim=" + std::to_string(t.shardDim) + ", mesh=" + mesh + ")";
  case Shard::Partial:
    return "Partial(mesh=" + mesh + ")";
  }
  return "";
}

int64_t localExtent(const TensorType &t, size_t axis, int64_t logical) {
  if (t.shard == Shard::Sharded && int(axis) == t.shardDim && !t.mesh.empty())
    return logical / int64_t(t.mesh.size());
  return logical;
}

std::string printType(const TensorType &t) {
  std::string s = "Tensor[" + t.dtype + ", [";
  for (size_t i = 0; i < t.shape.size(); ++i)
    s += (i ? ", " : "") + t.shape[i];
  s += "]";
  if (t.onMesh())
    s += ", " + shardName(t);
  s += std::string(", on=") + placementName(t.on);
  if (t.on == Placement::Device && !t.onMesh() && t.device != 0)
    s += "(" + std::to_string(t.device) + ")";
  return s + "]";
}

const char *opName(OpKind k) {
  switch (k) {
  case OpKind::Param:
    return "param";
  case OpKind::CopyToDevice:
    return "copy_to_device";
  case OpKind::CopyToHost:
    return "copy_to_host";
  case OpKind::MatMul:
    return "matmul";
  case OpKind::Transpose:
    return "transpose";
  case OpKind::Add:
    return "add";
  case OpKind::Sub:
    return "sub";
  case OpKind::Mul:
    return "mul";
  case OpKind::Div:
    return "div";
  case OpKind::Max:
    return "max";
  case OpKind::Min:
    return "min";
  case OpKind::Relu:
    return "relu";
  case OpKind::Exp:
    return "exp";
  case OpKind::Neg:
    return "neg";
  case OpKind::Gelu:
    return "gelu";
  case OpKind::GeluTanh:
    return "gelu_tanh";
  case OpKind::Silu:
    return "silu";
  case OpKind::Softmax:
    return "softmax";
  case OpKind::LayerNorm:
    return "layernorm";
  case OpKind::RmsNorm:
    return "rmsnorm";
  case OpKind::Call:
    return "call";
  case OpKind::AllReduce:
    return "all_reduce";
  case OpKind::AllGather:
    return "all_gather";
  case OpKind::ReduceScatter:
    return "reduce_scatter";
  }
  return "?";
}

bool isElementwiseUnary(OpKind k) {
  return k == OpKind::Relu || k == OpKind::Exp || k == OpKind::Neg || k == OpKind::Gelu ||
         k == OpKind::GeluTanh || k == OpKind::Silu;
}

bool isElementwiseBinary(OpKind k) {
  return k == OpKind::Add || k == OpKind::Sub || k == OpKind::Mul || k == OpKind::Div ||
         k == OpKind::Max || k == OpKind::Min;
}

namespace {

const char *broadcastName(Broadcast b) {
  switch (b) {
  case Broadcast::Row:
    return "row";
  case Broadcast::Column:
    return "column";
  case Broadcast::Scalar:
    return "scalar";
  case Broadcast::None:
    break;
  }
  return "";
}

std::string scalarText(double v) {
  std::ostringstream os;
  os << v;
  std::string s = os.str();
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

} // namespace

std::string print(const Function &f) {
  std::ostringstream os;
  os << "algebraic fn " << f.name << " [";
  for (size_t i = 0; i < f.dims.size(); ++i)
    os << (i ? ", " : "") << f.dims[i];
  os << "]";
  for (const std::string &r : f.requirements)
    os << " requires (" << r << ")";
  os << " {\n";
  for (size_t i = 0; i < f.ops.size(); ++i) {
    const Op &op = f.ops[i];
    os << "  %" << i << " = ";
    if (op.kind == OpKind::Param) {
      os << "param " << op.name;
    } else {
      os << (op.kind == OpKind::Call ? "call @" + op.name : std::string(opName(op.kind)));
      for (int a : op.operands)
        os << " %" << a;
      if (op.broadcast == Broadcast::Scalar)
        os << " " << scalarText(op.scalar);
      if (op.broadcast != Broadcast::None)
        os << " {broadcast=" << broadcastName(op.broadcast) << "}";
    }
    os << " : " << printType(op.type);
    if (op.inserted)
      os << "  // inserted: " << op.insertedFor;
    else if (op.kind != OpKind::Param && op.kind != OpKind::Call && !op.name.empty())
      os << "  // " << op.name;
    os << "\n";
  }
  os << "  return %" << f.result << "\n}\n";
  return os.str();
}

std::vector<std::string> verify(const Function &f) {
  std::vector<std::string> errors;
  auto err = [&](size_t i, const std::string &what) {
    errors.push_back("%" + std::to_string(i) + " (" + opName(f.ops[i].kind) + "): " + what);
  };
  for (size_t i = 0; i < f.ops.size(); ++i) {
    const Op &op = f.ops[i];
    bool bad = false;
    for (int a : op.operands)
      if (a < 0 || size_t(a) >= i) {
        err(i, "operand %" + std::to_string(a) + " is not defined before its use");
        bad = true;
      }
    if (bad)
      continue;
    auto operand = [&](size_t k) -> const TensorType & { return f.ops[op.operands[k]].type; };
    auto want = [&](size_t n) {
      if (op.operands.size() == n)
        return true;
      err(i,
          "takes " + std::to_string(n) + " operand(s), has " + std::to_string(op.operands.size()));
      return false;
    };
    auto samePlacement = [&]() {
      for (size_t k = 0; k < op.operands.size(); ++k)
        if (!operand(k).samePlace(op.type)) {
          err(i, std::string("operand ") + std::to_string(k) + " is " + printType(operand(k)) +
                     ", the result " + printType(op.type));
          return false;
        }
      // Partial sums are read only where keepsPartialSums allows (issue 19).
      bool anyPartial = false, allPartial = true;
      for (size_t k = 0; k < op.operands.size(); ++k) {
        anyPartial |= operand(k).shard == Shard::Partial;
        allPartial &= operand(k).shard == Shard::Partial;
      }
      bool linear = ((op.kind == OpKind::Add || op.kind == OpKind::Sub) && allPartial &&
                     op.operands.size() == 2) ||
                    ((op.kind == OpKind::Mul || op.kind == OpKind::Div) &&
                     op.broadcast == Broadcast::Scalar) ||
                    op.kind == OpKind::Neg || op.kind == OpKind::Transpose;
      if (anyPartial && !linear) {
        err(i, "reads partial sums without an all_reduce");
        return false;
      }
      return true;
    };

    switch (op.kind) {
    case OpKind::Param:
      if (!op.operands.empty())
        err(i, "a parameter has no operands");
      break;
    case OpKind::CopyToDevice:
    case OpKind::CopyToHost: {
      if (!want(1))
        break;
      Placement from = op.kind == OpKind::CopyToDevice ? Placement::Host : Placement::Device;
      TensorType moved = operand(0);
      moved.on = from == Placement::Host ? Placement::Device : Placement::Host;
      bool peer = op.kind == OpKind::CopyToDevice && operand(0).on == Placement::Device &&
                  !operand(0).onMesh();
      if (operand(0).on != from && !peer)
        err(i, std::string("copies from ") + placementName(from) + ", operand is on " +
                   placementName(operand(0).on));
      else if (operand(0).shard == Shard::Sharded || operand(0).shard == Shard::Partial ||
               (op.kind == OpKind::CopyToDevice && operand(0).onMesh()))
        err(i, "copies a single-device or replicated tensor, operand is " + printType(operand(0)));
      else if (moved.dtype != op.type.dtype || moved.shape != op.type.shape || op.type.onMesh() ||
               op.type.on !=
                   (op.kind == OpKind::CopyToDevice ? Placement::Device : Placement::Host))
        err(i, "result type " + printType(op.type) + " is not the operand's moved, " +
                   printType(moved));
      break;
    }
    case OpKind::AllReduce:
    case OpKind::AllGather:
    case OpKind::ReduceScatter: {
      if (!want(1))
        break;
      const TensorType &x = operand(0);
      Shard in = op.kind == OpKind::AllGather ? Shard::Sharded : Shard::Partial;
      Shard out = op.kind == OpKind::ReduceScatter ? Shard::Sharded : Shard::Replicated;
      if (x.shard != in || op.type.shard != out || x.mesh != op.type.mesh ||
          x.shape != op.type.shape || x.dtype != op.type.dtype)
        err(i, "collective from " + printType(x) + " to " + printType(op.type));
      break;
    }
    case OpKind::MatMul: {
      if (!want(2) || !samePlacement())
        break;
      const TensorType &a = operand(0), &b = operand(1);
      if (a.shape.size() != 2 || b.shape.size() != 2 || op.type.shape.size() != 2)
        err(i, "operands and result must be 2-D");
      else if (a.shape[1] != b.shape[0])
        err(i, "inner dimensions differ: " + a.shape[1] + " and " + b.shape[0]);
      else if (op.type.shape[0] != a.shape[0] || op.type.shape[1] != b.shape[1])
        err(i, "result shape is not [" + a.shape[0] + ", " + b.shape[1] + "]");
      else if (a.dtype != b.dtype || a.dtype != op.type.dtype)
        err(i, "element types differ");
      break;
    }
    case OpKind::Transpose: {
      if (!want(1) || !samePlacement())
        break;
      const TensorType &a = operand(0);
      if (a.shape.size() != 2 || op.type.shape.size() != 2 || a.shape[0] != op.type.shape[1] ||
          a.shape[1] != op.type.shape[0])
        err(i, "result is not the operand's transpose");
      break;
    }
    case OpKind::Call:
      if (!samePlacement())
        break;
      if (op.type.on != Placement::Device)
        err(i, "a kernel takes and returns cuda:global tensors");
      break;
    case OpKind::Softmax:
    case OpKind::LayerNorm:
    case OpKind::RmsNorm: {
      size_t n = op.kind == OpKind::Softmax ? 1 : op.kind == OpKind::LayerNorm ? 3 : 2;
      if (!want(n) || !samePlacement())
        break;
      const TensorType &x = operand(0);
      if (x.shape.size() != 2 || !(x == op.type))
        err(i, "result type differs from the 2-D operand's");
      for (size_t k = 1; k < n; ++k)
        if (operand(k).shape.size() != 1 || operand(k).shape[0] != x.shape[1])
          err(i, "weight " + std::to_string(k) + " is not [" + x.shape[1] + "]");
      break;
    }
    default:
      if (isElementwiseUnary(op.kind)) {
        if (want(1) && samePlacement() && !(operand(0) == op.type))
          err(i, "result type differs from the operand's");
        break;
      }
      if (isElementwiseBinary(op.kind)) {
        size_t n = op.broadcast == Broadcast::Scalar ? 1 : 2;
        if (!want(n) || !samePlacement())
          break;
        const TensorType &x = operand(0);
        if (!(x == op.type)) {
          err(i, "result type differs from the first operand's");
          break;
        }
        if (n == 2) {
          const TensorType &y = operand(1);
          bool ok = false;
          switch (op.broadcast) {
          case Broadcast::None:
            ok = y.shape == x.shape;
            break;
          case Broadcast::Row:
            ok = x.shape.size() == 2 &&
                 ((y.shape.size() == 1 && y.shape[0] == x.shape[1]) ||
                  (y.shape.size() == 2 && y.shape[0] == "1" && y.shape[1] == x.shape[1]));
            break;
          case Broadcast::Column:
            ok = x.shape.size() == 2 && y.shape.size() == 2 && y.shape[0] == x.shape[0] &&
                 y.shape[1] == "1";
            break;
          case Broadcast::Scalar:
            break;
          }
          if (!ok)
            err(i, "second operand " + printType(y) + " does not broadcast as declared");
          if (y.dtype != x.dtype)
            err(i, "element types differ");
        }
      }
      break;
    }
  }
  if (f.result < 0 || size_t(f.result) >= f.ops.size())
    errors.push_back("the function returns no value");
  return errors;
}

namespace {

/// Recursive descent over + - * / mod and parentheses (the printed forms of
/// host-function shapes).
struct DimParser {
  const std::string &s;
  const std::map<std::string, int64_t> &dims;
  size_t p = 0;
  bool ok = true;
  void ws() {
    while (p < s.size() && s[p] == ' ')
      ++p;
  }
  int64_t atom() {
    ws();
    if (p < s.size() && s[p] == '(') {
      ++p;
      int64_t v = sum();
      ws();
      if (p < s.size() && s[p] == ')')
        ++p;
      else
        ok = false;
      return v;
    }
    if (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p]))) {
      int64_t v = 0;
      while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p])))
        v = v * 10 + (s[p++] - '0');
      return v;
    }
    size_t b = p;
    while (p < s.size() && (std::isalnum(static_cast<unsigned char>(s[p])) || s[p] == '_'))
      ++p;
    auto it = dims.find(s.substr(b, p - b));
    if (b == p || it == dims.end()) {
      ok = false;
      return 0;
    }
    return it->second;
  }
  int64_t product() {
    int64_t v = atom();
    for (;;) {
      ws();
      if (s.compare(p, 1, "*") == 0) {
        ++p;
        v *= atom();
      } else if (s.compare(p, 1, "/") == 0) {
        ++p;
        int64_t d = atom();
        if (d == 0 || v % d) {
          ok = false;
          return 0;
        }
        v /= d;
      } else if (s.compare(p, 3, "mod") == 0) {
        p += 3;
        int64_t d = atom();
        if (d == 0) {
          ok = false;
          return 0;
        }
        v %= d;
      } else {
        return v;
      }
    }
  }
  int64_t sum() {
    int64_t v = product();
    for (;;) {
      ws();
      if (s.compare(p, 1, "+") == 0) {
        ++p;
        v += product();
      } else if (s.compare(p, 1, "-") == 0) {
        ++p;
        v -= product();
      } else {
        return v;
      }
    }
  }
};

} // namespace

std::optional<int64_t> evalDim(const std::string &text,
                               const std::map<std::string, int64_t> &dims) {
  DimParser parser{text, dims};
  int64_t v = parser.sum();
  parser.ws();
  if (!parser.ok || parser.p != text.size())
    return std::nullopt;
  return v;
}

} // namespace kina::algebraic
