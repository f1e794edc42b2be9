//===- IndexWidth.cpp - Launch requirements for 32-bit index values -------===//
//
// See IndexWidth.h. A dim-only expression gets a requirement only when an
// interval bound over dims in [1, 2^31 - 1] does not already keep it inside
// 32 bits, so `N / 128` or `M - 1` add nothing to the launch metadata.
//
//===----------------------------------------------------------------------===//
#include "codegen/IndexWidth.h"

#include "ir/Printer.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>

namespace kina::codegen {

namespace {

using Kind = ir::IndexExpr::Kind;
using Wide = __int128;

constexpr int64_t kI32Max = 2147483647;
constexpr int64_t kI32Min = -2147483648LL;
constexpr Wide kCap = Wide(1) << 100; // saturate here: far past 32 bits, no overflow

struct Range {
  Wide lo, hi;
};

Wide sat(Wide v) { return std::clamp(v, -kCap, kCap); }

bool dimOnly(const ir::IndexExpr &e) {
  return !e.anyLeaf(
      [](const ir::IndexExpr &l) { return l.kind() != Kind::Const && l.kind() != Kind::Dim; });
}

// Bounds of a dim-only integer expression with every dim in [1, 2^31 - 1];
// nullopt when the form is not one this bounds (the requirement is kept).
std::optional<Range> bound(const ir::IndexExpr &e) {
  switch (e.kind()) {
  case Kind::Const:
    return Range{e.value(), e.value()};
  case Kind::Dim:
    return Range{1, kI32Max};
  case Kind::Add:
  case Kind::Sub:
  case Kind::Mul: {
    auto a = bound(e.lhs()), b = bound(e.rhs());
    if (!a || !b)
      return std::nullopt;
    if (e.kind() == Kind::Add)
      return Range{sat(a->lo + b->lo), sat(a->hi + b->hi)};
    if (e.kind() == Kind::Sub)
      return Range{sat(a->lo - b->hi), sat(a->hi - b->lo)};
    Wide p[4] = {sat(a->lo * b->lo), sat(a->lo * b->hi), sat(a->hi * b->lo), sat(a->hi * b->hi)};
    return Range{*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
  }
  case Kind::Div:
  case Kind::FloorDiv:
  case Kind::CeilDiv: {
    // The divisor is positive (the checker proved it); |quotient| <= |dividend|.
    auto a = bound(e.lhs());
    if (!a)
      return std::nullopt;
    return Range{std::min<Wide>(a->lo, 0), std::max<Wide>(a->hi, 0)};
  }
  case Kind::Mod: {
    auto d = bound(e.rhs());
    if (!d || d->hi < 1)
      return std::nullopt;
    return Range{0, d->hi - 1};
  }
  default:
    return std::nullopt;
  }
}

class Collector {
public:
  explicit Collector(const ir::Kernel &k) : k_(k) {}

  void block(const ir::Block &b) {
    for (const ir::Op &op : b.ops)
      this->op(op);
  }

  std::vector<std::pair<std::string, ir::IndexExpr>> take() { return std::move(out_); }

private:
  void op(const ir::Op &op) {
    if (auto *f = op.as<ir::ForOp>()) {
      std::string why = "the loop `" + var(f->var) + "`";
      // The counter runs up to upper - 1 and then takes one more step.
      need(f->lower, why);
      need(f->step, why);
      if (dimOnly(f->upper) && dimOnly(f->step)) {
        // upper + step - 1 >= upper (step >= 1): it fitting implies upper does.
        auto c = f->step.asConstant();
        need(c ? f->upper + (*c - 1) : (f->upper + f->step) - ir::IndexExpr::constant(1), why);
      } else {
        need(f->upper, why);
      }
      walk(f->lower, why);
      walk(f->upper, why);
      walk(f->step, why);
      block(f->body);
    } else if (auto *i = op.as<ir::IfOp>()) {
      walk(i->cond, "an `if`");
      block(i->thenBody);
      block(i->elseBody);
    } else if (auto *r = op.as<ir::RoleOp>()) {
      block(r->body);
    } else if (auto *l = op.as<ir::LetOp>()) {
      walk(l->value, "`" + var(l->var) + "`");
    } else if (auto *f = op.as<ir::FillOp>()) {
      scalar(f->value);
    } else if (auto *ld = op.as<ir::LoadOp>()) {
      scalar(ld->fill);
    } else if (auto *u = op.as<ir::UnaryOp>()) {
      operand(u->src);
    } else if (auto *b = op.as<ir::BinaryOp>()) {
      operand(b->lhs);
      operand(b->rhs);
    } else if (auto *s = op.as<ir::SelectOp>()) {
      for (const ir::Operand *o : {&s->lhs, &s->rhs, &s->onTrue, &s->onFalse})
        operand(*o);
    }
  }

  // An index value that becomes a scalar (`convert F32 (M * N)`) is seen
  // whole, so it must fit as well, not only what it divides or compares.
  void operand(const ir::Operand &o) {
    if (o.kind == ir::Operand::Kind::Scalar)
      scalar(o.scalar);
  }
  void scalar(const ir::ScalarExpr &e) {
    using SK = ir::ScalarExpr::Kind;
    switch (e.kind()) {
    case SK::Index:
      need(e.index(), "the scalar `convert` of an index value");
      walk(e.index(), "the scalar `convert` of an index value");
      return;
    case SK::Convert:
    case SK::Neg:
    case SK::Math:
      scalar(e.operand());
      return;
    default:
      if (e.isBinary()) {
        scalar(e.lhs());
        scalar(e.rhs());
      }
      return;
    }
  }

  std::string var(ir::VarId v) const {
    return v < k_.vars.size() ? k_.vars[v].name : std::string("?");
  }

  // The operands of divisions, remainders and comparisons must be exact.
  void walk(const ir::IndexExpr &e, const std::string &why) {
    if (e.isLeaf())
      return;
    switch (e.kind()) {
    case Kind::Div:
    case Kind::Mod:
    case Kind::FloorDiv:
    case Kind::CeilDiv:
    case Kind::Eq:
    case Kind::Ne:
    case Kind::Lt:
    case Kind::Le:
    case Kind::Gt:
    case Kind::Ge:
      need(e.lhs(), why);
      need(e.rhs(), why);
      break;
    default:
      break;
    }
    walk(e.lhs(), why);
    if (e.kind() != Kind::Not)
      walk(e.rhs(), why);
  }

  void need(const ir::IndexExpr &e, const std::string &why) {
    if (e.isLeaf() || e.isBoolean() || !dimOnly(e))
      return;
    auto r = bound(e);
    bool high = !r || r->hi > kI32Max, low = !r || r->lo < kI32Min;
    std::string text = ir::printIndex(k_, e);
    std::string reason = " (" + why + " computes index values in 32 bits)";
    if (high && seen_.insert(text + "<=").second)
      out_.push_back({"requires (" + text + " <= " + std::to_string(kI32Max) + ")" + reason,
                      ir::IndexExpr::binary(Kind::Le, e, ir::IndexExpr::constant(kI32Max))});
    if (low && seen_.insert(text + ">=").second)
      out_.push_back({"requires (" + text + " >= " + std::to_string(kI32Min) + ")" + reason,
                      ir::IndexExpr::binary(Kind::Ge, e, ir::IndexExpr::constant(kI32Min))});
  }

  const ir::Kernel &k_;
  std::set<std::string> seen_;
  std::vector<std::pair<std::string, ir::IndexExpr>> out_;
};

} // namespace

std::vector<std::pair<std::string, ir::IndexExpr>>
indexWidthRequirements(const ir::Kernel &kernel) {
  Collector c(kernel);
  c.block(kernel.body);
  return c.take();
}

} // namespace kina::codegen
