//===- DimExpr.cpp - Parsing and evaluating dim formulas ------------------===//
//
// A recursive-descent parser into a flat node array and a checked evaluator
// (DimExpr.h).
//
//===----------------------------------------------------------------------===//
#include "runtime/DimExpr.h"

#include <cctype>

namespace kina::runtime {

class DimExprParser {
public:
  explicit DimExprParser(const std::string &text) : s_(text) {}

  Result<DimExpr> run() {
    DimExpr e;
    e.text_ = s_;
    nodes_ = &e.nodes_;
    int root = parseExpr(0);
    skipWs();
    if (err_.empty() && i_ != s_.size())
      fail("unexpected '" + std::string(1, s_[i_]) + "'");
    if (!err_.empty())
      return makeError(ErrorKind::InvalidMetadata, "bad formula `" + s_ + "`: " + err_ +
                                                       " at column " + std::to_string(errAt_ + 1));
    (void)root;
    return e;
  }

private:
  static constexpr int kMaxDepth = 64;

  void fail(const std::string &why) {
    if (err_.empty()) {
      err_ = why;
      errAt_ = i_;
    }
  }
  void skipWs() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_])))
      ++i_;
  }
  int add(DimExpr::Node n) {
    nodes_->push_back(std::move(n));
    return int(nodes_->size()) - 1;
  }
  bool peekWord(const char *w) {
    std::size_t n = std::char_traits<char>::length(w);
    if (s_.compare(i_, n, w) != 0)
      return false;
    std::size_t end = i_ + n;
    return end >= s_.size() ||
           !(std::isalnum(static_cast<unsigned char>(s_[end])) || s_[end] == '_');
  }

  int parseExpr(int depth) {
    if (depth > kMaxDepth) {
      fail("formula nests too deeply");
      return -1;
    }
    int lhs = parseTerm(depth);
    while (err_.empty()) {
      skipWs();
      DimExpr::Op op;
      if (i_ < s_.size() && s_[i_] == '+')
        op = DimExpr::Op::Add;
      else if (i_ < s_.size() && s_[i_] == '-')
        op = DimExpr::Op::Sub;
      else
        break;
      ++i_;
      int rhs = parseTerm(depth);
      lhs = add({op, 0, "", lhs, rhs});
    }
    return lhs;
  }

  int parseTerm(int depth) {
    int lhs = parseUnary(depth);
    while (err_.empty()) {
      skipWs();
      DimExpr::Op op;
      if (i_ < s_.size() && s_[i_] == '*') {
        op = DimExpr::Op::Mul;
        ++i_;
      } else if (i_ < s_.size() && s_[i_] == '/') {
        op = DimExpr::Op::ExactDiv;
        ++i_;
      } else if (peekWord("mod")) {
        op = DimExpr::Op::Mod;
        i_ += 3;
      } else if (peekWord("cdiv")) {
        op = DimExpr::Op::CeilDiv;
        i_ += 4;
      } else if (peekWord("floordiv")) {
        op = DimExpr::Op::FloorDiv;
        i_ += 8;
      } else {
        break;
      }
      int rhs = parseUnary(depth);
      lhs = add({op, 0, "", lhs, rhs});
    }
    return lhs;
  }

  int parseUnary(int depth) {
    if (depth > kMaxDepth) {
      fail("formula nests too deeply");
      return -1;
    }
    skipWs();
    if (i_ >= s_.size()) {
      fail("expected a number, a dim name or '('");
      return -1;
    }
    char c = s_[i_];
    if (c == '-') {
      ++i_;
      int operand = parseUnary(depth + 1);
      return add({DimExpr::Op::Neg, 0, "", operand, -1});
    }
    if (c == '(') {
      ++i_;
      int inner = parseExpr(depth + 1);
      skipWs();
      if (i_ >= s_.size() || s_[i_] != ')') {
        fail("expected ')'");
        return -1;
      }
      ++i_;
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::int64_t v = 0;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s_[i_] - '0', &v)) {
          fail("integer literal too large");
          return -1;
        }
        ++i_;
      }
      return add({DimExpr::Op::Const, v, "", -1, -1});
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t start = i_;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_'))
        ++i_;
      std::string name = s_.substr(start, i_ - start);
      if (name == "mod" || name == "cdiv" || name == "floordiv") {
        i_ = start;
        fail("operator '" + name + "' needs a left operand");
        return -1;
      }
      return add({DimExpr::Op::Name, 0, name, -1, -1});
    }
    fail("unexpected '" + std::string(1, c) + "'");
    return -1;
  }

  const std::string &s_;
  std::size_t i_ = 0;
  std::vector<DimExpr::Node> *nodes_ = nullptr;
  std::string err_;
  std::size_t errAt_ = 0;
};

