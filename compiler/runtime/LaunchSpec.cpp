//===- LaunchSpec.cpp - JSON (de)serialisation of launch metadata ---------===//
//
// Converts between LaunchSpec and the "kina.launch/1" JSON schema
// (docs/launch-metadata.md), validating every field and naming the JSON path
// of the first problem. Uses only non-throwing nlohmann::json accessors.
//
//===----------------------------------------------------------------------===//
#include "runtime/LaunchSpec.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

namespace kina::runtime {

using nlohmann::json;

std::string_view paramKindName(ParamKind k) {
  return k == ParamKind::Tensor      ? "tensor"
         : k == ParamKind::Scalar    ? "scalar"
         : k == ParamKind::TensorMap ? "tensor_map"
                                     : "dim";
}

std::size_t scalarTypeSize(std::string_view abi) {
  if (abi == "f16" || abi == "bf16")
    return 2;
  if (abi == "f32" || abi == "i32")
    return 4;
  if (abi == "f64" || abi == "i64")
    return 8;
  if (abi == "i8" || abi == "u8")
    return 1;
  return 0;
}

bool scalarTypeIsFloat(std::string_view abi) {
  return !abi.empty() && (abi[0] == 'f' || abi[0] == 'b');
}

std::string_view paramRoleName(ParamRole r) {
  switch (r) {
  case ParamRole::Input:
    return "input";
  case ParamRole::Output:
    return "output";
  case ParamRole::InOut:
    return "inout";
  }
  return "?";
}

std::string RequiresFact::clause() const {
  if (!source.empty())
    return source;
  return "requires (" + expr.text() + " mod " + std::to_string(modulus) + " = " +
         std::to_string(remainder) + ")";
}

namespace {

class Reader {
public:
  explicit Reader(std::string label) : label_(std::move(label)) {}

  RuntimeError error(const std::string &path, const std::string &why) const {
    return makeError(ErrorKind::InvalidMetadata,
                     label_ + ": " + (path.empty() ? "" : path + ": ") + why);
  }

  Result<std::string> str(const json &obj, const char *key, const std::string &path,
                          bool required = true) const {
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required)
        return error(path, std::string("missing \"") + key + "\"");
      return std::string();
    }
    if (!it->is_string())
      return error(join(path, key), "must be a string");
    return it->get_ref<const std::string &>();
  }

