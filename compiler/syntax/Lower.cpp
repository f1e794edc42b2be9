//===- Lower.cpp - Lower the tree-sitter CST to the Kina AST --------------===//
//
// A single recursive walk over the CST. Node kinds and field names are
// resolved once to tree-sitter ids. Nesting beyond ParseOptions::maxNesting
// becomes an Error node (the caller reports K0008), so the C++ stack stays
// bounded on adversarial input.
//
//===----------------------------------------------------------------------===//
#include "syntax/Lower.h"

#include <cstdlib>
#include <cstring>
#include <tree_sitter/api.h>

namespace kina::syntax {

const CstIds &CstIds::get() {
  static const CstIds ids = [] {
    CstIds r;
    const TSLanguage *lang = tree_sitter_kina();
    auto sym = [&](const char *name) {
      return ts_language_symbol_for_name(lang, name, static_cast<uint32_t>(strlen(name)), true);
    };
    auto field = [&](const char *name) {
      return ts_language_field_id_for_name(lang, name, static_cast<uint32_t>(strlen(name)));
    };
#define KINA_CST_NODE(NAME) r.NAME = sym(#NAME);
#define KINA_CST_NODE_AS(MEMBER, NAME) r.MEMBER = sym(#NAME);
#define KINA_CST_FIELD(NAME) r.f_##NAME = field(#NAME);
#include "syntax/CstNodes.def"
#undef KINA_CST_NODE
#undef KINA_CST_FIELD
    return r;
  }();
  return ids;
}

namespace {

class Lowerer {
public:
  Lowerer(const SourceFile &file, Module &module, unsigned maxNesting)
      : file_(file), m_(module), ids_(CstIds::get()), maxNesting_(maxNesting) {}

  void lowerFile(TSNode root) {
    // A cursor walk: ts_node_named_child(i) is linear in i.
    forEachChild(root, [&](TSNode child, TSFieldId) {
      TSSymbol s = ts_node_symbol(child);
      if (s == ids_.kernel_definition || s == ids_.tile_function || s == ids_.host_function)
        lowerItem(child);
    });
  }

  bool nestingExceeded() const { return nestingExceeded_; }
  Span deepestSpan() const { return deepestSpan_; }

private:
  const SourceFile &file_;
  Module &m_;
  const CstIds &ids_;
  unsigned maxNesting_;
  unsigned depth_ = 0;
  bool nestingExceeded_ = false;
  Span deepestSpan_;

  static Span span(TSNode n) { return {ts_node_start_byte(n), ts_node_end_byte(n)}; }
  std::string text(TSNode n) const { return std::string(file_.slice(span(n))); }
  Ident ident(TSNode n) const {
    if (ts_node_is_null(n) || ts_node_is_missing(n))
      return {};
    return {text(n), span(n)};
  }

  TSNode field(TSNode n, TSFieldId f) const { return ts_node_child_by_field_id(n, f); }

  /// Calls fn(child, fieldId) for every named child (fieldId 0 when none).
  template <typename Fn> void forEachChild(TSNode n, Fn fn) {
    TSTreeCursor cursor = ts_tree_cursor_new(n);
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      do {
        TSNode child = ts_tree_cursor_current_node(&cursor);
        if (ts_node_is_named(child))
          fn(child, ts_tree_cursor_current_field_id(&cursor));
      } while (ts_tree_cursor_goto_next_sibling(&cursor));
    }
    ts_tree_cursor_delete(&cursor);
  }

  ExprId addExpr(Expr e) {
    m_.exprs.push_back(std::move(e));
    return static_cast<ExprId>(m_.exprs.size() - 1);
  }
  StmtId addStmt(Stmt s) {
    m_.stmts.push_back(std::move(s));
    return static_cast<StmtId>(m_.stmts.size() - 1);
  }
  TypeId addType(TypeRef t) {
    m_.types.push_back(std::move(t));
    return static_cast<TypeId>(m_.types.size() - 1);
  }

  ExprId errorExpr(Span s) {
    Expr e;
    e.kind = ExprKind::Error;
    e.span = s;
    return addExpr(std::move(e));
  }

  struct DepthGuard {
    Lowerer &l;
    explicit DepthGuard(Lowerer &l) : l(l) { ++l.depth_; }
    ~DepthGuard() { --l.depth_; }
  };

