//===- IndexExpr.cpp - Index expressions of the tile IR -------------------===//
//
// Immutable expression nodes, constant folding and structural queries.
//
//===----------------------------------------------------------------------===//
#include "ir/IndexExpr.h"

namespace kina::ir {

struct IndexExpr::Node {
  Kind kind = Kind::Const;
  int64_t value = 0;  // Const
  unsigned index = 0; // leaves
  std::shared_ptr<const Node> lhs, rhs;
};

namespace {
using Kind = IndexExpr::Kind;
bool isLeafKind(Kind k) { return k <= Kind::Var; }
} // namespace

IndexExpr::IndexExpr() : IndexExpr(constant(0)) {}

IndexExpr IndexExpr::constant(int64_t v) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Const;
  n->value = v;
  return IndexExpr(std::move(n));
}

IndexExpr IndexExpr::dim(DimId d) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Dim;
  n->index = d;
  return IndexExpr(std::move(n));
}
IndexExpr IndexExpr::blockId(unsigned axis) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::BlockId;
  n->index = axis;
  return IndexExpr(std::move(n));
}
IndexExpr IndexExpr::warpId(unsigned axis) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::WarpId;
  n->index = axis;
  return IndexExpr(std::move(n));
}
IndexExpr IndexExpr::warpgroupId() {
  auto n = std::make_shared<Node>();
  n->kind = Kind::WarpgroupId;
  return IndexExpr(std::move(n));
}
IndexExpr IndexExpr::clusterRank() {
  auto n = std::make_shared<Node>();
  n->kind = Kind::ClusterRank;
  return IndexExpr(std::move(n));
}
IndexExpr IndexExpr::var(VarId v) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Var;
  n->index = v;
  return IndexExpr(std::move(n));
}

IndexExpr IndexExpr::binary(Kind k, IndexExpr lhs, IndexExpr rhs) {
  auto n = std::make_shared<Node>();
  n->kind = isLeafKind(k) || k == Kind::Not ? Kind::Add : k;
  n->lhs = std::move(lhs.node_);
  n->rhs = std::move(rhs.node_);
  return IndexExpr(std::move(n));
}

IndexExpr IndexExpr::logicalNot(IndexExpr e) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Not;
  n->lhs = std::move(e.node_);
  return IndexExpr(std::move(n));
}

IndexExpr::Kind IndexExpr::kind() const { return node_->kind; }
bool IndexExpr::isLeaf() const { return isLeafKind(node_->kind); }
bool IndexExpr::isBoolean() const { return node_->kind >= Kind::Eq; }
int64_t IndexExpr::value() const { return node_->value; }
unsigned IndexExpr::index() const { return node_->index; }

const IndexExpr &IndexExpr::lhs() const {
  // IndexExpr is a single shared_ptr, so a node pointer can be viewed as an
  // IndexExpr without copying.
  static_assert(sizeof(IndexExpr) == sizeof(std::shared_ptr<const Node>));
  return *reinterpret_cast<const IndexExpr *>(&node_->lhs);
}
const IndexExpr &IndexExpr::rhs() const {
  return *reinterpret_cast<const IndexExpr *>(&node_->rhs);
}

std::optional<int64_t> IndexExpr::asConstant() const {
  const Node &n = *node_;
  if (n.kind == Kind::Const)
    return n.value;
  if (isLeafKind(n.kind))
    return std::nullopt;
  auto l = lhs().asConstant();
  if (!l)
    return std::nullopt;
  if (n.kind == Kind::Not)
    return *l == 0 ? 1 : 0;
  auto r = rhs().asConstant();
  if (!r)
    return std::nullopt;
  switch (n.kind) {
  case Kind::Add:
    return *l + *r;
  case Kind::Sub:
    return *l - *r;
  case Kind::Mul:
    return *l * *r;
  case Kind::Div:
    if (*r == 0)
      return std::nullopt;
    return *l / *r;
  case Kind::Mod:
    if (*r == 0)
      return std::nullopt;
    return ((*l % *r) + *r) % *r;
  case Kind::FloorDiv:
    if (*r <= 0)
      return std::nullopt;
    return *l >= 0 ? *l / *r : -((-*l + *r - 1) / *r);
  case Kind::CeilDiv:
    if (*r <= 0)
      return std::nullopt;
    return *l >= 0 ? (*l + *r - 1) / *r : -((-*l) / *r);
  case Kind::Eq:
    return *l == *r;
  case Kind::Ne:
    return *l != *r;
  case Kind::Lt:
    return *l < *r;
  case Kind::Le:
    return *l <= *r;
  case Kind::Gt:
    return *l > *r;
  case Kind::Ge:
    return *l >= *r;
  case Kind::And:
    return (*l != 0) && (*r != 0);
  case Kind::Or:
    return (*l != 0) || (*r != 0);
  default:
    return std::nullopt;
  }
}