  Result<std::int64_t> integer(const json &v, const std::string &path) const {
    if (!v.is_number_integer())
      return error(path, "must be an integer");
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(INT64_MAX))
      return error(path, "integer too large");
    return v.get<std::int64_t>();
  }

  /// A formula: a string in DimExpr syntax, an integer, or codegen's
  /// {"text": ..., "expr": tree} object.
  Result<DimExpr> formula(const json &v, const std::string &path,
                          const std::set<std::string> &dims) const {
    Result<DimExpr> e = DimExpr::constant(0);
    if (v.is_object() && v.contains("expr")) {
      DimExpr::Builder b;
      if (auto err = tree(v["expr"], path + ".expr", b, 0))
        return *err;
      auto text = v.find("text");
      e = b.finish(text != v.end() && text->is_string() ? text->get<std::string>()
                                                        : std::string("<formula>"));
      if (!e)
        return error(path, e.error().message);
    } else if (v.is_number_integer()) {
      auto n = integer(v, path);
      if (!n)
        return n.takeError();
      e = DimExpr::constant(*n);
    } else if (v.is_string()) {
      e = DimExpr::parse(v.get_ref<const std::string &>());
      if (!e)
        return error(path, e.error().message);
    } else {
      return error(path, "must be a formula string or an integer");
    }
    for (const std::string &n : e->names())
      if (!dims.count(n))
        return error(path,
                     "formula `" + e->text() + "` uses `" + n + "`, which is not in \"dims\"");
    return e;
  }

  /// Converts a JSON formula tree ({"const": n}, {"dim": "M"},
  /// {"op": "div", "lhs": ..., "rhs": ...}) into builder nodes.
  std::optional<RuntimeError> tree(const json &t, const std::string &path, DimExpr::Builder &b,
                                   int depth, int *out = nullptr) const {
    using Op = DimExpr::Op;
    if (depth > 64)
      return error(path, "formula nests too deeply");
    if (!t.is_object())
      return error(path, "a formula tree node must be an object");
    int id;
    if (auto c = t.find("const"); c != t.end()) {
      auto n = integer(*c, path + ".const");
      if (!n)
        return n.takeError();
      id = b.constant(*n);
    } else if (auto d = t.find("dim"); d != t.end()) {
      if (!d->is_string())
        return error(path + ".dim", "must be a string");
      id = b.name(d->get<std::string>());
    } else if (auto o = t.find("op"); o != t.end() && o->is_string()) {
      static const std::pair<const char *, Op> ops[] = {
          {"add", Op::Add},      {"sub", Op::Sub},      {"mul", Op::Mul},
          {"div", Op::ExactDiv}, {"cdiv", Op::CeilDiv}, {"floordiv", Op::FloorDiv},
          {"mod", Op::Mod},      {"neg", Op::Neg},      {"eq", Op::Eq},
          {"ne", Op::Ne},        {"lt", Op::Lt},        {"le", Op::Le},
          {"gt", Op::Gt},        {"ge", Op::Ge},        {"and", Op::And},
          {"or", Op::Or},        {"not", Op::Not}};
      const std::string &name = o->get_ref<const std::string &>();
      std::optional<Op> op;
      for (auto &[n, k] : ops)
        if (name == n)
          op = k;
      if (!op)
        return error(path + ".op", "unknown operator \"" + name + "\"");
      if (!t.contains("lhs"))
        return error(path, "operator \"" + name + "\" needs \"lhs\"");
      int lhs = -1, rhs = -1;
      if (auto err = tree(t["lhs"], path + ".lhs", b, depth + 1, &lhs))
        return err;
      if (*op == Op::Neg || *op == Op::Not) {
        id = b.unary(*op, lhs);
      } else {
        if (!t.contains("rhs"))
          return error(path, "operator \"" + name + "\" needs \"rhs\"");
        if (auto err = tree(t["rhs"], path + ".rhs", b, depth + 1, &rhs))
          return err;
        id = b.binary(*op, lhs, rhs);
      }
    } else {
      return error(path, "a formula tree node needs \"const\", \"dim\" or \"op\"");
    }
    if (out)
      *out = id;
    return std::nullopt;
  }

  /// 1 to 3 positive integers, missing trailing entries are 1.
  Result<Dim3> dim3(const json &v, const std::string &path) const {
    if (!v.is_array() || v.empty() || v.size() > 3)
      return error(path, "must be an array of 1 to 3 positive integers");
    std::uint32_t out[3] = {1, 1, 1};
    for (std::size_t i = 0; i < v.size(); ++i) {
      auto n = integer(v[i], path + "[" + std::to_string(i) + "]");
      if (!n)
        return n.takeError();
      if (*n < 1 || *n > std::int64_t(UINT32_MAX))
        return error(path + "[" + std::to_string(i) + "]", "must be a positive 32-bit integer");
      out[i] = std::uint32_t(*n);
    }
    return Dim3{out[0], out[1], out[2]};
  }

  static std::string join(const std::string &path, const std::string &key) {
    return path.empty() ? key : path + "." + key;
  }

private:
  std::string label_;
};

