//===- kina-target.cpp - Developer tool over the target library ----------===//
//
// Exercises compiler/target from the command line: regenerates
// docs/capabilities.md, answers registry questions, finds CUDA tools, runs
// ptxas and prints the resource report. The lit tests in tests/lit/target
// drive it. Users run the same code through `kina` (driver/); this tool
// exists so the target layer is testable on its own.
//
//===----------------------------------------------------------------------===//
#include "target/CapabilityDocs.h"
#include "target/Occupancy.h"
#include "target/Ptxas.h"
#include "target/Registry.h"
#include "target/ReportJson.h"
#include "target/ResourceReport.h"
#include "target/SmComparisonLint.h"
#include "target/TargetError.h"
#include "target/Tools.h"

#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

using namespace kina;
using namespace kina::target;

namespace {

int fail(DiagId id, const std::string &message) {
  std::cerr << "kina-target: error[" << diagInfo(id).code << "]: " << message << "\n";
  return 1;
}

int fail(llvm::Error err) {
  TargetFailure f = takeTargetFailure(std::move(err));
  return fail(f.id, f.message);
}

bool readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

const TargetInfo *targetOrFail(const std::string &name) {
  const TargetInfo *t = lookupTarget(name);
  if (!t)
    fail(DiagId::UnknownTarget, unknownTargetMessage(name));
  return t;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"kina-target: the capability registry, CUDA tools and resource reports"};
  app.require_subcommand(1);

  std::string output;
  auto *docs = app.add_subcommand("docs", "print docs/capabilities.md");
  docs->add_option("-o,--output", output, "write to this file instead of stdout");

  app.add_subcommand("targets", "list the targets");

  std::string targetName, ptxText, capName;
  auto *validate = app.add_subcommand("validate", "check a target and PTX ISA version");
  validate->add_option("target", targetName)->required();
  validate->add_option("ptx", ptxText)->required();

  auto *capability = app.add_subcommand("capability", "describe a capability");
  capability->add_option("name", capName)->required();
  capability->add_option("--target", targetName, "also say whether this target has it");

  std::string toolNameArg;
  auto *findToolCmd = app.add_subcommand("find-tool", "locate ptxas, nvdisasm, cuobjdump, tileiras");
  findToolCmd->add_option("tool", toolNameArg)->required();

  std::string input, cubinOut;
  unsigned threads = 0, maxRegs = 0;
  std::uint64_t dynSmem = 0;
  bool json = false, sass = false;
  auto *ptxas = app.add_subcommand("ptxas", "assemble PTX and print the resource report");
  ptxas->add_option("input", input, "PTX file")->required();
  ptxas->add_option("--target", targetName, "target (default: the registry default)");
  ptxas->add_option("-o,--output", cubinOut, "write the cubin here");
  ptxas->add_option("--threads", threads, "threads per block for occupancy");
  ptxas->add_option("--dynamic-smem", dynSmem, "dynamic shared memory per block (bytes)");
  ptxas->add_option("--maxrregcount", maxRegs, "ptxas --maxrregcount");
  ptxas->add_flag("--json", json, "print the report as JSON");
  ptxas->add_flag("--sass", sass, "add the SASS instruction mix (needs nvdisasm)");
  bool printLog = false;
  ptxas->add_flag("--log", printLog, "also print ptxas' verbose log");

  unsigned regs = 0;
  std::uint64_t smem = 0;
  auto *occ = app.add_subcommand("occupancy", "theoretical occupancy");
  occ->add_option("--target", targetName)->required();
  occ->add_option("--threads", threads)->required();
  occ->add_option("--regs", regs);
  occ->add_option("--smem", smem);

  std::vector<std::string> lintFiles;
  auto *lint = app.add_subcommand("lint-sm", "find sm_ comparisons outside the registry");
  lint->add_option("files", lintFiles)->required();

  CLI11_PARSE(app, argc, argv);