bool provablyNonNegative(const IndexExpr &e, const std::function<bool(unsigned)> &varNonNegative) {
  using K = IndexExpr::Kind;
  switch (e.kind()) {
  case K::Const:
    return e.value() >= 0;
  case K::Dim:
  case K::BlockId:
  case K::WarpId:
  case K::WarpgroupId:
  case K::ClusterRank:
  case K::Mod:
    return true;
  case K::Var:
    return varNonNegative(e.index());
  case K::Add:
  case K::Mul:
  case K::Div:
  case K::FloorDiv:
  case K::CeilDiv:
    return provablyNonNegative(e.lhs(), varNonNegative) &&
           provablyNonNegative(e.rhs(), varNonNegative);
  default:
    return false;
  }
}

bool IndexExpr::anyLeaf(const std::function<bool(const IndexExpr &)> &pred) const {
  if (isLeaf())
    return pred(*this);
  if (lhs().anyLeaf(pred))
    return true;
  return node_->kind != Kind::Not && rhs().anyLeaf(pred);
}

bool IndexExpr::structurallyEqual(const IndexExpr &other) const {
  if (node_ == other.node_)
    return true;
  if (kind() != other.kind())
    return false;
  switch (kind()) {
  case Kind::Const:
    return value() == other.value();
  case Kind::Dim:
  case Kind::BlockId:
  case Kind::WarpId:
  case Kind::WarpgroupId:
  case Kind::ClusterRank:
  case Kind::Var:
    return index() == other.index();
  case Kind::Not:
    return lhs().structurallyEqual(other.lhs());
  default:
    return lhs().structurallyEqual(other.lhs()) && rhs().structurallyEqual(other.rhs());
  }
}

IndexExpr operator+(IndexExpr a, IndexExpr b) {
  return IndexExpr::binary(Kind::Add, std::move(a), std::move(b));
}
IndexExpr operator-(IndexExpr a, IndexExpr b) {
  return IndexExpr::binary(Kind::Sub, std::move(a), std::move(b));
}
IndexExpr operator*(IndexExpr a, IndexExpr b) {
  return IndexExpr::binary(Kind::Mul, std::move(a), std::move(b));
}
IndexExpr operator+(IndexExpr a, int64_t b) { return std::move(a) + IndexExpr::constant(b); }
IndexExpr operator*(IndexExpr a, int64_t b) { return std::move(a) * IndexExpr::constant(b); }
IndexExpr exactDiv(IndexExpr a, int64_t divisor) {
  return IndexExpr::binary(Kind::Div, std::move(a), IndexExpr::constant(divisor));
}
IndexExpr mod(IndexExpr a, int64_t divisor) {
  return IndexExpr::binary(Kind::Mod, std::move(a), IndexExpr::constant(divisor));
}
IndexExpr div(IndexExpr a, IndexExpr divisor) {
  return IndexExpr::binary(Kind::Div, std::move(a), std::move(divisor));
}
IndexExpr mod(IndexExpr a, IndexExpr divisor) {
  return IndexExpr::binary(Kind::Mod, std::move(a), std::move(divisor));
}

IndexExpr floorDiv(IndexExpr a, int64_t divisor) {
  return IndexExpr::binary(Kind::FloorDiv, std::move(a), IndexExpr::constant(divisor));
}
IndexExpr ceilDiv(IndexExpr a, int64_t divisor) {
  return IndexExpr::binary(Kind::CeilDiv, std::move(a), IndexExpr::constant(divisor));
}

const char *indexKindSpelling(IndexExpr::Kind k) {
  switch (k) {
  case Kind::FloorDiv:
    return "floor_div";
  case Kind::CeilDiv:
    return "ceil_div";
  case Kind::Add:
    return "+";
  case Kind::Sub:
    return "-";
  case Kind::Mul:
    return "*";
  case Kind::Div:
    return "/";
  case Kind::Mod:
    return "mod";
  case Kind::Eq:
    return "=";
  case Kind::Ne:
    return "!=";
  case Kind::Lt:
    return "<";
  case Kind::Le:
    return "<=";
  case Kind::Gt:
    return ">";
  case Kind::Ge:
    return ">=";
  case Kind::And:
    return "and";
  case Kind::Or:
    return "or";
  case Kind::Not:
    return "not";
  case Kind::Const:
    return "const";
  case Kind::Dim:
    return "dim";
  case Kind::BlockId:
    return "block_id";
  case Kind::WarpId:
    return "warp_id";
  case Kind::WarpgroupId:
    return "warpgroup_id";
  case Kind::ClusterRank:
    return "cluster_rank";
  case Kind::Var:
    return "var";
  }
  return "?";
}

} // namespace kina::ir
