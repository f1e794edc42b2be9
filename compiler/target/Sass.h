//===- Sass.h - SASS listing and instruction mix via nvdisasm ---*- C++ -*-===//
//
// Disassembles a cubin with nvdisasm (`nvdisasm -c`) and summarises each
// function's instruction mix: tensor-core MMA (HMMA, HGMMA, IMMA, ...),
// async copies (LDGSTS, UTMALDG, ...), ldmatrix/stmatrix (LDSM/STSM),
// barriers (BAR, SYNCS), local-memory traffic (LDL/STL, i.e. spills), and
// the total. The parser is a pure function so it is testable without the
// tool; disassembleCubin() needs nvdisasm (ToolNotFound otherwise).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "target/Tools.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kina::target {

/// Instruction classes of the summary. Each opcode belongs to at most one.
enum class SassClass {
  TensorCore,  ///< HMMA HGMMA IMMA QMMA QGMMA IGMMA BMMA BGMMA DMMA UTC*MMA
  AsyncCopy,   ///< LDGSTS LDGDEPBAR UTMALDG UTMASTG UTMAPF UBLKCP
  MatrixLoad,  ///< LDSM STSM
  Barrier,     ///< BAR SYNCS DEPBAR WARPSYNC MEMBAR
  LocalMemory, ///< LDL STL (register spills and local arrays)
  GlobalMemory,///< LDG STG ATOMG RED
  SharedMemory,///< LDS STS ATOMS
  Other,
};
std::string_view sassClassName(SassClass c);
/// Class of a base opcode such as "HMMA" (without modifiers).
SassClass classifySassOpcode(std::string_view opcode);

struct SassInstruction {
  std::uint64_t offset = 0;
  std::string opcode; ///< base opcode, e.g. "HMMA"
  std::string text;   ///< the whole instruction, e.g. "HMMA.16816.F32 R4, R8, R12, R4 ;"
};

struct SassFunction {
  std::string name;
  std::vector<SassInstruction> instructions;
  std::map<std::string, unsigned> opcodeCounts; ///< base opcode -> count
  std::map<SassClass, unsigned> classCounts;
  unsigned total = 0;
  unsigned count(std::string_view opcode) const;
  unsigned count(SassClass c) const;
};

struct SassListing {
  std::string text; ///< nvdisasm's output as is
  std::vector<SassFunction> functions;
  const SassFunction *find(std::string_view name) const;
};

/// Parses the output of `nvdisasm -c`.
SassListing parseSass(std::string_view nvdisasmOutput);

/// Writes the cubin to a temporary file and runs `nvdisasm -c` on it; with
/// lineInfo also `--print-line-info` (the `//## File "...", line N` comments
/// that target::mapSassLines reads; the cubin needs ptxas -lineinfo).
/// Errors: ToolNotFound, ToolFailed.
llvm::Expected<SassListing> disassembleCubin(std::span<const std::uint8_t> cubin,
                                             const ToolSearchOptions &search = {},
                                             bool lineInfo = false);

} // namespace kina::target
