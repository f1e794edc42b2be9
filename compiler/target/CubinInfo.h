//===- CubinInfo.h - Kernel attributes stored in a cubin --------*- C++ -*-===//
//
// Reads a cubin (an NVIDIA ELF file) with llvm::object and extracts, per
// function: the register count (EIATTR_REGCOUNT in .nv.info, and the top
// byte of the .text.<fn> section's sh_info), frame and stack sizes, the
// number of barriers, the launch bounds (EIATTR_MAX_THREADS / REQNTID),
// the parameter layout (EIATTR_KPARAM_INFO), the static shared memory
// (size of .nv.shared.<fn>) and constant bank 0 (.nv.constant0.<fn>).
// The second source of the register report, next to ptxas -v (PtxasLog.h).
//
// .nv.info sections are a stream of records: u8 format, u8 attribute,
// u16 value; format 4 (EIFMT_SVAL) is followed by `value` bytes of data.
// Malformed input is an InvalidCubin error; it never crashes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kina::target {

struct CubinParam {
  unsigned ordinal = 0;
  unsigned offset = 0; ///< byte offset in the parameter buffer
  unsigned size = 0;   ///< bytes
};

struct CubinFunctionInfo {
  std::string name;
  bool isEntry = false;                      ///< STO_CUDA_ENTRY (a kernel)
  std::optional<unsigned> registers;         ///< EIATTR_REGCOUNT
  std::optional<unsigned> sectionRegisters;  ///< .text.<fn> sh_info >> 24, when non-zero
  std::optional<std::uint64_t> frameSize;    ///< EIATTR_FRAME_SIZE
  std::optional<std::uint64_t> minStackSize; ///< EIATTR_MIN_STACK_SIZE
  std::optional<unsigned> barriers;          ///< EIATTR_NUM_BARRIERS
  std::optional<unsigned> maxRegCount;       ///< EIATTR_MAXREG_COUNT (the cap ptxas used)
  std::optional<std::array<unsigned, 3>> maxThreads; ///< EIATTR_MAX_THREADS (.maxntid)
  std::optional<std::array<unsigned, 3>> reqThreads; ///< EIATTR_REQNTID (.reqntid)
  std::optional<unsigned> paramBytes;        ///< EIATTR_CBANK_PARAM_SIZE
  std::vector<CubinParam> params;            ///< sorted by ordinal
  std::uint64_t sharedBytes = 0;             ///< size of .nv.shared.<fn>
  /// The cubin has a `.nv.shared.reserved.*` section: the function's shared
  /// section then also covers the per-block system reservation (1 KiB on
  /// sm_80+), which ptxas -v does not count (seen with TMA/mbarrier on sm_90a).
  bool usesReservedShared = false;
  std::uint64_t constBank0Bytes = 0;         ///< size of .nv.constant0.<fn>
  std::uint64_t codeBytes = 0;               ///< size of .text.<fn>
};

struct CubinInfo {
  std::vector<CubinFunctionInfo> functions; ///< in section order
  const CubinFunctionInfo *find(std::string_view name) const;
};

/// Errors: TargetError with DiagId::InvalidCubin.
llvm::Expected<CubinInfo> readCubin(std::span<const std::uint8_t> bytes);

} // namespace kina::target