  bool tooDeep(TSNode n) {
    if (depth_ <= maxNesting_)
      return false;
    if (!nestingExceeded_) {
      nestingExceeded_ = true;
      deepestSpan_ = span(n);
    }
    return true;
  }

  // ---------------------------------------------------------------- items

  void lowerItem(TSNode n) {
    Item item;
    TSSymbol s = ts_node_symbol(n);
    item.kind = s == ids_.kernel_definition ? ItemKind::Kernel
                : s == ids_.tile_function   ? ItemKind::TileFunction
                                            : ItemKind::HostFunction;
    item.span = span(n);
    TSNode kw = ts_node_child(n, 0);
    item.keywordSpan = span(kw);
    forEachChild(n, [&](TSNode c, TSFieldId f) {
      if (f == ids_.f_name) {
        item.name = ident(c);
      } else if (f == ids_.f_dims) {
        item.dimsSpan = span(c);
        forEachChild(c, [&](TSNode d, TSFieldId df) {
          if (df == ids_.f_dim && ts_node_symbol(d) == ids_.identifier)
            item.dims.push_back(ident(d));
        });
      } else if (f == ids_.f_requires) {
        item.requirements.push_back(lowerRequirement(c));
      } else if (f == ids_.f_parameter) {
        item.params.push_back(lowerParam(c));
      } else if (f == ids_.f_result) {
        item.resultSpan = span(c);
        if (ts_node_symbol(c) == ids_.named_result) {
          item.resultName = ident(field(c, ids_.f_name));
          item.result = lowerType(field(c, ids_.f_type));
        } else {
          item.result = lowerType(c);
        }
      } else if (f == ids_.f_body) {
        item.bodySpan = span(c);
        item.body = lowerBlock(c);
      }
    });
    m_.items.push_back(std::move(item));
  }

  Requirement lowerRequirement(TSNode n) {
    Requirement r;
    r.span = span(n);
    TSNode cond = field(n, ids_.f_condition);
    if (!ts_node_is_null(cond)) {
      r.condition = lowerExpr(cond);
      return r;
    }
    TSNode cap = field(n, ids_.f_capability);
    if (ts_node_is_null(cap))
      return r;
    r.isCapability = true;
    forEachChild(cap, [&](TSNode c, TSFieldId f) {
      if (f == ids_.f_target)
        r.target = ident(c);
      else if (f == ids_.f_capability)
        r.capabilities.push_back(ident(c));
    });
    return r;
  }

  Param lowerParam(TSNode n) {
    Param p;
    p.span = span(n);
    p.name = ident(field(n, ids_.f_name));
    TSNode mut = field(n, ids_.f_mutable);
    if (!ts_node_is_null(mut)) {
      p.isMutable = true;
      p.mutSpan = span(mut);
    }
    p.type = lowerType(field(n, ids_.f_type));
    return p;
  }

  TypeId lowerType(TSNode n) {
    TypeRef t;
    if (ts_node_is_null(n) || ts_node_is_missing(n)) {
      t.span = ts_node_is_null(n) ? Span{} : span(n);
      return addType(std::move(t));
    }
    t.span = span(n);
    TSSymbol s = ts_node_symbol(n);
    t.kind = s == ids_.tensor_type ? TypeKind::Tensor
             : s == ids_.tile_type ? TypeKind::Tile
             : s == ids_.scalar_type ? TypeKind::Scalar
                                   : TypeKind::Error;
    forEachChild(n, [&](TSNode c, TSFieldId f) {
      if (f == ids_.f_dtype) {
        t.dtype = ident(ts_node_named_child_count(c) ? ts_node_named_child(c, 0) : c);
      } else if (f == ids_.f_shape) {
        t.shapeSpan = span(c);
        t.shape = lowerShape(c);
      } else if (f == ids_.f_placement) {
        t.placement = lowerPlacement(c);
      }
    });
    return addType(std::move(t));
  }

  Placement lowerPlacement(TSNode n) {
    Placement p;
    p.span = span(n);
    forEachChild(n, [&](TSNode c, TSFieldId) {
      TSSymbol s = ts_node_symbol(c);
      if (s == ids_.host_placement) {
        p.kind = PlacementKind::Host;
      } else if (s == ids_.global_placement) {
        p.kind = PlacementKind::Global;
        TSNode dev = field(c, ids_.f_device);
        if (!ts_node_is_null(dev))
          p.device = lowerExpr(dev);
      } else if (s == ids_.shared_placement) {
        p.kind = PlacementKind::Shared;
      } else if (s == ids_.register_placement) {
        p.kind = PlacementKind::Register;
      }
    });
    if (ts_node_symbol(n) == ids_.host_placement)
      p.kind = PlacementKind::Host;
    return p;
  }

