//===- Codegen.cpp - Orchestration of the PTX backend ---------------------===//
//
// compile(): IR verification, target and PTX ISA validation against the
// capability registry (before any LLVM code runs), layout legality, the
// in-process MLIR/LLVM stages (mlir/Pipeline.cpp), ptxas through
// target::runPtxas, and the launch metadata. Every failure becomes a
// diagnostic; this file includes no MLIR headers.
//
//===----------------------------------------------------------------------===//
#include "codegen/Codegen.h"
#include "codegen/Remarks.h"

#include "codegen/HopperLayout.h"
#include "codegen/Layout.h"
#include "codegen/mlir/MLIRStages.h"
#include "ir/Verifier.h"
#include "target/Lowerable.h"
#include "target/Ptxas.h"
#include "target/PtxasLog.h"
#include "target/Registry.h"
#include "target/TargetError.h"

#include <chrono>
#include <set>

namespace kina::codegen {

using target::CapabilityId;

namespace {

/// The registry capabilities of the instructions the generated code uses,
/// from the same table (target/Lowerable.def) the checker derives each op's
/// language capability from.
void collectCapabilities(const ir::Kernel &k, const ir::Block &b, std::set<CapabilityId> &caps) {
  namespace lw = target::lowerable;
  for (const ir::Op &op : b.ops) {
    if (op.as<ir::CpAsyncOp>() || op.as<ir::CpAsyncCommitOp>() || op.as<ir::CpAsyncWaitOp>()) {
      for (CapabilityId c : lw::instructionsFor("cp_async"))
        caps.insert(c);
    } else if (auto *o = op.as<ir::MmaOp>()) {
      auto dtypeOf = [&](const ir::Access &a) -> std::string_view {
        if (a.kind == ir::Access::Kind::Tile && a.id < k.tiles.size())
          return ir::dtypeName(k.tiles[a.id].dtype);
        return "?";
      };
      std::string_view acc = o->acc < k.tiles.size() ? ir::dtypeName(k.tiles[o->acc].dtype) : "?";
      if (o->dp4a)
        caps.insert(CapabilityId::Dp4a); // dp4a.s32.s32, per accumulator element
      else if (const lw::MmaLowering *row = lw::mmaLowering(dtypeOf(o->a), dtypeOf(o->b), acc))
        for (CapabilityId c : row->instructions)
          caps.insert(c);
    } else if (auto *o = op.as<ir::WgmmaOp>()) {
      bool bf16 = o->a.kind == ir::Access::Kind::Tile && o->a.id < k.tiles.size() &&
                  k.tiles[o->a.id].dtype == ir::DType::BF16;
      caps.insert(bf16 ? CapabilityId::WgmmaBf16 : CapabilityId::WgmmaF16);
    } else if (op.as<ir::WgmmaCommitOp>() || op.as<ir::WgmmaWaitOp>()) {
      // The wgmma that the group holds names its own capability (and comes
      // first); a commit or wait without one still needs sm_90a.
      if (!caps.count(CapabilityId::WgmmaF16) && !caps.count(CapabilityId::WgmmaBf16))
        caps.insert(CapabilityId::WgmmaBf16);
    } else if (op.as<ir::TmaLoadOp>()) {
      caps.insert(CapabilityId::Tma);
      caps.insert(CapabilityId::MbarrierTryWait);
    } else if (op.as<ir::TmaStoreOp>() || op.as<ir::TmaStoreCommitOp>() ||
               op.as<ir::TmaStoreWaitOp>()) {
      caps.insert(CapabilityId::TmaStore); // cp.async.bulk.tensor shared -> global (sm_90)
    } else if (auto *o = op.as<ir::StoreOp>();
               o && o->src < k.tiles.size() &&
               k.tiles[o->src].scope == ir::RegisterScope::Warpgroup &&
               o->dst.kind == ir::Access::Kind::Tile) {
      caps.insert(CapabilityId::Stmatrix);
    } else if (auto *o = op.as<ir::LoadOp>();
               o && o->dst < k.tiles.size() &&
               k.tiles[o->dst].scope == ir::RegisterScope::Warpgroup) {
      caps.insert(CapabilityId::Ldmatrix);
    } else if (op.as<ir::BarrierArriveOp>() || op.as<ir::BarrierWaitOp>()) {
      caps.insert(CapabilityId::MbarrierTryWait);
    } else if (op.as<ir::FenceProxyAsyncOp>()) {
      caps.insert(CapabilityId::FenceProxyAsync);
    } else if (auto *o = op.as<ir::RoleOp>()) {
      if (o->registers)
        caps.insert(CapabilityId::Setmaxnreg);
      collectCapabilities(k, o->body, caps);
    } else if (auto *o = op.as<ir::ForOp>()) {
      collectCapabilities(k, o->body, caps);
    } else if (auto *o = op.as<ir::IfOp>()) {
      collectCapabilities(k, o->thenBody, caps);
      collectCapabilities(k, o->elseBody, caps);
    }
  }
}

/// The span of the first op of type T, else the kernel's.
template <typename T> Span firstSpan(const ir::Kernel &k, const ir::Block &b, bool &found) {
  for (const ir::Op &op : b.ops) {
    if (op.as<T>()) {
      found = true;
      return op.span;
    }
    const ir::Block *inner[2] = {nullptr, nullptr};
    if (auto *f = op.as<ir::ForOp>())
      inner[0] = &f->body;
    else if (auto *r = op.as<ir::RoleOp>())
      inner[0] = &r->body;
    else if (auto *i = op.as<ir::IfOp>()) {
      inner[0] = &i->thenBody;
      inner[1] = &i->elseBody;
    }
    for (const ir::Block *blk : inner)
      if (blk) {
        Span s = firstSpan<T>(k, *blk, found);
        if (found)
          return s;
      }
  }
  return k.span;
}

/// The spans of every op of type T, in program order.
template <typename T> void allSpans(const ir::Block &b, std::vector<Span> &out) {
  for (const ir::Op &op : b.ops) {
    if (op.as<T>())
      out.push_back(op.span);
    if (auto *f = op.as<ir::ForOp>())
      allSpans<T>(f->body, out);
    else if (auto *r = op.as<ir::RoleOp>())
      allSpans<T>(r->body, out);
    else if (auto *i = op.as<ir::IfOp>()) {
      allSpans<T>(i->thenBody, out);
      allSpans<T>(i->elseBody, out);
    }
  }
}

/// The Hopper gate (HOPPER-GEMM.md 5.7): ptxas' wgmma serialisation
/// warnings C7510-C7515 (K1224, on the first wgmma) are errors; spills in a
/// kernel with warpgroup roles (K1225) are a warning: the cubin is correct,
/// and a kernel the checker accepted must build (check => build).
bool checkHopperPtxasLog(const ir::Kernel &kernel, const std::string &log, DiagnosticSink &sink) {
  bool ok = true;
  auto warnings = wgmmaSerializationWarnings(log);
  if (!warnings.empty()) {
    bool found = false;
    Span at = firstSpan<ir::WgmmaOp>(kernel, kernel.body, found);
    auto &d = sink.report(DiagId::WgmmaSerialized, at,
                          "kernel '" + kernel.name +
                              "': ptxas serialized its wgmma instructions: " + warnings[0]);
    for (size_t i = 1; i < warnings.size(); ++i)
      d.note(warnings[i]);
    // ptxas serialises every wgmma of the function: each other wgmma line
    // says so too (issue 17 part 5: the finding at every line it concerns).
    std::vector<Span> wgmmas;
    allSpans<ir::WgmmaOp>(kernel.body, wgmmas);
    std::string code;
    if (size_t c = warnings[0].find("(C75"); c != std::string::npos)
      code = " " + warnings[0].substr(c, 7);
    for (Span s : wgmmas)
      if (s != at && !s.empty())
        sink.report(DiagId::WgmmaSerializedHere, s,
                    "this wgmma is serialised too: ptxas" + code +
                        " serialised every wgmma of kernel '" + kernel.name + "'");
    ok = false;
  }
  if (auto ignored = setmaxnregIgnoredWarnings(log); !ignored.empty()) {
    Span at = kernel.span;
    for (const ir::Op &op : kernel.body.ops)
      if (auto *r = op.as<ir::RoleOp>(); r && r->registers > 0 && at == kernel.span)
        at = op.span;
    sink.report(DiagId::SetmaxnregIgnored, at,
                "kernel '" + kernel.name +
                    "': ptxas ignored its setmaxnreg budgets: " + ignored[0]);
    ok = false;
  }
  if (kernel.warpgroups > 0) {
    target::PtxasLog parsed = target::parsePtxasVerbose(log);
    if (const target::PtxasFunctionStats *f = parsed.find(kernel.name);
        f && (f->spillStores > 0 || f->spillLoads > 0)) {
      sink.report(DiagId::HopperRegisterSpill, kernel.span,
                  "kernel '" + kernel.name + "' spills " + std::to_string(f->spillStores) +
                      " bytes (stores) and " + std::to_string(f->spillLoads) +
                      " bytes (loads) to local memory with " +
                      std::to_string(f->registers.value_or(0)) + " registers per thread");
    }
  }
  return ok;
}

void reportTargetError(llvm::Error err, Span span, DiagnosticSink &sink) {
  target::TargetFailure f = target::takeTargetFailure(std::move(err));
  sink.report(f.id, span, f.message);
}

} // namespace

std::optional<CodegenResult> compile(const ir::Kernel &kernel, const CodegenOptions &options,
                                     Stage until, DiagnosticSink &sink) {
  if (options.verifyIR && !ir::verify(kernel, sink))
    return std::nullopt;

  // ---- target and PTX ISA, validated before LLVM sees them ----
  const target::TargetInfo *tgt = options.target.empty()
                                      ? &target::targetInfo(target::defaultTarget())
                                      : target::lookupTarget(options.target);
  if (!tgt) {
    sink.report(DiagId::UnknownTarget, kernel.span, target::unknownTargetMessage(options.target));
    return std::nullopt;
  }
  std::set<CapabilityId> used;
  collectCapabilities(kernel, kernel.body, used);
  if (kernel.clusterSize() > 1)
    used.insert(CapabilityId::Clusters);
  for (CapabilityId cap : used)
    if (!target::hasCapability(tgt->id, cap)) {
      const auto &info = target::capabilityInfo(cap);
      sink.report(DiagId::TargetLacksInstruction, kernel.span,
                  "kernel '" + kernel.name + "' needs `" + std::string(info.name) + "`, which " +
                      std::string(tgt->name) + " does not have")
          .note("targets with `" + std::string(info.name) +
                "`: " + target::describeTargetsWith(cap));
      return std::nullopt;
    }
  std::optional<target::PtxVersion> pinned;
  if (!options.ptxVersion.empty()) {
    pinned = target::parsePtxVersion(options.ptxVersion);
    if (!pinned) {
      sink.report(DiagId::InvalidTargetPtx, kernel.span,
                  "`" + options.ptxVersion + "` is not a PTX ISA version (write e.g. 8.0)");
      return std::nullopt;
    }
  }
  // For a cubin, the ptxas found bounds the PTX version.
  std::optional<target::CudaVersion> ptxasRelease;
  target::ToolSearchOptions search;
  if (!options.ptxasPath.empty())
    search.overrides[target::Tool::Ptxas] = options.ptxasPath;
  if (until == Stage::Cubin) {
    auto tool = target::findTool(target::Tool::Ptxas, search);
    if (!tool) {
      reportTargetError(tool.takeError(), kernel.span, sink);
      return std::nullopt;
    }
    auto version = target::toolVersion(*tool);
    if (!version) {
      reportTargetError(version.takeError(), kernel.span, sink);
      return std::nullopt;
    }
    ptxasRelease = version->release;
  }
  std::vector<CapabilityId> usedList(used.begin(), used.end());
  std::string ptxError;
  auto ptx = target::choosePtxVersion(tgt->id, usedList, pinned, ptxasRelease, ptxError);
  if (!ptx) {
    sink.report(DiagId::InvalidTargetPtx, kernel.span, ptxError);
    return std::nullopt;
  }
  if (auto bad = target::validateTargetPtx(tgt->id, *ptx)) {
    sink.report(DiagId::InvalidTargetPtx, kernel.span, *bad);
    return std::nullopt;
  }

  // ---- layouts ----
  KernelLayout layout = planLayout(kernel);
  if (!checkLowerable(kernel, layout, tgt->maxSmemPerBlockOptin, sink))
    return std::nullopt;
  bool dynamicShared = layout.sharedBytes > tgt->staticSmemPerBlock;

  CodegenResult result;
  result.targetName = std::string(tgt->name);
  result.ptxVersion = ptx->str();
  result.launch = makeLaunchMetadata(kernel, result.targetName, result.ptxVersion,
                                     dynamicShared ? 0 : layout.sharedBytes,
                                     dynamicShared ? layout.sharedBytes : 0);

  // ---- MLIR, LLVM, PTX ----
  detail::MLIRStageRequest req;
  req.kernel = &kernel;
  req.layout = &layout;
  req.dynamicShared = dynamicShared;
  req.chip = std::string(tgt->name);
  req.features = "+ptx" + std::to_string(ptx->llvmFeatureNumber());
  req.optLevel = options.optLevel;
  req.until = until == Stage::Cubin ? Stage::PTX : until;
  req.lineInfo = options.lineInfo;
  std::string error;
  if (!detail::runMLIRStages(req, result, error)) {
    sink.report(DiagId::CodegenFailed, kernel.span, error);
    return std::nullopt;
  }
  if (until != Stage::Cubin)
    return result;

  // ---- ptxas ----
  auto t0 = std::chrono::steady_clock::now();
  target::PtxasOptions popts;
  popts.optLevel = 3;
  popts.verbose = true;
  popts.search = search;
  popts.inputName = kernel.name + ".ptx";
  if (options.lineInfo)
    popts.extraArgs.push_back("-lineinfo"); // the cubin's line table (SASS per source line)
  auto assembled = target::runPtxas(result.ptx, tgt->id, popts);
  if (!assembled) {
    reportTargetError(assembled.takeError(), kernel.span, sink);
    return std::nullopt;
  }
  result.times.ptxas =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  result.cubin.assign(assembled->cubin.begin(), assembled->cubin.end());
  result.ptxasLog = assembled->log;
  if (!checkHopperPtxasLog(kernel, result.ptxasLog, sink))
    return std::nullopt;
  if (options.remarks)
    reportBuildRemarks(kernel, result, tgt->id, options.lineInfo, sink);
  return result;
}

} // namespace kina::codegen