/// Recognises a condition tree `eq(mod(e, m), r)` whose text reads
/// "<e> mod <m> = <r>" and returns it as a modular fact, so refusals can show
/// the remainder ("1000 mod 128 = 104").
std::optional<RequiresFact> asModularFact(const DimExpr &cond, const std::set<std::string> &dims) {
  using Op = DimExpr::Op;
  const auto &n = cond.nodes();
  const DimExpr::Node &root = n[std::size_t(cond.root())];
  if (root.op != Op::Eq || root.lhs < 0 || root.rhs < 0)
    return std::nullopt;
  const DimExpr::Node &mod = n[std::size_t(root.lhs)];
  const DimExpr::Node &rem = n[std::size_t(root.rhs)];
  if (mod.op != Op::Mod || rem.op != Op::Const || mod.rhs < 0)
    return std::nullopt;
  const DimExpr::Node &m = n[std::size_t(mod.rhs)];
  if (m.op != Op::Const || m.value <= 0 || rem.value < 0 || rem.value >= m.value)
    return std::nullopt;
  std::string suffix = " mod " + std::to_string(m.value) + " = " + std::to_string(rem.value);
  const std::string &text = cond.text();
  if (text.size() <= suffix.size() ||
      text.compare(text.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  auto expr = DimExpr::parse(text.substr(0, text.size() - suffix.size()));
  if (!expr)
    return std::nullopt;
  for (const std::string &name : expr->names())
    if (!dims.count(name))
      return std::nullopt;
  RequiresFact f;
  f.expr = expr.take();
  f.modulus = m.value;
  f.remainder = rem.value;
  return f;
}

} // namespace

Result<LaunchSpec> parseLaunchSpecWith(const json &j, const Reader &r) {
  if (!j.is_object())
    return r.error("", "launch metadata must be a JSON object");
  LaunchSpec s;
  auto schema = r.str(j, "schema", "");
  if (!schema)
    return schema.takeError();
  if (*schema != kLaunchSchema)
    return r.error("schema", "unsupported schema \"" + *schema + "\" (this runtime reads \"" +
                                 kLaunchSchema + "\")");
#define KINA_TRY_STR(field, key, required)                                                         \
  do {                                                                                             \
    auto v = r.str(j, key, "", required);                                                          \
    if (!v)                                                                                        \
      return v.takeError();                                                                        \
    s.field = v.take();                                                                            \
  } while (0)
  KINA_TRY_STR(kernel, "kernel", true);
  KINA_TRY_STR(symbol, "symbol", false);
  if (s.symbol.empty())
    KINA_TRY_STR(symbol, "entry", false); // codegen's name for it
  KINA_TRY_STR(target, "target", true);
  KINA_TRY_STR(cubin, "cubin", false);
#undef KINA_TRY_STR
  if (s.kernel.empty())
    return r.error("kernel", "must not be empty");
  if (s.symbol.empty())
    s.symbol = s.kernel;
  if (s.target.empty())
    return r.error("target", "must not be empty");

  // dims
  std::set<std::string> dimSet;
  if (auto it = j.find("dims"); it != j.end()) {
    if (!it->is_array())
      return r.error("dims", "must be an array of names");
    for (std::size_t i = 0; i < it->size(); ++i) {
      const json &d = (*it)[i];
      std::string path = "dims[" + std::to_string(i) + "]";
      if (!d.is_string())
        return r.error(path, "must be a string");
      const std::string &name = d.get_ref<const std::string &>();
      auto parsed = DimExpr::parse(name);
      if (!parsed || !parsed->isName())
        return r.error(path, "`" + name + "` is not a dim name");
      if (!dimSet.insert(name).second)
        return r.error(path, "duplicate dim `" + name + "`");
      s.dims.push_back(name);
    }
  }

  // grid
  auto grid = j.find("grid");
  if (grid == j.end())
    return r.error("", "missing \"grid\"");
  if (!grid->is_array() || grid->empty() || grid->size() > 3)
    return r.error("grid", "must be an array of 1 to 3 formulas");
  for (std::size_t i = 0; i < grid->size(); ++i) {
    auto f = r.formula((*grid)[i], "grid[" + std::to_string(i) + "]", dimSet);
    if (!f)
      return f.takeError();
    s.grid[i] = f.take();
  }

  // block, cluster
  auto block = j.find("block");
  if (block == j.end())
    return r.error("", "missing \"block\"");
  auto b = r.dim3(*block, "block");
  if (!b)
    return b.takeError();
  s.block = *b;
  if (auto it = j.find("cluster"); it != j.end()) {
    auto c = r.dim3(*it, "cluster");
    if (!c)
      return c.takeError();
    s.cluster = *c;
  }

  // shared memory
  for (auto [key, field] : {std::pair{"dynamic_smem_bytes", &s.dynamicSharedBytes},
                            std::pair{"static_smem_bytes", &s.staticSharedBytes},
                            std::pair{"dynamic_shared_bytes", &s.dynamicSharedBytes},
                            std::pair{"static_shared_bytes", &s.staticSharedBytes}}) {
    if (auto it = j.find(key); it != j.end()) {
      auto n = r.integer(*it, key);
      if (!n)
        return n.takeError();
      if (*n < 0)
        return r.error(key, "must not be negative");
      *field = *n;
    }
  }

  // params
  auto params = j.find("params");
  if (params == j.end() || !params->is_array())
    return r.error("params", "missing or not an array");
  std::set<std::string> paramNames;
  for (std::size_t i = 0; i < params->size(); ++i) {
    const json &pj = (*params)[i];
    std::string path = "params[" + std::to_string(i) + "]";
    if (!pj.is_object())
      return r.error(path, "must be an object");
    ParamSpec p;
    auto name = r.str(pj, "name", path);
    if (!name)
      return name.takeError();
    p.name = name.take();
    if (p.name.empty() || !paramNames.insert(p.name).second)
      return r.error(path + ".name", "empty or duplicate parameter name `" + p.name + "`");
    auto kind = r.str(pj, "kind", path);
    if (!kind)
      return kind.takeError();
    if (*kind == "tensor") {
      p.kind = ParamKind::Tensor;
      auto dt = r.str(pj, "dtype", path);
      if (!dt)
        return dt.takeError();
      auto parsed = parseDType(*dt);
      if (!parsed)
        return r.error(path + ".dtype",
                       "unknown dtype \"" + *dt + "\" (f16, bf16, f32, f64, i8, u8, i32, i64)");
      p.dtype = *parsed;
      auto shape = pj.find("shape");
      if (shape == pj.end() || !shape->is_array())
        return r.error(path + ".shape", "missing or not an array of formulas");
      for (std::size_t k = 0; k < shape->size(); ++k) {
        auto f = r.formula((*shape)[k], path + ".shape[" + std::to_string(k) + "]", dimSet);
        if (!f)
          return f.takeError();
        p.shape.push_back(f.take());
      }
      auto role = r.str(pj, "role", path, /*required=*/false);
      if (!role)
        return role.takeError();
      if (role->empty()) {
        // Codegen's form: "result" (the returned tensor) and "writable".
        auto flag = [&](const char *key) -> Result<bool> {
          auto it = pj.find(key);
          if (it == pj.end())
            return false;
          if (!it->is_boolean())
            return r.error(path + "." + key, "must be true or false");
          return it->get<bool>();
        };
        auto result = flag("result");
        auto writable = flag("writable");
        if (!result)
          return result.takeError();
        if (!writable)
          return writable.takeError();
        if (!pj.contains("result") && !pj.contains("writable"))
          return r.error(path, "missing \"role\"");
        *role = *result ? "output" : *writable ? "inout" : "input";
      }
      if (*role == "input")
        p.role = ParamRole::Input;
      else if (*role == "output")
        p.role = ParamRole::Output;
      else if (*role == "inout")
        p.role = ParamRole::InOut;
      else
        return r.error(path + ".role", "must be \"input\", \"output\" or \"inout\"");
    } else if (*kind == "dim") {
      p.kind = ParamKind::Dim;
      auto type = r.str(pj, "type", path, false);
      if (!type)
        return type.takeError();
      if (type->empty()) {
        type = r.str(pj, "abi", path, false); // codegen's name for it
        if (!type)
          return type.takeError();
      }
      if (type->empty() || *type == "i32")
        p.intBits = 32;
      else if (*type == "i64")
        p.intBits = 64;
      else
        return r.error(path + ".type", "must be \"i32\" or \"i64\"");
      if (auto v = pj.find("value"); v != pj.end()) {
        auto f = r.formula(*v, path + ".value", dimSet);
        if (!f)
          return f.takeError();
        p.value = f.take();
      } else {
        if (!dimSet.count(p.name))
          return r.error(path,
                         "dim parameter `" + p.name + "` is not in \"dims\" and has no \"value\"");
        p.value = DimExpr::parse(p.name).take();
      }
    } else if (*kind == "scalar") {
      p.kind = ParamKind::Scalar;
      auto type = r.str(pj, "abi", path, false);
      if (!type)
        return type.takeError();
      if (type->empty()) {
        type = r.str(pj, "type", path, false);
        if (!type)
          return type.takeError();
      }
      std::string t;
      for (char c : *type)
        t.push_back(char(std::tolower(static_cast<unsigned char>(c))));
      if (scalarTypeSize(t) == 0)
        return r.error(path + ".abi", "unknown scalar type \"" + *type +
                                          "\" (f16, bf16, f32, f64, i8, u8, i32, i64)");
      p.scalarType = t;
    } else if (*kind == "tensor_map") {
      p.kind = ParamKind::TensorMap;
      auto tensor = r.str(pj, "tensor", path, true);
      if (!tensor)
        return tensor.takeError();
      bool known = false;
      for (const ParamSpec &q : s.params)
        known |= q.kind == ParamKind::Tensor && q.name == *tensor;
      if (!known)
        return r.error(path + ".tensor", "`" + *tensor + "` is not an earlier tensor parameter");
      p.tensor = tensor.take();
      auto dt = r.str(pj, "dtype", path, true);
      if (!dt)
        return dt.takeError();
      auto d = parseDType(*dt);
      if (!d)
        return r.error(path + ".dtype", "unknown dtype \"" + *dt + "\"");
      p.dtype = *d;
      auto box = pj.find("box");
      if (box == pj.end() || !box->is_array() || box->empty())
        return r.error(path + ".box", "must be a non-empty array of extents");
      for (std::size_t b = 0; b < box->size(); ++b) {
        auto v = r.integer((*box)[b], path + ".box[" + std::to_string(b) + "]");
        if (!v)
          return v.takeError();
        p.box.push_back(*v);
      }
      auto sw = r.str(pj, "swizzle", path, false);
      if (!sw)
        return sw.takeError();
      if (*sw != "128B" && *sw != "none" && !sw->empty())
        return r.error(path + ".swizzle", "must be \"128B\" or \"none\"");
      p.swizzle128B = *sw != "none";
    } else {
      return r.error(path + ".kind",
                     "must be \"tensor\", \"scalar\", \"dim\" or \"tensor_map\"");
    }
    s.params.push_back(std::move(p));
  }

  // requires
  if (auto it = j.find("requires"); it != j.end()) {
    if (!it->is_array())
      return r.error("requires", "must be an array");
    for (std::size_t i = 0; i < it->size(); ++i) {
      const json &fj = (*it)[i];
      std::string path = "requires[" + std::to_string(i) + "]";
      if (fj.is_object() && fj.contains("expr") && fj["expr"].is_object() &&
          !fj.contains("modulus")) {
        // Codegen's form: a boolean condition tree with its text.
        auto cond = r.formula(fj, path, dimSet);
        if (!cond)
          return cond.takeError();
        RequiresFact f;
        const std::string &text = cond->text();
        f.source = text.rfind("requires", 0) == 0 ? text : "requires (" + text + ")";
        if (auto mod = asModularFact(*cond, dimSet)) {
          // `e mod m = r`: keep the modular form for the detailed message.
          mod->source = f.source;
          s.requirements.push_back(std::move(*mod));
          continue;
        }
        f.condition = cond.take();
        s.requirements.push_back(std::move(f));
        continue;
      }
      if (!fj.is_object() || !fj.contains("expr") || !fj.contains("modulus"))
        return r.error(path, "must be an object with \"expr\" and \"modulus\"");
      RequiresFact f;
      auto e = r.formula(fj["expr"], path + ".expr", dimSet);
      if (!e)
        return e.takeError();
      f.expr = e.take();
      auto m = r.integer(fj["modulus"], path + ".modulus");
      if (!m)
        return m.takeError();
      if (*m < 1)
        return r.error(path + ".modulus", "must be positive");
      f.modulus = *m;
      if (auto rem = fj.find("remainder"); rem != fj.end()) {
        auto v = r.integer(*rem, path + ".remainder");
        if (!v)
          return v.takeError();
        if (*v < 0 || *v >= f.modulus)
          return r.error(path + ".remainder", "must be in [0, modulus)");
        f.remainder = *v;
      }
      auto src = r.str(fj, "source", path, false);
      if (!src)
        return src.takeError();
      f.source = src.take();
      s.requirements.push_back(std::move(f));
    }
  }

  // capabilities
  if (auto it = j.find("capabilities"); it != j.end()) {
    if (!it->is_array())
      return r.error("capabilities", "must be an array of strings");
    for (std::size_t i = 0; i < it->size(); ++i) {
      if (!(*it)[i].is_string())
        return r.error("capabilities[" + std::to_string(i) + "]", "must be a string");
      s.capabilities.push_back((*it)[i].get<std::string>());
    }
  }

  // optional formulas
  for (auto [key, field] : {std::pair{"flops", &s.flops}, std::pair{"reduction", &s.reduction}}) {
    if (auto it = j.find(key); it != j.end()) {
      auto f = r.formula(*it, key, dimSet);
      if (!f)
        return f.takeError();
      *field = f.take();
    }
  }
  return s;
}

Result<LaunchSpec> launchSpecFromJson(const json &j) {
  return parseLaunchSpecWith(j, Reader("launch metadata"));
}

Result<LaunchSpec> parseLaunchSpec(const std::string &text, const std::string &label) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    return makeError(ErrorKind::InvalidMetadata, label + ": not valid JSON");
  return parseLaunchSpecWith(j, Reader(label));
}