  std::vector<ExprId> lowerShape(TSNode n) {
    std::vector<ExprId> dims;
    forEachChild(n, [&](TSNode c, TSFieldId f) {
      if (f == ids_.f_dim)
        dims.push_back(lowerExpr(c));
    });
    return dims;
  }

  // ----------------------------------------------------------- statements

  std::vector<StmtId> lowerBlock(TSNode n) {
    std::vector<StmtId> body;
    if (ts_node_is_null(n))
      return body;
    DepthGuard guard(*this);
    if (tooDeep(n))
      return body;
    forEachChild(n, [&](TSNode c, TSFieldId) {
      if (ts_node_symbol(c) == ids_.comment || ts_node_is_extra(c) ||
          ts_node_symbol(c) == static_cast<TSSymbol>(-1))
        return;
      body.push_back(lowerStmt(c));
    });
    return body;
  }

  StmtId lowerStmt(TSNode n) {
    Stmt s;
    s.span = span(n);
    s.keywordSpan = ts_node_child_count(n) > 0 ? span(ts_node_child(n, 0)) : span(n);
    TSSymbol sym = ts_node_symbol(n);
    if (sym == ids_.block_grid || sym == ids_.warp_grid) {
      s.kind = sym == ids_.block_grid ? StmtKind::BlockGrid : StmtKind::WarpGrid;
      TSNode shape = field(n, ids_.f_shape);
      if (!ts_node_is_null(shape)) {
        s.shapeSpan = span(shape);
        s.shape = lowerShape(shape);
      }
      TSNode body = field(n, ids_.f_body);
      s.bodySpan = ts_node_is_null(body) ? Span{} : span(body);
      s.body = lowerBlock(body);
    } else if (sym == ids_.let_binding) {
      s.kind = StmtKind::Let;
      s.name = ident(field(n, ids_.f_name));
      s.value = lowerOptionalExpr(field(n, ids_.f_value), n);
    } else if (sym == ids_.shared_declaration || sym == ids_.register_declaration) {
      s.kind = sym == ids_.shared_declaration ? StmtKind::Shared : StmtKind::Register;
      s.name = ident(field(n, ids_.f_name));
      s.type = lowerType(field(n, ids_.f_type));
    } else if (sym == ids_.for_statement) {
      s.kind = StmtKind::For;
      s.name = ident(field(n, ids_.f_variable));
      TSNode range = field(n, ids_.f_range);
      if (!ts_node_is_null(range)) {
        s.value = lowerOptionalExpr(field(range, ids_.f_start), range);
        s.end = lowerOptionalExpr(field(range, ids_.f_end), range);
      } else {
        s.value = s.end = errorExpr(s.span);
      }
      TSNode body = field(n, ids_.f_body);
      s.bodySpan = ts_node_is_null(body) ? Span{} : span(body);
      s.body = lowerBlock(body);
    } else if (sym == ids_.if_statement) {
      s.kind = StmtKind::If;
      s.value = lowerOptionalExpr(field(n, ids_.f_condition), n);
      TSNode body = field(n, ids_.f_consequence);
      s.bodySpan = ts_node_is_null(body) ? Span{} : span(body);
      s.body = lowerBlock(body);
      TSNode alt = field(n, ids_.f_alternative);
      if (!ts_node_is_null(alt)) {
        s.hasElse = true;
        if (ts_node_symbol(alt) == ids_.if_statement) {
          DepthGuard guard(*this);
          if (!tooDeep(alt))
            s.elseBody.push_back(lowerStmt(alt));
        } else {
          s.elseBody = lowerBlock(alt);
        }
      }
    } else if (sym == ids_.cp_async_statement || sym == ids_.assignment) {
      s.kind = sym == ids_.cp_async_statement ? StmtKind::CpAsync : StmtKind::Assign;
      TSNode target = field(n, sym == ids_.assignment ? ids_.f_target : ids_.f_destination);
      TSNode value = field(n, sym == ids_.assignment ? ids_.f_value : ids_.f_source);
      s.target = lowerOptionalExpr(target, n);
      s.value = lowerOptionalExpr(value, n);
    } else if (sym == ids_.cp_async_commit) {
      s.kind = StmtKind::Commit;
    } else if (sym == ids_.cp_async_wait_all) {
      s.kind = StmtKind::WaitAll;
    } else if (sym == ids_.cp_async_wait_group) {
      s.kind = StmtKind::WaitGroup;
      TSNode count = field(n, ids_.f_count);
      if (!ts_node_is_null(count) && !ts_node_is_missing(count)) {
        s.countSpan = span(count);
        s.count = parseInteger(text(count), s.countSpan).value_or(0);
      }
    } else if (sym == ids_.block_sync) {
      s.kind = StmtKind::BlockSync;
    } else if (sym == ids_.return_statement) {
      s.kind = StmtKind::Return;
      s.value = lowerOptionalExpr(field(n, ids_.f_value), n);
    } else {
      s.kind = StmtKind::Error;
    }
    return addStmt(std::move(s));
  }