Result<DimExpr> DimExpr::parse(const std::string &text) { return DimExprParser(text).run(); }

DimExpr DimExpr::constant(std::int64_t value) {
  DimExpr e;
  e.text_ = std::to_string(value);
  e.nodes_.push_back({Op::Const, value, "", -1, -1});
  return e;
}

Result<DimExpr> DimExpr::Builder::finish(std::string text) {
  if (nodes_.empty())
    return makeError(ErrorKind::InvalidMetadata, "empty formula");
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const Node &n = nodes_[i];
    bool unaryOp = n.op == Op::Neg || n.op == Op::Not;
    bool leaf = n.op == Op::Const || n.op == Op::Name;
    auto valid = [&](int c) { return c >= 0 && std::size_t(c) < i; };
    if (!leaf && (!valid(n.lhs) || (!unaryOp && !valid(n.rhs))))
      return makeError(ErrorKind::InvalidMetadata, "malformed formula `" + text + "`");
  }
  DimExpr e;
  e.text_ = std::move(text);
  e.nodes_ = std::move(nodes_);
  return e;
}

std::set<std::string> DimExpr::names() const {
  std::set<std::string> out;
  for (const Node &n : nodes_)
    if (n.op == Op::Name)
      out.insert(n.name);
  return out;
}

bool DimExpr::isName() const { return nodes_.size() == 1 && nodes_[0].op == Op::Name; }

Result<std::int64_t> DimExpr::evaluate(const DimValues &dims) const {
  if (nodes_.empty())
    return makeError(ErrorKind::InvalidMetadata, "empty formula");
  // Operands always precede their users, so one forward pass evaluates all.
  std::vector<std::int64_t> v(nodes_.size(), 0);
  auto fail = [&](const std::string &why) {
    return makeError(ErrorKind::InvalidDims, "formula `" + text_ + "`: " + why);
  };
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const Node &n = nodes_[i];
    std::int64_t a = n.lhs >= 0 ? v[std::size_t(n.lhs)] : 0;
    std::int64_t b = n.rhs >= 0 ? v[std::size_t(n.rhs)] : 0;
    std::int64_t r = 0;
    bool overflow = false;
    switch (n.op) {
    case Op::Const: r = n.value; break;
    case Op::Name: {
      auto it = dims.find(n.name);
      if (it == dims.end())
        return fail("dim `" + n.name + "` has no value");
      r = it->second;
      break;
    }
    case Op::Neg: overflow = __builtin_sub_overflow(std::int64_t(0), a, &r); break;
    case Op::Add: overflow = __builtin_add_overflow(a, b, &r); break;
    case Op::Sub: overflow = __builtin_sub_overflow(a, b, &r); break;
    case Op::Mul: overflow = __builtin_mul_overflow(a, b, &r); break;
    case Op::Eq: r = a == b; break;
    case Op::Ne: r = a != b; break;
    case Op::Lt: r = a < b; break;
    case Op::Le: r = a <= b; break;
    case Op::Gt: r = a > b; break;
    case Op::Ge: r = a >= b; break;
    case Op::And: r = a != 0 && b != 0; break;
    case Op::Or: r = a != 0 || b != 0; break;
    case Op::Not: r = a == 0; break;
    case Op::ExactDiv:
    case Op::CeilDiv:
    case Op::FloorDiv:
    case Op::Mod: {
      if (b <= 0)
        return fail("divisor " + std::to_string(b) + " is not positive");
      std::int64_t q = a / b, m = a % b;
      if (m < 0) {
        m += b;
        --q;
      }
      if (n.op == Op::ExactDiv) {
        if (m != 0)
          return fail(std::to_string(a) + " / " + std::to_string(b) +
                      " is not exact (remainder " + std::to_string(m) + ")");
        r = q;
      } else if (n.op == Op::FloorDiv) {
        r = q;
      } else if (n.op == Op::CeilDiv) {
        r = q + (m != 0 ? 1 : 0);
      } else {
        r = m;
      }
      break;
    }
    }
    if (overflow)
      return fail("64-bit overflow");
    v[i] = r;
  }
  return v.back();
}

} // namespace kina::runtime
