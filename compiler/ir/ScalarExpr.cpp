//===- ScalarExpr.cpp - Run-time scalar operands of the tile IR -----------===//
//
// Immutable nodes and accessors of ir::ScalarExpr.
//
//===----------------------------------------------------------------------===//
#include "ir/ScalarExpr.h"

namespace kina::ir {

struct ScalarExpr::Node {
  Kind kind = Kind::Const;
  DType dtype = DType::F32;
  double value = 0.0;
  ScalarId param = 0;
  uint8_t op = 0; ///< Math: the ir::UnaryKind
  IndexExpr index;
  std::shared_ptr<const Node> lhs, rhs;
};

ScalarExpr::ScalarExpr() : ScalarExpr(0.0) {}

ScalarExpr::ScalarExpr(double value) {
  auto n = std::make_shared<Node>();
  n->value = value;
  node_ = std::move(n);
}

ScalarExpr ScalarExpr::param(ScalarId id, DType dtype) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Param;
  n->param = id;
  n->dtype = dtype;
  return ScalarExpr(std::move(n));
}

ScalarExpr ScalarExpr::index(IndexExpr e, DType dtype) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Index;
  n->index = std::move(e);
  n->dtype = dtype;
  return ScalarExpr(std::move(n));
}

ScalarExpr ScalarExpr::convert(ScalarExpr e, DType dtype) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Convert;
  n->lhs = std::move(e.node_);
  n->dtype = dtype;
  return ScalarExpr(std::move(n));
}

ScalarExpr ScalarExpr::neg(ScalarExpr e, DType dtype) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Neg;
  n->lhs = std::move(e.node_);
  n->dtype = dtype;
  return ScalarExpr(std::move(n));
}

ScalarExpr ScalarExpr::math(uint8_t unaryKind, ScalarExpr e, DType dtype) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Math;
  n->op = unaryKind;
  n->lhs = std::move(e.node_);
  n->dtype = dtype;
  return ScalarExpr(std::move(n));
}

ScalarExpr ScalarExpr::binary(Kind k, ScalarExpr lhs, ScalarExpr rhs, DType dtype) {
  auto n = std::make_shared<Node>();
  n->kind = k >= Kind::Add && k <= Kind::Div ? k : Kind::Add;
  n->lhs = std::move(lhs.node_);
  n->rhs = std::move(rhs.node_);
  n->dtype = dtype;
  return ScalarExpr(std::move(n));
}

ScalarExpr::Kind ScalarExpr::kind() const { return node_->kind; }
DType ScalarExpr::dtype() const { return node_->dtype; }
double ScalarExpr::value() const { return node_->value; }
ScalarId ScalarExpr::param() const { return node_->param; }
uint8_t ScalarExpr::mathKind() const { return node_->op; }
const IndexExpr &ScalarExpr::index() const { return node_->index; }

const ScalarExpr &ScalarExpr::operand() const {
  // A ScalarExpr is one shared_ptr, so a child pointer is viewed in place.
  static_assert(sizeof(ScalarExpr) == sizeof(std::shared_ptr<const Node>));
  return *reinterpret_cast<const ScalarExpr *>(&node_->lhs);
}
const ScalarExpr &ScalarExpr::lhs() const { return operand(); }
const ScalarExpr &ScalarExpr::rhs() const {
  return *reinterpret_cast<const ScalarExpr *>(&node_->rhs);
}

std::optional<double> ScalarExpr::asConstant() const {
  if (node_->kind == Kind::Const)
    return node_->value;
  return std::nullopt;
}

const char *scalarKindSpelling(ScalarExpr::Kind k) {
  using K = ScalarExpr::Kind;
  switch (k) {
  case K::Const:
    return "const";
  case K::Param:
    return "param";
  case K::Index:
    return "index";
  case K::Convert:
    return "convert";
  case K::Neg:
    return "neg";
  case K::Add:
    return "+";
  case K::Sub:
    return "-";
  case K::Mul:
    return "*";
  case K::Div:
    return "/";
  case K::Math:
    return "math";
  }
  return "?";
}

} // namespace kina::ir