  // ---------------------------------------------------------- expressions

  ExprId lowerOptionalExpr(TSNode n, TSNode context) {
    if (ts_node_is_null(n) || ts_node_is_missing(n)) {
      Span s = ts_node_is_null(n) ? Span{ts_node_end_byte(context), ts_node_end_byte(context)}
                                  : span(n);
      return errorExpr(s);
    }
    return lowerExpr(n);
  }

  static std::optional<int64_t> parseInteger(const std::string &text, Span) {
    std::string digits;
    for (char c : text)
      if (c != '_')
        digits.push_back(c);
    errno = 0;
    char *end = nullptr;
    unsigned long long v = strtoull(digits.c_str(), &end, 0);
    if (errno == ERANGE || v > static_cast<unsigned long long>(INT64_MAX) || !end || *end)
      return std::nullopt;
    return static_cast<int64_t>(v);
  }

  ExprId lowerExpr(TSNode n) {
    if (ts_node_is_null(n) || ts_node_is_missing(n))
      return errorExpr(ts_node_is_null(n) ? Span{} : span(n));
    DepthGuard guard(*this);
    if (tooDeep(n))
      return errorExpr(span(n));
    TSSymbol s = ts_node_symbol(n);
    Expr e;
    e.span = span(n);
    if (s == ids_.identifier) {
      e.kind = ExprKind::Name;
      e.name = ident(n);
    } else if (s == ids_.integer) {
      e.kind = ExprKind::Integer;
      auto v = parseInteger(text(n), e.span);
      if (!v) {
        e.kind = ExprKind::Error;
        invalidLiterals.push_back(e.span);
      } else {
        e.intValue = *v;
      }
    } else if (s == ids_.float_) {
      e.kind = ExprKind::Float;
      std::string digits;
      for (char c : text(n))
        if (c != '_')
          digits.push_back(c);
      e.floatValue = strtod(digits.c_str(), nullptr);
    } else if (s == ids_.parenthesized_expression) {
      e.kind = ExprKind::Paren;
      e.children.push_back(lowerOptionalExpr(field(n, ids_.f_expression), n));
    } else if (s == ids_.index_expression) {
      e.kind = ExprKind::Index;
      e.children.push_back(lowerOptionalExpr(field(n, ids_.f_base), n));
      forEachChild(n, [&](TSNode c, TSFieldId f) {
        if (f == ids_.f_index)
          e.children.push_back(lowerExpr(c));
      });
    } else if (s == ids_.slice) {
      e.kind = ExprKind::Slice;
      e.children.push_back(lowerOptionalExpr(field(n, ids_.f_start), n));
      e.children.push_back(lowerOptionalExpr(field(n, ids_.f_length), n));
    } else if (s == ids_.application) {
      e.kind = ExprKind::Application;
      e.name = ident(field(n, ids_.f_function));
      forEachChild(n, [&](TSNode c, TSFieldId f) {
        if (f == ids_.f_argument)
          e.children.push_back(lowerExpr(c));
      });
    } else if (s == ids_.unary_expression) {
      e.kind = ExprKind::Negate;
      e.children.push_back(lowerOptionalExpr(field(n, ids_.f_operand), n));
    } else if (s == ids_.binary_expression) {
      e.kind = ExprKind::Binary;
      TSNode op = field(n, ids_.f_operator);
      std::string o = ts_node_is_null(op) ? "+" : text(op);
      e.op = o == "+"     ? BinaryOp::Add
             : o == "-"   ? BinaryOp::Sub
             : o == "*"   ? BinaryOp::Mul
             : o == "/"   ? BinaryOp::Div
             : o == "mod" ? BinaryOp::Mod
             : o == "="   ? BinaryOp::Eq
             : o == "!="  ? BinaryOp::Ne
             : o == "<"   ? BinaryOp::Lt
             : o == "<="  ? BinaryOp::Le
             : o == ">"   ? BinaryOp::Gt
                          : BinaryOp::Ge;
      e.children.push_back(lowerOptionalExpr(field(n, ids_.f_left), n));
      e.children.push_back(lowerOptionalExpr(field(n, ids_.f_right), n));
    } else {
      e.kind = ExprKind::Error;
    }
    return addExpr(std::move(e));
  }

public:
  std::vector<Span> invalidLiterals;
};

} // namespace

