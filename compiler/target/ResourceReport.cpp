//===- ResourceReport.cpp - Combining ptxas -v, cubin and SASS ------------===//
//
// Merges the two sources per kernel, notes disagreements, adds occupancy and
// the SASS mix, and renders the text form.
//
//===----------------------------------------------------------------------===//
#include "target/ResourceReport.h"

#include "target/TargetError.h"

#include <cstdio>

namespace kina::target {
namespace {

void compare(KernelReport &k, const char *what, std::uint64_t ptxas, std::uint64_t cubin) {
  if (ptxas != cubin)
    k.mismatches.push_back(std::string(what) + ": ptxas " + std::to_string(ptxas) + ", cubin " +
                           std::to_string(cubin));
}

std::string bytes(std::uint64_t n) { return std::to_string(n) + " bytes"; }

} // namespace

const KernelReport *ResourceReport::find(std::string_view name) const {
  for (const KernelReport &k : kernels)
    if (k.name == name)
      return &k;
  return nullptr;
}

llvm::Expected<ResourceReport> buildResourceReport(std::string_view ptxasLog,
                                                   std::span<const std::uint8_t> cubinBytes,
                                                   TargetId target, const ReportOptions &opts) {
  ResourceReport report;
  report.target = target;
  PtxasLog log = parsePtxasVerbose(ptxasLog);
  auto cubin = readCubin(cubinBytes);
  if (!cubin)
    return cubin.takeError();

  // Kernels: the cubin's entry functions, then ptxas entries it lacks.
  std::vector<std::string> names;
  for (const CubinFunctionInfo &f : cubin->functions)
    if (f.isEntry)
      names.push_back(f.name);
  for (const PtxasFunctionStats &f : log.functions)
    if (f.isEntry && std::find(names.begin(), names.end(), f.name) == names.end())
      names.push_back(f.name);

  std::optional<SassListing> sass;
  if (opts.sass) {
    auto listing = disassembleCubin(cubinBytes, opts.search);
    if (listing) {
      sass = std::move(*listing);
    } else {
      TargetFailure failure = takeTargetFailure(listing.takeError());
      if (failure.id != DiagId::ToolNotFound)
        return makeTargetError(failure.id, failure.message);
      report.notes.push_back("no SASS summary: " + failure.message);
    }
  }

  for (const std::string &name : names) {
    KernelReport k;
    k.name = name;
    if (const PtxasFunctionStats *p = log.find(name))
      k.ptxas = *p;
    if (const CubinFunctionInfo *c = cubin->find(name))
      k.cubin = *c;

    if (k.ptxas) {
      k.registers = k.ptxas->registers.value_or(0);
      k.spillStores = k.ptxas->spillStores;
      k.spillLoads = k.ptxas->spillLoads;
      k.stackFrame = k.ptxas->stackFrame;
      k.sharedBytes = k.ptxas->sharedBytes;
      k.barriers = k.ptxas->barriers;
      for (auto [bank, size] : k.ptxas->constBanks)
        if (bank == 0)
          k.constBytes = size;
    }
    if (k.cubin) {
      const CubinFunctionInfo &c = *k.cubin;
      std::uint64_t reserved =
          c.usesReservedShared && c.sharedBytes >= targetInfo(target).reservedSmemPerBlock
              ? targetInfo(target).reservedSmemPerBlock
              : 0;
      std::optional<unsigned> regs = c.registers ? c.registers : c.sectionRegisters;
      if (c.registers && c.sectionRegisters)
        compare(k, "registers (REGCOUNT vs section info)", *c.registers, *c.sectionRegisters);
      if (k.ptxas) {
        if (regs && k.ptxas->registers)
          compare(k, "registers", *k.ptxas->registers, *regs);
        compare(k, "shared memory", k.ptxas->sharedBytes + reserved, c.sharedBytes);
        if (c.frameSize)
          compare(k, "stack frame", k.ptxas->stackFrame, *c.frameSize);
        if (c.barriers)
          compare(k, "barriers", k.ptxas->barriers, *c.barriers);
        // ptxas omits cmem when the parameters live elsewhere (sm_90+).
        if (!k.ptxas->constBanks.empty())
          compare(k, "constant bank 0", k.constBytes, c.constBank0Bytes);
      }
      if (regs)
        k.registers = *regs;
      k.sharedBytes = c.sharedBytes - reserved;
      k.constBytes = c.constBank0Bytes;
      if (c.frameSize)
        k.stackFrame = *c.frameSize;
      if (c.barriers)
        k.barriers = *c.barriers;
      k.isEntry = c.isEntry;
    }

    if (opts.threadsPerBlock) {
      k.threadsPerBlock = opts.threadsPerBlock;
      k.threadsSource = "option";
    } else if (k.cubin && k.cubin->reqThreads) {
      auto d = *k.cubin->reqThreads;
      k.threadsPerBlock = d[0] * std::max(1u, d[1]) * std::max(1u, d[2]);
      k.threadsSource = ".reqntid";
    } else if (k.cubin && k.cubin->maxThreads) {
      auto d = *k.cubin->maxThreads;
      k.threadsPerBlock = d[0] * std::max(1u, d[1]) * std::max(1u, d[2]);
      k.threadsSource = ".maxntid";
    }
    if (k.threadsPerBlock)
      k.occupancy = computeOccupancy(
          target, OccupancyInput{*k.threadsPerBlock, k.registers,
                                 k.sharedBytes + opts.dynamicSharedBytes});
    if (sass)
      if (const SassFunction *f = sass->find(name))
        k.sass = *f;
    report.kernels.push_back(std::move(k));
  }
  return report;
}

llvm::Expected<ResourceReport> buildResourceReport(const PtxasResult &ptxas, TargetId target,
                                                   const ReportOptions &opts) {
  return buildResourceReport(ptxas.log, ptxas.cubin, target, opts);
}

std::string renderResourceReport(const ResourceReport &report) {
  std::string out;
  const TargetInfo &t = targetInfo(report.target);
  auto row = [&](const char *label, const std::string &value) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "  %-18s", label);
    out += buf + value + "\n";
  };
  for (const KernelReport &k : report.kernels) {
    out += "kernel " + k.name + " (" + std::string(t.name) + ")\n";
    row("registers/thread", std::to_string(k.registers));
    row("spill stores", bytes(k.spillStores));
    row("spill loads", bytes(k.spillLoads));
    row("stack frame", bytes(k.stackFrame));
    row("shared memory", bytes(k.sharedBytes) + " static");
    row("constant memory", bytes(k.constBytes) + " (bank 0)");
    row("barriers", std::to_string(k.barriers));
    if (k.cubin && k.cubin->paramBytes)
      row("parameters", std::to_string(k.cubin->params.size()) + " (" +
                            bytes(*k.cubin->paramBytes) + ")");
    if (k.occupancy) {
      const OccupancyResult &o = *k.occupancy;
      if (!o.error.empty()) {
        row("occupancy", "cannot launch: " + o.error);
      } else {
        char pct[16];
        std::snprintf(pct, sizeof pct, "%.0f%%", o.occupancy * 100);
        std::string binding;
        for (OccupancyLimit l : o.binding)
          binding += (binding.empty() ? "" : ", ") + std::string(occupancyLimitName(l));
        row("occupancy", std::to_string(*k.threadsPerBlock) + " threads/block (" +
                             k.threadsSource + "): " + std::to_string(o.blocksPerSM) +
                             " blocks/SM, " + std::to_string(o.warpsPerSM) + " of " +
                             std::to_string(o.maxWarpsPerSM) + " warps/SM (" + pct +
                             "), limited by " + binding);
        row("limits (blocks)", "registers " + std::to_string(o.blocksByRegisters) +
                                   ", shared memory " + std::to_string(o.blocksBySharedMemory) +
                                   ", threads " + std::to_string(o.blocksByThreads) +
                                   ", blocks/SM " + std::to_string(o.blocksByBlockLimit));
      }
    } else {
      row("occupancy", "unknown (no threads per block: pass one, or give the kernel .reqntid)");
    }
    if (k.sass) {
      const SassFunction &s = *k.sass;
      std::string mix = std::to_string(s.total) + " instructions";
      for (SassClass c : {SassClass::TensorCore, SassClass::AsyncCopy, SassClass::MatrixLoad,
                          SassClass::Barrier, SassClass::LocalMemory}) {
        unsigned n = s.count(c);
        if (!n)
          continue;
        std::string ops;
        for (const auto &[op, count] : s.opcodeCounts)
          if (classifySassOpcode(op) == c)
            ops += (ops.empty() ? "" : " ") + op + " " + std::to_string(count);
        mix += "; " + std::string(sassClassName(c)) + " " + std::to_string(n) + " (" + ops + ")";
      }
      row("sass", mix);
    }
    for (const std::string &m : k.mismatches)
      row("warning", "sources disagree on " + m);
  }
  for (const std::string &n : report.notes)
    out += "note: " + n + "\n";
  return out;
}

} // namespace kina::target