Result<LaunchSpec> loadLaunchSpec(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return makeError(ErrorKind::Io, "cannot open launch metadata " + path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parseLaunchSpec(text, path);
}

static json treeJson(const DimExpr &e, int id) {
  using Op = DimExpr::Op;
  const DimExpr::Node &n = e.nodes()[std::size_t(id)];
  static const std::pair<Op, const char *> ops[] = {
      {Op::Add, "add"},      {Op::Sub, "sub"},      {Op::Mul, "mul"},
      {Op::ExactDiv, "div"}, {Op::CeilDiv, "cdiv"}, {Op::FloorDiv, "floordiv"},
      {Op::Mod, "mod"},      {Op::Neg, "neg"},      {Op::Eq, "eq"},
      {Op::Ne, "ne"},        {Op::Lt, "lt"},        {Op::Le, "le"},
      {Op::Gt, "gt"},        {Op::Ge, "ge"},        {Op::And, "and"},
      {Op::Or, "or"},        {Op::Not, "not"}};
  if (n.op == Op::Const)
    return json{{"const", n.value}};
  if (n.op == Op::Name)
    return json{{"dim", n.name}};
  json j;
  for (auto &[k, name] : ops)
    if (k == n.op)
      j["op"] = name;
  j["lhs"] = treeJson(e, n.lhs);
  if (n.rhs >= 0)
    j["rhs"] = treeJson(e, n.rhs);
  return j;
}

static json formulaJson(const DimExpr &e) {
  // Formulas built from trees may have display text that does not parse.
  if (!DimExpr::parse(e.text()))
    return json{{"text", e.text()}, {"expr", treeJson(e, e.root())}};
  if (e.names().empty()) {
    if (auto v = e.evaluate({}))
      return *v;
  }
  return e.text();
}

json launchSpecToJson(const LaunchSpec &s) {
  json j;
  j["schema"] = kLaunchSchema;
  j["kernel"] = s.kernel;
  j["symbol"] = s.symbol;
  j["target"] = s.target;
  if (!s.cubin.empty())
    j["cubin"] = s.cubin;
  j["dims"] = s.dims;
  j["grid"] = json::array();
  for (const DimExpr &g : s.grid)
    j["grid"].push_back(formulaJson(g));
  j["block"] = {s.block.x, s.block.y, s.block.z};
  if (s.cluster.volume() > 0)
    j["cluster"] = {s.cluster.x, s.cluster.y, s.cluster.z};
  j["dynamic_smem_bytes"] = s.dynamicSharedBytes;
  if (s.staticSharedBytes >= 0)
    j["static_smem_bytes"] = s.staticSharedBytes;
  j["params"] = json::array();
  for (const ParamSpec &p : s.params) {
    json pj;
    pj["name"] = p.name;
    pj["kind"] = std::string(paramKindName(p.kind));
    if (p.kind == ParamKind::Tensor) {
      pj["dtype"] = std::string(dtypeName(p.dtype));
      pj["shape"] = json::array();
      for (const DimExpr &e : p.shape)
        pj["shape"].push_back(formulaJson(e));
      pj["role"] = std::string(paramRoleName(p.role));
    } else if (p.kind == ParamKind::Scalar) {
      pj["abi"] = p.scalarType;
    } else if (p.kind == ParamKind::TensorMap) {
      pj["tensor"] = p.tensor;
      pj["dtype"] = std::string(dtypeName(p.dtype));
      pj["box"] = p.box;
      pj["swizzle"] = p.swizzle128B ? "128B" : "none";
      pj["abi"] = "tensormap";
    } else {
      pj["type"] = p.intBits == 64 ? "i64" : "i32";
      pj["value"] = formulaJson(p.value);
    }
    j["params"].push_back(std::move(pj));
  }
  j["requires"] = json::array();
  for (const RequiresFact &f : s.requirements) {
    json fj;
    if (f.condition) {
      fj["text"] = f.clause();
      fj["expr"] = treeJson(*f.condition, f.condition->root());
      j["requires"].push_back(std::move(fj));
      continue;
    }
    fj["expr"] = f.expr.text();
    fj["modulus"] = f.modulus;
    if (f.remainder != 0)
      fj["remainder"] = f.remainder;
    fj["source"] = f.clause();
    j["requires"].push_back(std::move(fj));
  }
  j["capabilities"] = s.capabilities;
  if (s.flops)
    j["flops"] = s.flops->text();
  if (s.reduction)
    j["reduction"] = s.reduction->text();
  return j;
}

std::string launchSpecToText(const LaunchSpec &s) { return launchSpecToJson(s).dump(2) + "\n"; }

Status saveLaunchSpec(const std::string &path, const LaunchSpec &s) {
  std::ofstream out(path, std::ios::binary);
  if (!out)
    return makeError(ErrorKind::Io, "cannot create " + path);
  out << launchSpecToText(s);
  if (!out)
    return makeError(ErrorKind::Io, "cannot write " + path);
  return {};
}

} // namespace kina::runtime
