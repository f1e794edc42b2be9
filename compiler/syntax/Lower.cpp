//===- Lower.cpp - Lower the flat CST to the Kina AST ---------------------===//
//
// A single recursive walk over the Cst. Node kinds and field names are
// resolved once to tree-sitter ids. Nesting beyond ParseOptions::maxNesting
// becomes an Error node (the caller reports K0008), so the C++ stack stays
// bounded on adversarial input.
//
//===----------------------------------------------------------------------===//
#include "syntax/Lower.h"

#include <cmath>

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
  Lowerer(const Cst &cst, const SourceFile &file, Module &module, unsigned maxNesting)
      : cst_(cst), file_(file), m_(module), ids_(CstIds::get()), maxNesting_(maxNesting) {}

  void lowerFile() {
    forEachChild(cst_.root, [&](Node child, TSFieldId) {
      TSSymbol s = sym(child);
      if (s == ids_.kernel_definition || s == ids_.tile_function || s == ids_.host_function)
        lowerItem(child);
    });
  }

  bool nestingExceeded() const { return nestingExceeded_; }
  Span deepestSpan() const { return deepestSpan_; }

private:
  using Node = CstNodeId;
  const Cst &cst_;
  const SourceFile &file_;
  Module &m_;
  const CstIds &ids_;
  unsigned maxNesting_;
  unsigned depth_ = 0;
  bool nestingExceeded_ = false;
  Span deepestSpan_;

  Span span(Node n) const { return cst_.span(n); }
  TSSymbol sym(Node n) const { return cst_[n].symbol; }
  static bool isNull(Node n) { return n == kNoCstNode; }
  bool isMissing(Node n) const { return cst_[n].missing; }
  std::string text(Node n) const { return std::string(file_.slice(span(n))); }
  Ident ident(Node n) const {
    if (isNull(n) || isMissing(n))
      return {};
    return {text(n), span(n)};
  }

  Node field(Node n, TSFieldId f) const { return cst_.child(n, f); }

  /// Calls fn(child, fieldId) for every named child (fieldId 0 when none).
  template <typename Fn> void forEachChild(Node n, Fn fn) {
    const CstNode &node = cst_[n];
    for (uint32_t i = 0; i < node.childCount; ++i) {
      Node child = node.firstChild + i;
      if (cst_[child].named)
        fn(child, cst_[child].field);
    }
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

  bool tooDeep(Node n) {
    if (depth_ <= maxNesting_)
      return false;
    if (!nestingExceeded_) {
      nestingExceeded_ = true;
      deepestSpan_ = span(n);
    }
    return true;
  }

  // ---------------------------------------------------------------- items

  void lowerItem(Node n) {
    Item item;
    TSSymbol s = sym(n);
    item.kind = s == ids_.kernel_definition ? ItemKind::Kernel
                : s == ids_.tile_function   ? ItemKind::TileFunction
                                            : ItemKind::HostFunction;
    item.span = span(n);
    Node kw = cst_.firstChild(n);
    item.keywordSpan = isNull(kw) ? item.span : span(kw);
    forEachChild(n, [&](Node c, TSFieldId f) {
      if (f == ids_.f_name) {
        item.name = ident(c);
      } else if (f == ids_.f_dims) {
        item.dimsSpan = span(c);
        forEachChild(c, [&](Node d, TSFieldId df) {
          if (df == ids_.f_dim && sym(d) == ids_.identifier)
            item.dims.push_back(ident(d));
        });
      } else if (f == ids_.f_tune) {
        item.tuneParams.push_back(lowerTuneParam(c));
      } else if (f == ids_.f_requires) {
        item.requirements.push_back(lowerRequirement(c));
      } else if (f == ids_.f_parameter) {
        item.params.push_back(lowerParam(c));
      } else if (f == ids_.f_result) {
        item.resultSpan = span(c);
        if (sym(c) == ids_.named_result) {
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

  TuneParam lowerTuneParam(Node n) {
    TuneParam t;
    t.span = span(n);
    forEachChild(n, [&](Node c, TSFieldId f) {
      if (f == ids_.f_name) {
        t.name = ident(c);
      } else if (f == ids_.f_value || f == ids_.f_default) {
        if (isMissing(c))
          return;
        std::optional<int64_t> parsed = parseInteger(text(c), span(c));
        if (!parsed)
          return;
        int64_t v = *parsed;
        if (f == ids_.f_value) {
          t.values.push_back(v);
          t.valueSpans.push_back(span(c));
        } else {
          t.defaultValue = v;
          t.defaultSpan = span(c);
        }
      }
    });
    return t;
  }

  Requirement lowerRequirement(Node n) {
    Requirement r;
    r.span = span(n);
    Node cond = field(n, ids_.f_condition);
    if (!isNull(cond)) {
      r.condition = lowerExpr(cond);
      return r;
    }
    Node cap = field(n, ids_.f_capability);
    if (isNull(cap))
      return r;
    r.isCapability = true;
    forEachChild(cap, [&](Node c, TSFieldId f) {
      if (f == ids_.f_target)
        r.target = ident(c);
      else if (f == ids_.f_capability)
        r.capabilities.push_back(ident(c));
    });
    return r;
  }

  /// `masked t[...] [fill V]` on either side of an assignment: records the
  /// mask on the statement and returns the index expression inside, which
  /// the statement keeps as its target or value (Ast.h).
  Node lowerMasked(Node n, Stmt &s, bool isTarget) {
    if (isNull(n) || sym(n) != ids_.masked_access)
      return n;
    (isTarget ? s.targetMasked : s.valueMasked) = true;
    for (uint32_t i = 0; i < cst_[n].childCount; ++i) {
      Node c = cst_[n].firstChild + i;
      if (!cst_[c].named && file_.slice(span(c)) == "masked") {
        s.maskedSpan = span(c);
        break;
      }
    }
    Node fill = field(n, ids_.f_fill);
    if (!isNull(fill))
      s.fill = lowerOptionalExpr(fill, n);
    return field(n, ids_.f_access);
  }

  Param lowerParam(Node n) {
    Param p;
    p.span = span(n);
    p.name = ident(field(n, ids_.f_name));
    Node mut = field(n, ids_.f_mutable);
    if (!isNull(mut)) {
      p.isMutable = true;
      p.mutSpan = span(mut);
    }
    p.type = lowerType(field(n, ids_.f_type));
    return p;
  }

  TypeId lowerType(Node n) {
    TypeRef t;
    if (isNull(n) || isMissing(n)) {
      t.span = isNull(n) ? Span{} : span(n);
      return addType(std::move(t));
    }
    t.span = span(n);
    TSSymbol s = sym(n);
    t.kind = s == ids_.tensor_type    ? TypeKind::Tensor
             : s == ids_.tile_type    ? TypeKind::Tile
             : s == ids_.scalar_type  ? TypeKind::Scalar
             : s == ids_.barrier_type ? TypeKind::Barrier
                                      : TypeKind::Error;
    forEachChild(n, [&](Node c, TSFieldId f) {
      if (f == ids_.f_dtype) {
        t.dtype = ident(cst_.namedChildCount(c) ? cst_.firstNamedChild(c) : c);
      } else if (f == ids_.f_shape) {
        t.shapeSpan = span(c);
        t.shape = lowerShape(c);
      } else if (f == ids_.f_sharding) {
        t.sharding = lowerSharding(c);
      } else if (f == ids_.f_placement) {
        t.placement = lowerPlacement(c);
      } else if (f == ids_.f_layout) {
        t.layout = ident(c);
      } else if (f == ids_.f_stages) {
        t.stages = lowerExpr(c);
        t.shapeSpan = span(c);
      } else if (f == ids_.f_arrivals) {
        t.arrivals = lowerExpr(c);
      }
    });
    if (t.kind == TypeKind::Barrier) {
      if (t.stages == kNone)
        t.stages = errorExpr({t.span.end, t.span.end});
      if (t.arrivals == kNone)
        t.arrivals = errorExpr({t.span.end, t.span.end});
    }
    return addType(std::move(t));
  }

  ShardingRef lowerSharding(Node n) {
    ShardingRef r;
    r.span = span(n);
    r.kind = sym(n) == ids_.sharded ? ShardingKind::Sharded : ShardingKind::Replicated;
    forEachChild(n, [&](Node c, TSFieldId f) {
      if (f == ids_.f_dim) {
        r.dim = lowerExpr(c);
      } else if (f == ids_.f_mesh) {
        r.meshSpan = span(c);
        forEachChild(c, [&](Node d, TSFieldId g) {
          if (g == ids_.f_device)
            r.mesh.push_back(lowerExpr(d));
        });
      }
    });
    if (r.kind == ShardingKind::Sharded && r.dim == kNone)
      r.dim = errorExpr({r.span.end, r.span.end});
    return r;
  }

  Placement lowerPlacement(Node n) {
    Placement p;
    p.span = span(n);
    forEachChild(n, [&](Node c, TSFieldId) {
      TSSymbol s = sym(c);
      if (s == ids_.host_placement) {
        p.kind = PlacementKind::Host;
      } else if (s == ids_.global_placement) {
        p.kind = PlacementKind::Global;
        Node dev = field(c, ids_.f_device);
        if (!isNull(dev))
          p.device = lowerExpr(dev);
      } else if (s == ids_.shared_placement) {
        p.kind = PlacementKind::Shared;
      } else if (s == ids_.register_placement) {
        p.kind = PlacementKind::Register;
      }
    });
    if (sym(n) == ids_.host_placement)
      p.kind = PlacementKind::Host;
    return p;
  }

  std::vector<ExprId> lowerShape(Node n) {
    std::vector<ExprId> dims;
    forEachChild(n, [&](Node c, TSFieldId f) {
      if (f == ids_.f_dim)
        dims.push_back(lowerExpr(c));
    });
    return dims;
  }

  // ----------------------------------------------------------- statements

  std::vector<StmtId> lowerBlock(Node n) {
    std::vector<StmtId> body;
    if (isNull(n))
      return body;
    DepthGuard guard(*this);
    if (tooDeep(n))
      return body;
    forEachChild(n, [&](Node c, TSFieldId) {
      if (sym(c) == ids_.comment || cst_[c].extra || sym(c) == static_cast<TSSymbol>(-1))
        return;
      body.push_back(lowerStmt(c));
    });
    return body;
  }

  StmtId lowerStmt(Node n) {
    Stmt s;
    s.span = span(n);
    s.keywordSpan = cst_[n].childCount > 0 ? span(cst_.firstChild(n)) : span(n);
    TSSymbol sym = this->sym(n);
    if (sym == ids_.block_grid || sym == ids_.warp_grid || sym == ids_.warpgroup_grid) {
      s.kind = sym == ids_.block_grid  ? StmtKind::BlockGrid
               : sym == ids_.warp_grid ? StmtKind::WarpGrid
                                       : StmtKind::WarpgroupGrid;
      Node shape = field(n, ids_.f_shape);
      if (!isNull(shape)) {
        s.shapeSpan = span(shape);
        s.shape = lowerShape(shape);
      }
      Node cluster = field(n, ids_.f_cluster);
      if (!isNull(cluster)) {
        s.clusterSpan = span(cluster);
        s.cluster = lowerShape(cluster);
      }
      Node body = field(n, ids_.f_body);
      s.bodySpan = isNull(body) ? Span{} : span(body);
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
      Node range = field(n, ids_.f_range);
      if (!isNull(range)) {
        s.value = lowerOptionalExpr(field(range, ids_.f_start), range);
        s.end = lowerOptionalExpr(field(range, ids_.f_end), range);
        Node step = field(range, ids_.f_step);
        if (!isNull(step))
          s.step = lowerOptionalExpr(step, range);
      } else {
        s.value = s.end = errorExpr(s.span);
      }
      Node body = field(n, ids_.f_body);
      s.bodySpan = isNull(body) ? Span{} : span(body);
      s.body = lowerBlock(body);
    } else if (sym == ids_.if_statement) {
      s.kind = StmtKind::If;
      s.value = lowerOptionalExpr(field(n, ids_.f_condition), n);
      Node body = field(n, ids_.f_consequence);
      s.bodySpan = isNull(body) ? Span{} : span(body);
      s.body = lowerBlock(body);
      Node alt = field(n, ids_.f_alternative);
      if (!isNull(alt)) {
        s.hasElse = true;
        if (this->sym(alt) == ids_.if_statement) {
          DepthGuard guard(*this);
          if (!tooDeep(alt))
            s.elseBody.push_back(lowerStmt(alt));
        } else {
          s.elseBody = lowerBlock(alt);
        }
      }
    } else if (sym == ids_.cp_async_statement || sym == ids_.assignment) {
      s.kind = sym == ids_.cp_async_statement ? StmtKind::CpAsync : StmtKind::Assign;
      Node target = field(n, sym == ids_.assignment ? ids_.f_target : ids_.f_destination);
      Node value = field(n, sym == ids_.assignment ? ids_.f_value : ids_.f_source);
      target = lowerMasked(target, s, /*isTarget=*/true);
      value = lowerMasked(value, s, /*isTarget=*/false);
      s.target = lowerOptionalExpr(target, n);
      s.value = lowerOptionalExpr(value, n);
    } else if (sym == ids_.cp_async_commit) {
      s.kind = StmtKind::Commit;
    } else if (sym == ids_.cp_async_wait_all) {
      s.kind = StmtKind::WaitAll;
    } else if (sym == ids_.cp_async_wait_group) {
      s.kind = StmtKind::WaitGroup;
      lowerCount(n, ids_.f_count, s);
    } else if (sym == ids_.block_sync) {
      s.kind = StmtKind::BlockSync;
    } else if (sym == ids_.return_statement) {
      s.kind = StmtKind::Return;
      s.value = lowerOptionalExpr(field(n, ids_.f_value), n);
    } else if (sym == ids_.role) {
      s.kind = StmtKind::Role;
      s.name = ident(field(n, ids_.f_name));
      s.first = lowerOptionalExpr(field(n, ids_.f_first), n);
      Node last = field(n, ids_.f_last);
      if (!isNull(last))
        s.last = lowerOptionalExpr(last, n);
      lowerCount(n, ids_.f_registers, s);
      Node body = field(n, ids_.f_body);
      s.bodySpan = isNull(body) ? Span{} : span(body);
      s.body = lowerBlock(body);
    } else if (sym == ids_.arrive_statement) {
      s.kind = StmtKind::Arrive;
      s.barrier = lowerOptionalExpr(field(n, ids_.f_barrier), n);
      Node bytes = field(n, ids_.f_bytes);
      if (!isNull(bytes))
        s.expectTx = lowerOptionalExpr(bytes, n);
      Node cluster = field(n, ids_.f_cluster);
      if (!isNull(cluster)) {
        s.clusterArrive = true;
        s.clauseSpan = span(cluster);
      }
    } else if (sym == ids_.wait_statement) {
      s.kind = StmtKind::Wait;
      s.barrier = lowerOptionalExpr(field(n, ids_.f_barrier), n);
      s.round = lowerOptionalExpr(field(n, ids_.f_round), n);
    } else if (sym == ids_.tma_load_statement) {
      s.kind = StmtKind::TmaLoad;
      s.target = lowerOptionalExpr(field(n, ids_.f_destination), n);
      s.value = lowerOptionalExpr(field(n, ids_.f_source), n);
      Node multicast = field(n, ids_.f_multicast);
      if (!isNull(multicast)) {
        s.multicast = true;
        s.clauseSpan = span(multicast);
      }
      s.barrier = lowerOptionalExpr(field(n, ids_.f_barrier), n);
    } else if (sym == ids_.tma_store_statement) {
      s.kind = StmtKind::TmaStore;
      s.target = lowerOptionalExpr(field(n, ids_.f_destination), n);
      s.value = lowerOptionalExpr(field(n, ids_.f_source), n);
    } else if (sym == ids_.tma_store_commit) {
      s.kind = StmtKind::TmaStoreCommit;
    } else if (sym == ids_.tma_store_wait) {
      s.kind = StmtKind::TmaStoreWait;
      lowerCount(n, ids_.f_count, s);
    } else if (sym == ids_.wgmma_statement) {
      s.kind = StmtKind::Wgmma;
      s.target = lowerOptionalExpr(field(n, ids_.f_target), n);
      s.value = lowerOptionalExpr(field(n, ids_.f_accumulator), n);
      s.operandA = lowerOptionalExpr(field(n, ids_.f_a), n);
      s.operandB = lowerOptionalExpr(field(n, ids_.f_b), n);
      Node zero = field(n, ids_.f_zero_when);
      if (!isNull(zero))
        s.zeroWhen = lowerOptionalExpr(zero, n);
      // The keyword of the statement is `wgmma`, after the target and `<-`.
      for (uint32_t i = 0; i < cst_[n].childCount; ++i) {
        Node c = cst_[n].firstChild + i;
        if (!cst_[c].named && file_.slice(span(c)) == "wgmma") {
          s.keywordSpan = span(c);
          break;
        }
      }
    } else if (sym == ids_.wgmma_commit) {
      s.kind = StmtKind::WgmmaCommit;
    } else if (sym == ids_.wgmma_wait) {
      s.kind = StmtKind::WgmmaWait;
      lowerCount(n, ids_.f_count, s);
    } else if (sym == ids_.fence_proxy_async) {
      s.kind = StmtKind::FenceProxyAsync;
    } else {
      s.kind = StmtKind::Error;
    }
    return addStmt(std::move(s));
  }

  /// An integer field into Stmt::count / countSpan (0 when absent).
  void lowerCount(Node n, TSFieldId f, Stmt &s) {
    Node count = field(n, f);
    if (!isNull(count) && !isMissing(count)) {
      s.countSpan = span(count);
      if (sym(count) == ids_.identifier) {
        s.countParam = ident(count); // a tune parameter, set per instance
        m_.anyCountParam = true;
      } else
        s.count = parseInteger(text(count), s.countSpan).value_or(0);
    }
  }

  // ---------------------------------------------------------- expressions

  ExprId lowerOptionalExpr(Node n, Node context) {
    if (isNull(n) || isMissing(n)) {
      Span s = isNull(n) ? Span{cst_[context].end, cst_[context].end} : span(n);
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

  ExprId lowerExpr(Node n) {
    if (isNull(n) || isMissing(n))
      return errorExpr(isNull(n) ? Span{} : span(n));
    DepthGuard guard(*this);
    if (tooDeep(n))
      return errorExpr(span(n));
    TSSymbol s = sym(n);
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
        invalidLiterals.push_back({e.span, false});
      } else {
        e.intValue = *v;
      }
    } else if (s == ids_.float_) {
      e.kind = ExprKind::Float;
      std::string digits;
      for (char c : text(n))
        if (c != '_')
          digits.push_back(c);
      errno = 0;
      e.floatValue = strtod(digits.c_str(), nullptr);
      // Overflow only: a literal too small for a double reads as 0 or a
      // subnormal, as in C; one too large was read as infinity.
      if (errno == ERANGE && std::isinf(e.floatValue)) {
        e.kind = ExprKind::Error;
        invalidLiterals.push_back({e.span, true});
      }
    } else if (s == ids_.parenthesized_expression) {
      e.kind = ExprKind::Paren;
      e.children.push_back(lowerOptionalExpr(field(n, ids_.f_expression), n));
    } else if (s == ids_.index_expression) {
      e.kind = ExprKind::Index;
      e.children.push_back(lowerOptionalExpr(field(n, ids_.f_base), n));
      forEachChild(n, [&](Node c, TSFieldId f) {
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
      forEachChild(n, [&](Node c, TSFieldId f) {
        if (f == ids_.f_argument)
          e.children.push_back(lowerExpr(c));
      });
    } else if (s == ids_.unary_expression) {
      e.kind = ExprKind::Negate;
      e.children.push_back(lowerOptionalExpr(field(n, ids_.f_operand), n));
    } else if (s == ids_.binary_expression) {
      e.kind = ExprKind::Binary;
      Node op = field(n, ids_.f_operator);
      std::string o = isNull(op) ? "+" : text(op);
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
  std::vector<InvalidLiteral> invalidLiterals;
};

} // namespace

void reserveForCstNodes(Module &module, size_t nodes) {
  // Generous guesses from the CST's size: reserving address space is
  // nearly free, regrowth copies (and their fresh pages) are not.
  module.exprs.reserve(module.exprs.size() + nodes / 2);
  module.stmts.reserve(module.stmts.size() + nodes / 8);
  module.types.reserve(module.types.size() + nodes / 8);
}

LowerResult lowerTree(const Cst &cst, const SourceFile &file, Module &module,
                      unsigned maxNesting) {
  Lowerer lowerer(cst, file, module, maxNesting);
  lowerer.lowerFile();
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
