//===- Signatures.cpp - Signature help for primitive ops and items --------===//
//
// The op table, then the call finder (parsed module first, then a lexical
// scan of the cursor's line). See Signatures.h.
//
//===----------------------------------------------------------------------===//
#include "Signatures.h"

#ifdef KINA_LSP_WITH_SEMA
#include "syntax/Ast.h"
#endif

#include <algorithm>
#include <cctype>

namespace kina::lsp {

const std::vector<OpSignature> &primitiveOpSignatures() {
  static const std::vector<OpSignature> ops = [] {
    std::vector<OpSignature> v = {
        {"wmma_mma",
         {"c : register tile [m, n]", "a : shared tile [m, k]", "b : shared tile [k, n]"},
         "register tile [m, n]",
         "Tensor-core multiply-accumulate: c + a x b. m, n and k are multiples of 16; "
         "needs the `mma_m16n16k16_<a>_<b>_<c>` capability of the operand dtypes (I8 x I8 -> "
         "I32: `mma_m16n8k32_s8_s8_s32`, k a multiple of 32, b = `transpose` of a shared [n, k])."},
        {"dp4a_mma",
         {"c : I32 register tile [m, n]", "a : I8 shared tile [m, k]",
          "b : transpose of an I8 shared tile [n, k]"},
         "register tile [m, n]",
         "int8 multiply-accumulate with dp4a.s32.s32 on the CUDA cores (the targets without "
         "int8 tensor cores): c + a x b, wrapping; needs the `dp4a` capability."},
        {"fill",
         {"v : scalar"},
         "splat",
         "A tile with every element v (its shape comes from the "
         "destination)."},
        {"convert",
         {"DT : dtype", "x : register tile"},
         "register tile",
         "x with its elements converted to DT (e.g. `convert F16 acc`)."},
        {"block_id",
         {"d : constant axis"},
         "index",
         "This block's index along axis d of the enclosing `block_grid`."},
        {"warp_id",
         {"d : constant axis"},
         "index",
         "This warp's index along axis d of the enclosing `warp_grid`."},
        {"floor_div", {"e : index", "n : positive constant"}, "index", "floor(e / n)."},
        {"ceil_div", {"e : index", "n : positive constant"}, "index", "ceil(e / n)."},
        {"row_sum", {"x : register tile [m, n]"}, "register tile [m, 1]", "Sum of each row."},
        {"row_max", {"x : register tile [m, n]"}, "register tile [m, 1]", "Maximum of each row."},
        {"transpose", {"x : register tile [m, n]"}, "register tile [n, m]", "x transposed."},
        {"col_sum", {"x : register tile [m, n]"}, "register tile [1, n]", "Sum of each column."},
        {"col_max",
         {"x : register tile [m, n]"},
         "register tile [1, n]",
         "Maximum of each column."},
        {"block_sum",
         {"x : register tile"},
         "register tile (x's shape)",
         "Elementwise sum of x over every warp of the block (shared memory and two barriers)."},
        {"block_max",
         {"x : register tile"},
         "register tile (x's shape)",
         "Elementwise maximum of x over every warp of the block."},
        {"matmul",
         {"a : tensor [m, k]", "b : tensor [k, n]"},
         "tensor [m, n]",
         "Host-level matrix product; both operands on one placement."},
        {"copy_to_device",
         {"x : host tensor"},
         "cuda:global tensor",
         "Host-level copy of x to GPU global memory."},
        {"copy_to_host",
         {"x : cuda:global tensor"},
         "host tensor",
         "Host-level copy of x to host memory."},
        {"cp_async_wait_group",
         {"n : constant"},
         "statement",
         "Waits until at most n committed cp_async groups are pending."},
    };
    for (const char *f : {"relu", "exp", "neg"})
      v.push_back({f, {"x : register tile"}, "register tile",
                   std::string("Elementwise ") + f + " of x."});
    // The math builtins (docs/math.md states each one's error bound).
    const std::pair<const char *, const char *> math[] = {
        {"sqrt", "square root, correctly rounded"},
        {"rsqrt", "1 / sqrt x, within 1 ulp"},
        {"exp2", "2^x, within 1 ulp"},
        {"log", "natural logarithm, within 1 ulp"},
        {"log2", "base-2 logarithm, within 1 ulp"},
        {"tanh", "hyperbolic tangent, within 1 ulp"},
        {"erf", "error function, within 1 ulp"},
        {"sigmoid", "1 / (1 + e^-x), within 1 ulp"},
        {"silu", "x / (1 + e^-x), within 1 ulp"},
        {"gelu", "GELU, erf form: x Phi(x), within 1 ulp"},
        {"gelu_tanh", "GELU, tanh form, within 1 ulp"},
        {"abs", "absolute value"},
        {"floor", "round down to an integer"},
        {"ceil", "round up to an integer"},
        {"exp2_approx", "2^x by ex2.approx.f32 (capability ex2_approx; 2^-21 relative)"},
        {"rsqrt_approx",
         "1 / sqrt x by rsqrt.approx.f32 (capability rsqrt_approx; 2^-22 relative)"},
        {"tanh_approx",
         "tanh by tanh.approx.f32 (capability tanh_approx, sm_75+; 2^-10.9 relative)"},
        {"gelu_tanh_approx", "GELU, tanh form, with one ex2.approx.f32 (capability ex2_approx; "
                             "2^-18 relative on [-6, 15])"},
    };
    for (const auto &[f, what] : math)
      v.push_back({f,
                   {"x : register tile or float scalar"},
                   "register tile or scalar",
                   std::string("Elementwise ") + what + " of x (floating-point elements)."});
    v.push_back({"pow",
                 {"x : register tile or scalar", "y : register tile or scalar"},
                 "register tile",
                 "Elementwise x^y for x >= 0 (pow x 0 = 1; NaN for x < 0); one side may be a "
                 "scalar (`pow 2.0 x` is 2^x)."});
    v.push_back({"clamp",
                 {"x : register tile", "lo : scalar", "hi : scalar"},
                 "register tile",
                 "Elementwise min (max x lo) hi; literal bounds need lo <= hi."});
    for (const char *f : {"add", "sub", "mul", "div", "max", "min"})
      v.push_back({f, {"x : register tile", "y : register tile or scalar"}, "register tile",
                   std::string("Elementwise ") + f +
                       " of x and y; y may be a scalar or an [m, 1] column (broadcast)."});
    return v;
  }();
  return ops;
}

const OpSignature *findPrimitiveOp(std::string_view name) {
  for (const OpSignature &op : primitiveOpSignatures())
    if (op.name == name)
      return &op;
  return nullptr;
}

SignatureInfo toSignatureInfo(const OpSignature &op, unsigned activeParameter) {
  SignatureInfo s;
  s.label = op.name;
  for (const std::string &p : op.params) {
    s.label += " (" + p + ")";
    s.parameters.push_back(p);
  }
  if (!op.result.empty())
    s.label += " : " + op.result;
  s.documentation = op.documentation;
  s.activeParameter = op.params.empty()
                          ? 0
                          : std::min<unsigned>(activeParameter, op.params.size() - 1);
  return s;
}

namespace {

bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string collapseSpaces(std::string_view s) {
  std::string out;
  for (char c : s) {
    bool space = std::isspace(static_cast<unsigned char>(c));
    if (space && (out.empty() || out.back() == ' '))
      continue;
    out += space ? ' ' : c;
  }
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  return out;
}

/// The signature of something callable named `name`: a primitive op, or an
/// item of the module.
std::optional<OpSignature> callable(const std::string &text, const syntax::Module *module,
                                    std::string_view name) {
  if (const OpSignature *op = findPrimitiveOp(name))
    return *op;
#ifdef KINA_LSP_WITH_SEMA
  if (module)
    for (const syntax::Item &item : module->items) {
      if (item.name.name != name)
        continue;
      OpSignature s;
      s.name = item.name.name;
      auto slice = [&](Span sp) {
        return sp.end <= text.size() && sp.begin <= sp.end
                   ? collapseSpaces(std::string_view(text).substr(sp.begin, sp.end - sp.begin))
                   : std::string();
      };
      for (const syntax::Param &p : item.params) {
        std::string t = slice(p.span);
        if (t.size() >= 2 && t.front() == '(' && t.back() == ')')
          t = t.substr(1, t.size() - 2);
        s.params.push_back(t);
      }
      if (item.result != syntax::kNone && item.result < module->types.size())
        s.result = slice(module->types[item.result].span);
      const char *kind = item.kind == syntax::ItemKind::TileFunction ? "tile function"
                         : item.kind == syntax::ItemKind::Kernel     ? "kernel"
                                                                     : "host function";
      s.documentation = std::string(kind) + " `" + s.name + "`";
      return s;
    }
#else
  (void)text;
  (void)module;
#endif
  return std::nullopt;
}

/// Lexical fallback: the last callable on the cursor's line before it, and
/// how many whitespace-separated arguments follow it.
std::optional<SignatureInfo> lexicalSignature(const std::string &text,
                                              const syntax::Module *module, uint32_t offset) {
  offset = std::min<uint32_t>(offset, text.size());
  // Back to the start of the enclosing group on this line.
  uint32_t b = offset;
  int depth = 0;
  while (b > 0) {
    char c = text[b - 1];
    if (c == '\n')
      break;
    if (c == ')' || c == ']') {
      ++depth;
    } else if (c == '(' || c == '[') {
      if (depth == 0)
        break;
      --depth;
    } else if (depth == 0 && (c == '{' || c == '}' || c == ',' || c == '=' ||
                              (c == '-' && b >= 2 && text[b - 2] == '<'))) {
      break;
    }
    --b;
  }
  // Atoms at depth 0: identifiers/numbers with any bracketed suffix.
  struct Atom {
    std::string word;
  };
  std::vector<Atom> atoms;
  uint32_t i = b;
  while (i < offset) {
    char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Atom a;
    if (isIdentChar(c)) {
      uint32_t s = i;
      while (i < offset && (isIdentChar(text[i]) || text[i] == '.'))
        ++i;
      a.word = text.substr(s, i - s);
    }
    // A bracketed group (alone, or as the atom's index suffix).
    while (i < offset && (text[i] == '(' || text[i] == '[')) {
      int d = 0;
      while (i < offset) {
        if (text[i] == '(' || text[i] == '[')
          ++d;
        else if (text[i] == ')' || text[i] == ']')
          --d;
        ++i;
        if (d == 0)
          break;
      }
    }
    if (a.word.empty() && i < offset && !std::isspace(static_cast<unsigned char>(text[i])) &&
        !isIdentChar(text[i]) && text[i] != '(' && text[i] != '[')
      ++i; // an operator
    atoms.push_back(std::move(a));
  }
  for (size_t k = atoms.size(); k-- > 0;) {
    if (atoms[k].word.empty())
      continue;
    auto sig = callable(text, module, atoms[k].word);
    if (!sig)
      continue;
    bool trailingSpace = offset > b && std::isspace(static_cast<unsigned char>(text[offset - 1]));
    int after = static_cast<int>(atoms.size() - k - 1);
    int active = after - (trailingSpace || after == 0 ? 0 : 1);
    return toSignatureInfo(*sig, static_cast<unsigned>(std::max(0, active)));
  }
  return std::nullopt;
}

} // namespace

std::optional<SignatureInfo> signatureAt(const std::string &text, const syntax::Module *module,
                                         uint32_t offset) {
#ifdef KINA_LSP_WITH_SEMA
  if (module) {
    // The innermost application (or bare callable name) whose name ends
    // before the cursor and whose extent, plus trailing blanks, reaches it.
    const syntax::Expr *best = nullptr;
    for (const syntax::Expr &e : module->exprs) {
      if (e.kind != syntax::ExprKind::Application && e.kind != syntax::ExprKind::Name)
        continue;
      if (e.name.span.end >= offset || !e.name.valid())
        continue;
      uint32_t reach = e.span.end;
      while (reach < offset && reach < text.size() && (text[reach] == ' ' || text[reach] == '\t'))
        ++reach;
      if (reach < offset)
        continue;
      if (best && best->name.span.begin >= e.name.span.begin)
        continue;
      if (!callable(text, module, e.name.name))
        continue;
      best = &e;
    }
    if (best) {
      auto sig = callable(text, module, best->name.name);
      unsigned active = 0;
      for (syntax::ExprId c : best->children)
        if (module->exprs[c].span.end < offset)
          ++active;
      return toSignatureInfo(*sig, active);
    }
  }
#endif
  return lexicalSignature(text, module, offset);
}

} // namespace kina::lsp
