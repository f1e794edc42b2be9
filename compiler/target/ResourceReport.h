//===- ResourceReport.h - Registers, spills, smem and occupancy -*- C++ -*-===//
//
// The per-kernel resource report behind `kina report` and the editor's
// register-pressure code lens (issue 4 part 6). It combines both sources:
// ptxas' -v output (PtxasLog.h) and the cubin's ELF attributes
// (CubinInfo.h), records any disagreement between them, computes the
// theoretical occupancy from the registry (Occupancy.h) and, on request,
// the SASS instruction mix (Sass.h). Plain structs; renderResourceReport()
// gives the text form, ReportJson.h the JSON form. Never throws.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "target/CubinInfo.h"
#include "target/Occupancy.h"
#include "target/Ptxas.h"
#include "target/PtxasLog.h"
#include "target/Registry.h"
#include "target/Sass.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kina::target {

struct ReportOptions {
  /// Threads per block for occupancy; when unset, the kernel's .reqntid or
  /// .maxntid from the cubin is used, else occupancy is not computed.
  std::optional<unsigned> threadsPerBlock;
  std::uint64_t dynamicSharedBytes = 0; ///< added to static shared memory
  bool sass = false;                    ///< run nvdisasm for the instruction mix
  ToolSearchOptions search;             ///< where to find nvdisasm
};

struct KernelReport {
  std::string name;
  bool isEntry = true;
  unsigned registers = 0;           ///< per thread (cubin REGCOUNT, else ptxas)
  std::uint64_t spillStores = 0;    ///< bytes (ptxas)
  std::uint64_t spillLoads = 0;     ///< bytes (ptxas)
  std::uint64_t stackFrame = 0;     ///< bytes
  std::uint64_t sharedBytes = 0;    ///< static shared memory, bytes, without the
                                    ///< system reservation (as ptxas -v counts it)
  std::uint64_t constBytes = 0;     ///< constant bank 0, bytes
  unsigned barriers = 0;
  std::optional<PtxasFunctionStats> ptxas; ///< the -v record, when ptxas printed one
  std::optional<CubinFunctionInfo> cubin;  ///< the ELF attributes, when present
  /// Differences between the two sources, e.g. "registers: ptxas 22, cubin 24".
  std::vector<std::string> mismatches;
  std::optional<unsigned> threadsPerBlock;
  std::string threadsSource; ///< "option", ".reqntid" or ".maxntid"
  std::optional<OccupancyResult> occupancy;
  std::optional<SassFunction> sass;
};

struct ResourceReport {
  TargetId target = TargetId::Sm80;
  std::vector<KernelReport> kernels;
  std::vector<std::string> notes; ///< e.g. why the SASS summary is missing
  const KernelReport *find(std::string_view name) const;
};

/// Builds the report from ptxas' log and the cubin it wrote.
/// Errors: InvalidCubin (and ToolFailed only for a failing nvdisasm run;
/// a missing nvdisasm is a note, not an error).
llvm::Expected<ResourceReport> buildResourceReport(std::string_view ptxasLog,
                                                   std::span<const std::uint8_t> cubin,
                                                   TargetId target,
                                                   const ReportOptions &opts = {});
llvm::Expected<ResourceReport> buildResourceReport(const PtxasResult &ptxas, TargetId target,
                                                   const ReportOptions &opts = {});

/// Human-readable text, one block per kernel.
std::string renderResourceReport(const ResourceReport &report);

} // namespace kina::target