LowerResult lowerTree(TSNode root, const SourceFile &file, Module &module, unsigned maxNesting) {
  Lowerer lowerer(file, module, maxNesting);
  lowerer.lowerFile(root);
  LowerResult r;
  r.nestingExceeded = lowerer.nestingExceeded();
  r.deepestSpan = lowerer.deepestSpan();
  r.invalidLiterals = std::move(lowerer.invalidLiterals);
  return r;
}

const char *binaryOpSpelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::Mod: return "mod";
  case BinaryOp::Eq: return "=";
  case BinaryOp::Ne: return "!=";
  case BinaryOp::Lt: return "<";
  case BinaryOp::Le: return "<=";
  case BinaryOp::Gt: return ">";
  case BinaryOp::Ge: return ">=";
  }
  return "?";
}

static int precedenceOf(const Module &m, ExprId id) {
  const Expr &e = m.expr(id);
  if (e.kind != ExprKind::Binary)
    return e.kind == ExprKind::Slice ? 1 : e.kind == ExprKind::Application ? 6 : 9;
  switch (e.op) {
  case BinaryOp::Add:
  case BinaryOp::Sub: return 3;
  case BinaryOp::Mul:
  case BinaryOp::Div:
  case BinaryOp::Mod: return 4;
  default: return 2;
  }
}

static void print(const Module &m, ExprId id, std::string &out, int depth) {
  if (id == kNone || depth > 512) {
    out += "<?>";
    return;
  }
  const Expr &e = m.expr(id);
  auto child = [&](ExprId c, int minPrec) {
    bool paren = precedenceOf(m, c) < minPrec;
    if (paren)
      out += "(";
    print(m, c, out, depth + 1);
    if (paren)
      out += ")";
  };
  switch (e.kind) {
  case ExprKind::Name: out += e.name.name; break;
  case ExprKind::Integer: out += std::to_string(e.intValue); break;
  case ExprKind::Float: {
    char buf[64];
    snprintf(buf, sizeof buf, "%g", e.floatValue);
    out += buf;
    if (!strpbrk(buf, ".e"))
      out += ".0";
    break;
  }
  case ExprKind::Paren: child(e.children[0], 9); break;
  case ExprKind::Index:
    child(e.children[0], 9);
    out += "[";
    for (size_t i = 1; i < e.children.size(); ++i) {
      if (i > 1)
        out += ", ";
      print(m, e.children[i], out, depth + 1);
    }
    out += "]";
    break;
  case ExprKind::Slice:
    child(e.children[0], 2);
    out += " ..+ ";
    child(e.children[1], 2);
    break;
  case ExprKind::Application:
    out += e.name.name;
    for (ExprId a : e.children) {
      out += " ";
      child(a, 7);
    }
    break;
  case ExprKind::Negate:
    out += "-";
    child(e.children[0], 5);
    break;
  case ExprKind::Binary: {
    int p = precedenceOf(m, id);
    child(e.children[0], p);
    out += " ";
    out += binaryOpSpelling(e.op);
    out += " ";
    child(e.children[1], p + 1);
    break;
  }
  case ExprKind::Error: out += "<error>"; break;
  }
}

std::string printExpr(const Module &module, ExprId id) {
  std::string out;
  print(module, id, out, 0);
  return out;
}

} // namespace kina::syntax
