//===- Remarks.cpp - ptxas findings at the Kina line that caused them -----===//
#include "codegen/Remarks.h"

#include "target/LineMap.h"
#include "target/Occupancy.h"
#include "target/PtxasLog.h"
#include "target/Sass.h"

#include "llvm/Support/Error.h"

#include <map>
#include <span>

namespace kina::codegen {

namespace {

/// The span of a 1-based line's text (without its indentation).
Span lineSpan(const SourceFile &f, uint32_t line1) {
  std::string_view t = f.lineText(line1 - 1);
  size_t lead = t.find_first_not_of(" \t");
  uint32_t begin = f.offsetOfUtf16({line1 - 1, 0});
  if (lead == std::string_view::npos)
    return Span{begin, begin};
  return Span{begin + static_cast<uint32_t>(lead), begin + static_cast<uint32_t>(t.size())};
}

void spillRemark(const ir::Kernel &kernel, const CodegenResult &result,
                 const target::PtxasFunctionStats &f, const SourceFile *lineInfo,
                 DiagnosticSink &sink) {
  Span at = kernel.span;
  std::string where;
  if (lineInfo) {
    auto listing = target::disassembleCubin(
        {reinterpret_cast<const uint8_t *>(result.cubin.data()), result.cubin.size()}, {},
        /*lineInfo=*/true);
    if (listing) {
      std::map<uint32_t, unsigned> local; // Kina line -> LDL/STL count
      unsigned total = 0;
      for (const auto &i : target::mapSassLines(listing->text).instructions)
        if (i.cls == target::InstrClass::LocalMemory && i.function == kernel.name) {
          ++total;
          if (i.sourceLine)
            ++local[i.sourceLine];
        }
      auto best = local.begin();
      for (auto it = local.begin(); it != local.end(); ++it)
        if (it->second > best->second)
          best = it;
      if (best != local.end() && best->first <= lineInfo->lineCount()) {
        at = lineSpan(*lineInfo, best->first);
        where = "; " + std::to_string(best->second) + " of its " + std::to_string(total) +
                " local-memory instructions (LDL/STL) are on this line";
      }
    } else {
      llvm::consumeError(listing.takeError()); // no nvdisasm: the kernel's line
    }
  }
  auto &d =
      sink.report(DiagId::RegisterSpillRemark, at,
                  "kernel '" + kernel.name + "' spills " + std::to_string(f.spillStores) +
                      " bytes (stores) and " + std::to_string(f.spillLoads) +
                      " bytes (loads) to local memory with " +
                      std::to_string(f.registers.value_or(0)) + " registers per thread" + where);
  d.note("smaller register tiles per warp (more warps in `warp_grid`, or a smaller block tile) "
         "keep the values in registers");
}

void occupancyRemark(const ir::Kernel &kernel, const CodegenResult &result,
                     const target::PtxasFunctionStats &f, target::TargetId target,
                     DiagnosticSink &sink) {
  if (!f.registers || *f.registers == 0)
    return;
  target::OccupancyInput in;
  in.threadsPerBlock = kernel.threadsPerBlock();
  in.registersPerThread = *f.registers;
  in.sharedBytesPerBlock = f.sharedBytes + result.launch.dynamicSharedBytes;
  target::OccupancyResult o = target::computeOccupancy(target, in);
  if (!o.error.empty() || o.binding.size() != 1 ||
      o.binding.front() != target::OccupancyLimit::Registers || o.occupancy >= 1.0)
    return;
  // The most registers per thread that would fit one more block.
  unsigned fits = 0;
  for (unsigned r = *f.registers; r >= 8; r -= 8) {
    target::OccupancyInput less = in;
    less.registersPerThread = r;
    if (target::computeOccupancy(target, less).blocksByRegisters > o.blocksPerSM) {
      fits = r;
      break;
    }
  }
  unsigned other = std::min({o.blocksBySharedMemory, o.blocksByThreads, o.blocksByBlockLimit});
  std::string msg = "kernel '" + kernel.name + "': " + std::to_string(*f.registers) +
                    " registers per thread allow " + std::to_string(o.blocksPerSM) +
                    (o.blocksPerSM == 1 ? " block" : " blocks") + " per SM (" +
                    std::to_string(o.warpsPerSM) + " of " + std::to_string(o.maxWarpsPerSM) +
                    " warps, " + std::to_string(static_cast<int>(o.occupancy * 100 + 0.5)) +
                    "% occupancy); shared memory and threads would allow " + std::to_string(other);
  auto &d = sink.report(DiagId::RegisterLimitedOccupancy, kernel.span, msg);
  if (fits)
    d.note("at most " + std::to_string(fits) + " registers per thread would fit " +
           std::to_string(o.blocksPerSM + 1) + " blocks per SM");
}

} // namespace

void reportBuildRemarks(const ir::Kernel &kernel, const CodegenResult &result,
                        target::TargetId target, const SourceFile *lineInfo, DiagnosticSink &sink) {
  target::PtxasLog log = target::parsePtxasVerbose(result.ptxasLog);
  const target::PtxasFunctionStats *f = log.find(kernel.name);
  if (!f)
    return;
  if (kernel.warpgroups == 0 && (f->spillStores > 0 || f->spillLoads > 0))
    spillRemark(kernel, result, *f, lineInfo, sink);
  occupancyRemark(kernel, result, *f, target, sink);
}

} // namespace kina::codegen
