//===- LaunchMetadata.cpp - Launch metadata and its JSON form -------------===//
//
// Builds LaunchMetadata from a tile IR kernel, converts it to and from JSON
// (nlohmann), and evaluates its formulas for concrete dims.
//
//===----------------------------------------------------------------------===//
#include "codegen/LaunchMetadata.h"

#include "codegen/HopperLayout.h"
#include "codegen/IndexWidth.h"

#include "ir/Printer.h"
#include "ir/Verifier.h"

#include <nlohmann/json.hpp>

namespace kina::codegen {

using json = nlohmann::json;
using Kind = ir::IndexExpr::Kind;

namespace {

const std::pair<Kind, const char *> kOps[] = {
    {Kind::Add, "add"},     {Kind::Sub, "sub"}, {Kind::Mul, "mul"},
    {Kind::Div, "div"},     {Kind::Mod, "mod"}, {Kind::Eq, "eq"},
    {Kind::Ne, "ne"},       {Kind::Lt, "lt"},   {Kind::Le, "le"},
    {Kind::Gt, "gt"},       {Kind::Ge, "ge"},   {Kind::And, "and"},
    {Kind::Or, "or"},       {Kind::Not, "not"}, {Kind::FloorDiv, "floordiv"},
    {Kind::CeilDiv, "cdiv"}};

json exprToJson(const std::vector<std::string> &dims, const ir::IndexExpr &e) {
  switch (e.kind()) {
  case Kind::Const:
    return json{{"const", e.value()}};
  case Kind::Dim:
    return json{{"dim", e.index() < dims.size() ? dims[e.index()] : "?"}};
  case Kind::BlockId:
  case Kind::WarpId:
  case Kind::WarpgroupId:
  case Kind::ClusterRank:
  case Kind::Var:
    return json{{"invalid", "non-dim leaf"}};
  default:
    break;
  }
  json j;
  for (auto &[k, name] : kOps)
    if (k == e.kind())
      j["op"] = name;
  j["lhs"] = exprToJson(dims, e.lhs());
  if (e.kind() != Kind::Not)
    j["rhs"] = exprToJson(dims, e.rhs());
  return j;
}

llvm::Expected<ir::IndexExpr> exprFromJson(const std::vector<std::string> &dims, const json &j) {
  if (!j.is_object())
    return llvm::createStringError("launch metadata: a formula must be an object");
  if (j.contains("const") && j["const"].is_number_integer())
    return ir::IndexExpr::constant(j["const"].get<int64_t>());
  if (j.contains("dim") && j["dim"].is_string()) {
    auto name = j["dim"].get<std::string>();
    for (size_t i = 0; i < dims.size(); ++i)
      if (dims[i] == name)
        return ir::IndexExpr::dim(static_cast<ir::DimId>(i));
    return llvm::createStringError("launch metadata: unknown dim '" + name + "'");
  }
  if (!j.contains("op") || !j["op"].is_string())
    return llvm::createStringError("launch metadata: a formula needs const, dim or op");
  auto op = j["op"].get<std::string>();
  for (auto &[k, name] : kOps) {
    if (op != name)
      continue;
    if (!j.contains("lhs"))
      return llvm::createStringError("launch metadata: '" + op + "' needs lhs");
    auto lhs = exprFromJson(dims, j["lhs"]);
    if (!lhs)
      return lhs.takeError();
    if (k == Kind::Not)
      return ir::IndexExpr::logicalNot(*lhs);
    if (!j.contains("rhs"))
      return llvm::createStringError("launch metadata: '" + op + "' needs rhs");
    auto rhs = exprFromJson(dims, j["rhs"]);
    if (!rhs)
      return rhs.takeError();
    return ir::IndexExpr::binary(k, *lhs, *rhs);
  }
  return llvm::createStringError("launch metadata: unknown operator '" + op + "'");
}

} // namespace

std::string scalarAbi(ir::DType t) {
  switch (t) {
  case ir::DType::F16:
    return "f16";
  case ir::DType::BF16:
    return "bf16";
  case ir::DType::F32:
    return "f32";
  case ir::DType::F64:
    return "f64";
  case ir::DType::I8:
    return "i8";
  case ir::DType::U8:
    return "u8";
  case ir::DType::I32:
    return "i32";
  case ir::DType::I64:
    return "i64";
  }
  return "?";
}

namespace {

json formulaToJson(const LaunchMetadata &m, const LaunchFormula &f) {
  return json{{"text", f.text}, {"expr", exprToJson(m.dims, f.expr)}};
}

/// Replaces let-bound variables by their values; nullopt when `e` depends on
/// block/warp ids or loop variables.
std::optional<ir::IndexExpr> overDims(const ir::IndexExpr &e,
                                      const std::map<ir::VarId, ir::IndexExpr> &lets) {
  switch (e.kind()) {
  case Kind::Const:
  case Kind::Dim:
    return e;
  case Kind::Var: {
    auto it = lets.find(e.index());
    if (it == lets.end())
      return std::nullopt;
    return it->second;
  }
  case Kind::BlockId:
  case Kind::WarpId:
  case Kind::WarpgroupId:
  case Kind::ClusterRank:
    return std::nullopt;
  case Kind::Not: {
    auto l = overDims(e.lhs(), lets);
    if (!l)
      return std::nullopt;
    return ir::IndexExpr::logicalNot(*l);
  }
  default: {
    auto l = overDims(e.lhs(), lets), r = overDims(e.rhs(), lets);
    if (!l || !r)
      return std::nullopt;
    return ir::IndexExpr::binary(e.kind(), *l, *r);
  }
  }
}

struct MmaSite {
  const ir::MmaOp *op = nullptr;
  std::optional<ir::IndexExpr> trips; ///< trip count of the enclosing loop
  unsigned count = 0;
  bool nested = false;
};

void findMma(const ir::Block &b, std::map<ir::VarId, ir::IndexExpr> &lets,
             std::optional<ir::IndexExpr> trips, unsigned depth, MmaSite &site) {
  for (const ir::Op &op : b.ops) {
    if (auto *o = op.as<ir::LetOp>()) {
      if (auto v = overDims(o->value, lets))
        lets[o->var] = *v;
    } else if (auto *o = op.as<ir::MmaOp>()) {
      ++site.count;
      site.op = o;
      site.trips = trips;
      site.nested = depth > 1;
    } else if (auto *o = op.as<ir::ForOp>()) {
      auto lo = overDims(o->lower, lets), hi = overDims(o->upper, lets);
      std::optional<ir::IndexExpr> t;
      auto step = o->step.asConstant();
      if (lo && hi && step == 1)
        t = lo->asConstant() == 0 ? *hi : *hi - *lo;
      else if (lo && hi && step && *step > 1) // ceil((hi - lo) / step) trips
        t = ir::ceilDiv(lo->asConstant() == 0 ? *hi : *hi - *lo, *step);
      findMma(o->body, lets, t, depth + 1, site);
    } else if (auto *o = op.as<ir::IfOp>()) {
      findMma(o->thenBody, lets, trips, depth, site);
      findMma(o->elseBody, lets, trips, depth, site);
    }
  }
}

struct WgmmaSite {
  const ir::WgmmaOp *op = nullptr;
  std::optional<ir::IndexExpr> trips;
  unsigned count = 0;
  bool nested = false;
  int64_t warpgroups = 0; ///< warpgroups that run it
  /// Inside a persistent tile loop `for t in (block_id d .. T step G)` with
  /// G the grid's extent along d: T tiles over all blocks (hopper2.md).
  std::optional<ir::IndexExpr> tiles;
};

/// `for t in (block_id d .. T step G)`, G the block grid along d and the
/// only grid axis: T over the dims, else none.
std::optional<ir::IndexExpr> tileLoopCount(const ir::Kernel &k, const ir::ForOp &o,
                                           std::map<ir::VarId, ir::IndexExpr> &lets) {
  if (o.lower.kind() != Kind::BlockId || o.lower.index() != 0 ||
      !o.step.structurallyEqual(k.blockGrid[0]) ||
      k.blockGrid[1].asConstant() != std::optional<int64_t>(1) ||
      k.blockGrid[2].asConstant() != std::optional<int64_t>(1))
    return std::nullopt;
  return overDims(o.upper, lets);
}

void findWgmma(const ir::Kernel &k, const ir::Block &b, std::map<ir::VarId, ir::IndexExpr> &lets,
               std::optional<ir::IndexExpr> trips, unsigned depth, int64_t warpgroups,
               WgmmaSite &site, std::optional<ir::IndexExpr> tiles = std::nullopt) {
  for (const ir::Op &op : b.ops) {
    if (auto *o = op.as<ir::LetOp>()) {
      if (auto v = overDims(o->value, lets))
        lets[o->var] = *v;
    } else if (auto *o = op.as<ir::WgmmaOp>()) {
      ++site.count;
      site.op = o;
      site.trips = trips;
      site.nested = depth > 1;
      site.warpgroups = warpgroups;
      site.tiles = tiles;
    } else if (auto *o = op.as<ir::RoleOp>()) {
      findWgmma(k, o->body, lets, trips, depth, o->lastWarpgroup - o->firstWarpgroup + 1, site,
                tiles);
    } else if (auto *o = op.as<ir::ForOp>(); o && !tiles && tileLoopCount(k, *o, lets)) {
      findWgmma(k, o->body, lets, trips, depth, warpgroups, site, tileLoopCount(k, *o, lets));
    } else if (auto *o = op.as<ir::ForOp>()) {
      auto lo = overDims(o->lower, lets), hi = overDims(o->upper, lets);
      std::optional<ir::IndexExpr> t;
      auto step = o->step.asConstant();
      if (lo && hi && step == 1)
        t = lo->asConstant() == 0 ? *hi : *hi - *lo;
      else if (lo && hi && step && *step > 1) // ceil((hi - lo) / step) trips
        t = ir::ceilDiv(lo->asConstant() == 0 ? *hi : *hi - *lo, *step);
      findWgmma(k, o->body, lets, t, depth + 1, warpgroups, site, tiles);
    } else if (auto *o = op.as<ir::IfOp>()) {
      // An `if` between a persistent tile loop and the reduction loop
      // hands each tile to one warpgroup (ping-pong consumers): a tile is
      // one accumulator's work, not the role's.
      int64_t wgs = tiles && !trips ? 1 : warpgroups;
      findWgmma(k, o->thenBody, lets, trips, depth, wgs, site, tiles);
      findWgmma(k, o->elseBody, lets, trips, depth, wgs, site, tiles);
    }
  }
}

} // namespace

LaunchMetadata makeLaunchMetadata(const ir::Kernel &kernel, const std::string &target,
                                  const std::string &ptxVersion, uint64_t staticSharedBytes,
                                  uint64_t dynamicSharedBytes) {
  LaunchMetadata m;
  m.kernel = kernel.name;
  m.entry = kernel.name;
  m.target = target;
  m.ptxVersion = ptxVersion;
  for (const auto &d : kernel.dims)
    m.dims.push_back(d.name);
  for (const auto &p : kernel.params) {
    LaunchParam lp;
    lp.kind = LaunchParam::Kind::Tensor;
    lp.name = p.name;
    lp.dtype = std::string(ir::dtypeName(p.dtype));
    for (const auto &s : p.shape)
      lp.shape.push_back(ir::printIndex(kernel, s));
    lp.writable = p.writable;
    lp.result = p.isResult;
    lp.zeroInit = p.zeroInit;
    lp.abi = "ptr";
    m.params.push_back(std::move(lp));
  }
  for (const auto &p : kernel.scalars) {
    LaunchParam lp;
    lp.kind = LaunchParam::Kind::Scalar;
    lp.name = p.name;
    lp.dtype = std::string(ir::dtypeName(p.dtype));
    lp.abi = scalarAbi(p.dtype);
    m.params.push_back(std::move(lp));
  }
  for (const auto &d : kernel.dims) {
    LaunchParam lp;
    lp.kind = LaunchParam::Kind::Dim;
    lp.name = d.name;
    lp.abi = "i32";
    m.params.push_back(std::move(lp));
  }
  for (const TensorMapUse &u : planTensorMaps(kernel)) {
    LaunchParam lp;
    lp.kind = LaunchParam::Kind::TensorMap;
    lp.tensor = kernel.params[u.param].name;
    lp.name = lp.tensor + ".map" + std::to_string(u.boxRows) + "x" + std::to_string(u.boxCols);
    lp.dtype = std::string(ir::dtypeName(u.dtype));
    lp.box = {u.boxRows, u.boxCols};
    lp.swizzle = "128B";
    lp.abi = "tensormap";
    m.params.push_back(std::move(lp));
  }
  for (int i = 0; i < 3; ++i)
    m.grid[i] = {ir::printIndex(kernel, kernel.blockGrid[i]), kernel.blockGrid[i]};
  m.block[0] = kernel.threadsPerBlock();
  for (int i = 0; i < 3; ++i)
    m.cluster[i] = static_cast<unsigned>(kernel.cluster[i]);
  m.staticSharedBytes = staticSharedBytes;
  m.dynamicSharedBytes = dynamicSharedBytes;
  for (const auto &r : kernel.requirements)
    m.requires_.push_back(
        {r.text.empty() ? ir::printIndex(kernel, r.condition) : r.text, r.condition});
  // Index values the PTX computes in 32 bits must fit there (IndexWidth.h).
  for (auto &[text, cond] : indexWidthRequirements(kernel))
    m.requires_.push_back({std::move(text), std::move(cond)});
  m.capabilities = kernel.capabilities;

  // A Hopper GEMM: exactly one wgmma, in one loop (inside a role or not);
  // each warpgroup running it computes [64, N] += [64, Kslice] x [Kslice, N]
  // per trip.
  {
    std::map<ir::VarId, ir::IndexExpr> wlets;
    WgmmaSite w;
    findWgmma(kernel, kernel.body, wlets, std::nullopt, 0, kernel.warpgroups, w);
    if (w.count == 1 && w.trips && !w.nested && w.op->acc < kernel.tiles.size()) {
      auto a = ir::accessShape(kernel, w.op->a);
      const auto &acc = kernel.tiles[w.op->acc].shape;
      if (a.size() == 2 && acc.size() == 2) {
        ir::IndexExpr red = *w.trips * a[1];
        ir::IndexExpr blocks = kernel.blockGrid[0] * kernel.blockGrid[1];
        if (kernel.blockGrid[2].asConstant() != std::optional<int64_t>(1))
          blocks = blocks * kernel.blockGrid[2];
        if (w.tiles) // a persistent kernel: every tile once, over all blocks
          blocks = *w.tiles;
        ir::IndexExpr fl =
            blocks * ir::IndexExpr::constant(2 * acc[0] * acc[1] * w.warpgroups) * red;
        m.reduction = LaunchFormula{ir::printIndex(kernel, red), red};
        m.flops = LaunchFormula{ir::printIndex(kernel, fl), fl};
        return m;
      }
    }
  }

  // A GEMM-shaped kernel: exactly one mma, in one loop whose trip count is a
  // formula over the dims.
  std::map<ir::VarId, ir::IndexExpr> lets;
  MmaSite site;
  findMma(kernel.body, lets, std::nullopt, 0, site);
  if (site.count == 1 && site.trips && !site.nested && site.op->acc < kernel.tiles.size()) {
    auto a = ir::accessShape(kernel, site.op->a);
    const auto &acc = kernel.tiles[site.op->acc].shape;
    if (a.size() == 2 && acc.size() == 2) {
      ir::IndexExpr red = *site.trips * a[1];
      ir::IndexExpr blocks = kernel.blockGrid[0] * kernel.blockGrid[1];
      if (kernel.blockGrid[2].asConstant() != std::optional<int64_t>(1))
        blocks = blocks * kernel.blockGrid[2];
      ir::IndexExpr fl =
          blocks *
          ir::IndexExpr::constant(2 * acc[0] * acc[1] * kernel.warpGrid[0] * kernel.warpGrid[1]) *
          red;
      m.reduction = LaunchFormula{ir::printIndex(kernel, red), red};
      m.flops = LaunchFormula{ir::printIndex(kernel, fl), fl};
    }
  }
  return m;
}

json toJson(const LaunchMetadata &m) {
  json j;
  j["schema"] = LaunchMetadata::kSchema;
  j["kernel"] = m.kernel;
  j["entry"] = m.entry;
  j["target"] = m.target;
  j["ptx_version"] = m.ptxVersion;
  j["dims"] = m.dims;
  j["params"] = json::array();
  for (const auto &p : m.params) {
    json jp{{"name", p.name},
            {"kind", p.kind == LaunchParam::Kind::Tensor      ? "tensor"
                     : p.kind == LaunchParam::Kind::Scalar    ? "scalar"
                     : p.kind == LaunchParam::Kind::TensorMap ? "tensor_map"
                                                              : "dim"},
            {"abi", p.abi}};
    if (p.kind == LaunchParam::Kind::Scalar)
      jp["dtype"] = p.dtype;
    if (p.kind == LaunchParam::Kind::TensorMap) {
      jp["tensor"] = p.tensor;
      jp["dtype"] = p.dtype;
      jp["box"] = p.box;
      jp["swizzle"] = p.swizzle;
    }
    if (p.kind == LaunchParam::Kind::Tensor) {
      jp["dtype"] = p.dtype;
      jp["shape"] = p.shape;
      jp["writable"] = p.writable;
      jp["result"] = p.result;
      if (p.zeroInit)
        jp["init"] = "zero"; // a result updated with atomics (ir/Atomics.cpp)
    }
    j["params"].push_back(std::move(jp));
  }
  j["grid"] = json::array();
  for (const auto &g : m.grid)
    j["grid"].push_back(formulaToJson(m, g));
  j["block"] = {m.block[0], m.block[1], m.block[2]};
  if (m.cluster[0] * m.cluster[1] * m.cluster[2] != 1)
    j["cluster"] = {m.cluster[0], m.cluster[1], m.cluster[2]};
  j["static_shared_bytes"] = m.staticSharedBytes;
  j["dynamic_shared_bytes"] = m.dynamicSharedBytes;
  j["requires"] = json::array();
  for (const auto &r : m.requires_)
    j["requires"].push_back(formulaToJson(m, r));
  j["capabilities"] = m.capabilities;
  if (!m.cubin.empty())
    j["cubin"] = m.cubin;
  if (m.flops)
    j["flops"] = formulaToJson(m, *m.flops);
  if (m.reduction)
    j["reduction"] = formulaToJson(m, *m.reduction);
  return j;
}

std::string toJsonText(const LaunchMetadata &meta) { return toJson(meta).dump(2) + "\n"; }

llvm::Expected<LaunchMetadata> launchMetadataFromJson(const std::string &text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return llvm::createStringError("launch metadata: not a JSON object");
  if (j.value("schema", "") != LaunchMetadata::kSchema)
    return llvm::createStringError(std::string("launch metadata: schema is not ") +
                                   LaunchMetadata::kSchema);
  auto str = [&](const json &o, const char *key) -> std::string {
    return o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
  };
  LaunchMetadata m;
  m.kernel = str(j, "kernel");
  m.entry = str(j, "entry");
  m.target = str(j, "target");
  m.ptxVersion = str(j, "ptx_version");
  if (!j.contains("dims") || !j["dims"].is_array() || !j.contains("params") ||
      !j["params"].is_array() || !j.contains("grid") || !j["grid"].is_array() ||
      j["grid"].size() != 3 || !j.contains("block") || !j["block"].is_array() ||
      j["block"].size() != 3)
    return llvm::createStringError(
        "launch metadata: dims, params, grid[3] and block[3] are required");
  for (const auto &d : j["dims"])
    if (d.is_string())
      m.dims.push_back(d.get<std::string>());
  for (const auto &p : j["params"]) {
    if (!p.is_object())
      return llvm::createStringError("launch metadata: a param must be an object");
    LaunchParam lp;
    std::string kind = str(p, "kind");
    lp.kind = kind == "dim"          ? LaunchParam::Kind::Dim
              : kind == "scalar"     ? LaunchParam::Kind::Scalar
              : kind == "tensor_map" ? LaunchParam::Kind::TensorMap
                                     : LaunchParam::Kind::Tensor;
    lp.tensor = str(p, "tensor");
    lp.swizzle = str(p, "swizzle");
    if (p.contains("box") && p["box"].is_array())
      for (const auto &b : p["box"])
        if (b.is_number_integer())
          lp.box.push_back(b.get<int64_t>());
    lp.name = str(p, "name");
    lp.abi = str(p, "abi");
    lp.dtype = str(p, "dtype");
    if (p.contains("shape") && p["shape"].is_array())
      for (const auto &s : p["shape"])
        if (s.is_string())
          lp.shape.push_back(s.get<std::string>());
    lp.writable = p.value("writable", false);
    lp.result = p.value("result", false);
    m.params.push_back(std::move(lp));
  }
  auto formula = [&](const json &f) -> llvm::Expected<LaunchFormula> {
    if (!f.is_object() || !f.contains("expr"))
      return llvm::createStringError("launch metadata: a formula needs text and expr");
    auto e = exprFromJson(m.dims, f["expr"]);
    if (!e)
      return e.takeError();
    return LaunchFormula{str(f, "text"), *e};
  };
  for (int i = 0; i < 3; ++i) {
    auto f = formula(j["grid"][i]);
    if (!f)
      return f.takeError();
    m.grid[i] = *f;
    if (!j["block"][i].is_number_unsigned())
      return llvm::createStringError("launch metadata: block sizes must be unsigned integers");
    m.block[i] = j["block"][i].get<unsigned>();
  }
  if (auto c = j.find("cluster"); c != j.end()) {
    if (!c->is_array() || c->size() != 3)
      return llvm::createStringError("launch metadata: cluster must have 3 extents");
    for (int i = 0; i < 3; ++i) {
      if (!(*c)[i].is_number_unsigned())
        return llvm::createStringError("launch metadata: cluster extents are unsigned");
      m.cluster[i] = (*c)[i].get<unsigned>();
    }
  }
  m.staticSharedBytes = j.value("static_shared_bytes", uint64_t(0));
  m.dynamicSharedBytes = j.value("dynamic_shared_bytes", uint64_t(0));
  if (j.contains("requires") && j["requires"].is_array())
    for (const auto &r : j["requires"]) {
      auto f = formula(r);
      if (!f)
        return f.takeError();
      m.requires_.push_back(*f);
    }
  m.cubin = str(j, "cubin");
  for (auto [key, slot] : {std::pair{"flops", &m.flops}, std::pair{"reduction", &m.reduction}})
    if (j.contains(key)) {
      auto f = formula(j[key]);
      if (!f)
        return f.takeError();
      *slot = *f;
    }
  if (j.contains("capabilities") && j["capabilities"].is_array())
    for (const auto &c : j["capabilities"])
      if (c.is_string())
        m.capabilities.push_back(c.get<std::string>());
  return m;
}

llvm::Expected<int64_t> evaluate(const LaunchMetadata &meta, const ir::IndexExpr &e,
                                 const std::map<std::string, int64_t> &dims) {
  switch (e.kind()) {
  case Kind::Const:
    return e.value();
  case Kind::Dim: {
    if (e.index() >= meta.dims.size())
      return llvm::createStringError("formula names an unknown dim");
    auto it = dims.find(meta.dims[e.index()]);
    if (it == dims.end())
      return llvm::createStringError("no value for dim '" + meta.dims[e.index()] + "'");
    return it->second;
  }
  case Kind::BlockId:
  case Kind::WarpId:
  case Kind::WarpgroupId:
  case Kind::ClusterRank:
  case Kind::Var:
    return llvm::createStringError("formula has a non-dim leaf");
  default:
    break;
  }
  auto l = evaluate(meta, e.lhs(), dims);
  if (!l)
    return l.takeError();
  if (e.kind() == Kind::Not)
    return *l == 0 ? 1 : 0;
  auto r = evaluate(meta, e.rhs(), dims);
  if (!r)
    return r.takeError();
  // The operator's meaning is IndexExpr's own (asConstant folds it); only a
  // division by zero or by a negative number has no value.
  auto folded =
      ir::IndexExpr::binary(e.kind(), ir::IndexExpr::constant(*l), ir::IndexExpr::constant(*r))
          .asConstant();
  if (!folded)
    return llvm::createStringError("division by zero or by a negative number in a launch formula");
  return *folded;
}

} // namespace kina::codegen