  if (docs->parsed()) {
    std::string md = renderCapabilitiesMarkdown();
    if (output.empty()) {
      std::cout << md;
      return 0;
    }
    std::ofstream out(output, std::ios::binary);
    out << md;
    return out ? 0 : fail(DiagId::ToolFailed, "cannot write " + output);
  }
  if (app.got_subcommand("targets")) {
    for (const TargetInfo &t : allTargets())
      std::cout << t.name << "\tcc " << t.ccMajor << "." << t.ccMinor << "\tptx "
                << t.defaultPtx.str() << "\t" << t.description << "\n";
    return 0;
  }
  if (validate->parsed()) {
    if (!lookupTarget(targetName))
      return fail(DiagId::UnknownTarget, unknownTargetMessage(targetName));
    if (auto e = validateTargetPtx(targetName, ptxText))
      return fail(DiagId::InvalidTargetPtx, *e);
    std::cout << targetName << " with PTX ISA " << ptxText << ": ok\n";
    return 0;
  }
  if (capability->parsed()) {
    auto cap = parseCapabilityName(capName);
    if (!cap)
      return fail(DiagId::UnknownCapability, unknownCapabilityMessage(capName));
    const CapabilityInfo &info = capabilityInfo(*cap);
    std::cout << info.name << ": " << info.description << "\n  PTX ISA " << info.minPtx.str()
              << "+; targets: " << describeTargetsWith(*cap) << "\n";
    if (!targetName.empty()) {
      const TargetInfo *t = targetOrFail(targetName);
      if (!t)
        return 1;
      if (hasCapability(t->id, *cap))
        std::cout << "  " << t->name << ": yes (PTX ISA " << requiredPtx(t->id, *cap).str()
                  << ")\n";
      else
        std::cout << "  " << t->name << ": no\n";
    }
    return 0;
  }
  if (findToolCmd->parsed()) {
    auto loc = findTool(toolNameArg);
    if (!loc)
      return fail(loc.takeError());
    std::cout << toolName(loc->tool) << ": " << loc->path << " (" << toolSourceName(loc->source)
              << ")\n";
    auto v = toolVersion(*loc);
    if (!v)
      return fail(v.takeError());
    std::cout << "release " << v->release.str() << (v->build.empty() ? "" : " (" + v->build + ")")
              << "\n";
    return 0;
  }
  if (ptxas->parsed()) {
    const TargetInfo *t =
        targetName.empty() ? &targetInfo(defaultTarget()) : targetOrFail(targetName);
    if (!t)
      return 1;
    std::string ptx;
    if (!readFile(input, ptx))
      return fail(DiagId::ToolFailed, "cannot read " + input);
    PtxasOptions opts;
    opts.inputName = input;
    if (maxRegs)
      opts.maxRegisters = maxRegs;
    auto result = runPtxas(ptx, t->id, opts);
    if (!result)
      return fail(result.takeError());
    if (!cubinOut.empty()) {
      std::ofstream out(cubinOut, std::ios::binary);
      out.write(reinterpret_cast<const char *>(result->cubin.data()), result->cubin.size());
      if (!out)
        return fail(DiagId::ToolFailed, "cannot write " + cubinOut);
    }
    if (printLog)
      std::cout << result->log;
    ReportOptions ropts;
    if (threads)
      ropts.threadsPerBlock = threads;
    ropts.dynamicSharedBytes = dynSmem;
    ropts.sass = sass;
    auto report = buildResourceReport(*result, t->id, ropts);
    if (!report)
      return fail(report.takeError());
    std::cout << (json ? resourceReportToJson(*report) + "\n" : renderResourceReport(*report));
    return 0;
  }
  if (occ->parsed()) {
    const TargetInfo *t = targetOrFail(targetName);
    if (!t)
      return 1;
    OccupancyResult r = computeOccupancy(t->id, OccupancyInput{threads, regs, smem});
    if (!r.error.empty())
      return fail(DiagId::ToolFailed, "cannot launch: " + r.error);
    std::cout << "blocks/SM " << r.blocksPerSM << ", warps/SM " << r.warpsPerSM << "/"
              << r.maxWarpsPerSM << ", limited by";
    for (OccupancyLimit l : r.binding)
      std::cout << " " << occupancyLimitName(l) << ";";
    std::cout << " (registers " << r.blocksByRegisters << ", shared memory "
              << r.blocksBySharedMemory << ", threads " << r.blocksByThreads << ", blocks "
              << r.blocksByBlockLimit << ")\n";
    return 0;
  }
  if (lint->parsed()) {
    int bad = 0;
    for (const std::string &f : lintFiles) {
      std::string text;
      if (!readFile(f, text))
        return fail(DiagId::ToolFailed, "cannot read " + f);
      for (const SmComparison &c : findSmComparisons(text)) {
        std::cout << f << ":" << c.line << ": sm_ comparison outside compiler/target: " << c.text
                  << "\n";
        ++bad;
      }
    }
    return bad ? 1 : 0;
  }
  return 0;
}
