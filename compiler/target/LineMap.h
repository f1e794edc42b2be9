//===- LineMap.h - PTX and SASS instructions per Kina source line -*- C++ -*-===//
//
// Issue 17, part 1: with line info (codegen::CodegenOptions::lineInfo) the
// PTX carries `.file`/`.loc` directives and ptxas (-lineinfo) writes a line
// table into the cubin, which nvdisasm prints as `//## File "...", line N`
// comments. This module reads both back into one shape: every instruction
// of the listing with the 1-based listing line it is on and the Kina line
// it came from. The CLI (`kina build --emit=ptx-lines`, `kina report
// --sass-lines`) and the language server (statement hover, synchronised
// views) use it; nothing else parses `.loc`.
//
// Pure functions of their input; never fail (unknown lines are skipped).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kina::target {

/// Instruction classes of the per-statement counts (PTX and SASS alike).
enum class InstrClass {
  Mma,         ///< mma.sync, wgmma.mma_async / HMMA, HGMMA, ...
  GlobalLoad,  ///< ld.global / LDG
  GlobalStore, ///< st.global, red/atom.global / STG, RED, ATOMG
  SharedLoad,  ///< ld.shared, ldmatrix / LDS, LDSM
  SharedStore, ///< st.shared, stmatrix / STS, STSM
  LocalMemory, ///< ld.local, st.local / LDL, STL (spills, local arrays)
  AsyncCopy,   ///< cp.async, cp.async.bulk(.tensor) / LDGSTS, UTMALDG, UTMASTG
  Barrier,     ///< bar, barrier, mbarrier, fences, commit/wait groups / BAR, SYNCS, DEPBAR, ...
  Convert,     ///< cvt / F2F, F2I, I2F, F2FP
  Other,
};
inline constexpr int kInstrClassCount = static_cast<int>(InstrClass::Other) + 1;
std::string_view instrClassName(InstrClass c);
/// The class of a PTX instruction, e.g. "ld.global.nc.v4.f32" or
/// "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16" (no predicate).
InstrClass classifyPtxInstruction(std::string_view opcode);
/// The class of a SASS base opcode, e.g. "HMMA" (no modifiers).
InstrClass classifySassInstruction(std::string_view baseOpcode);

struct MappedInstruction {
  uint32_t listingLine = 0; ///< 1-based line of the instruction in the listing text
  uint32_t listingEnd = 0;  ///< its last line (PTX operand lists continue it)
  uint32_t sourceLine = 0;  ///< 1-based Kina line; 0: no line (compiler-made code)
  uint32_t sourceColumn = 0;
  std::string file;     ///< the source file the line is in ("" when unknown)
  std::string function; ///< the kernel (.entry / SASS function) it belongs to
  std::string text;     ///< the instruction, trimmed
  InstrClass cls = InstrClass::Other;
};

struct InstrCounts {
  unsigned total = 0;
  unsigned byClass[kInstrClassCount] = {};
  /// "12 instructions: mma 4, ld.shared 8" (classes with a count only).
  std::string render() const;
};

struct LineMap {
  std::vector<MappedInstruction> instructions; ///< in listing order
  /// The instructions of Kina lines [first, last] (1-based, inclusive), in
  /// listing order.
  std::vector<const MappedInstruction *> ofLines(uint32_t first, uint32_t last) const;
  /// The Kina line of the instruction on `listingLine` (1-based), if any.
  std::optional<uint32_t> sourceLineOf(uint32_t listingLine) const;
  /// The set of Kina lines some instruction maps to.
  std::vector<uint32_t> sourceLines() const;
  static InstrCounts count(const std::vector<const MappedInstruction *> &instrs);
};

/// Reads the `.file` / `.loc` directives of PTX text: each instruction maps
/// to the last `.loc` before it in its function.
LineMap mapPtxLines(std::string_view ptx);

/// Reads `nvdisasm --print-line-info -c` output: each instruction maps to
/// the last `//## File "...", line N` comment before it in its function
/// (an "inlined at" tail is ignored: Kina has no calls in device code).
LineMap mapSassLines(std::string_view nvdisasmOutput);

/// One row per instruction, `<kina line>\t<instruction>` (`-` for none),
/// under a `// <function>` row where the function changes: the table
/// `kina build --emit=ptx-lines|sass-lines` prints.
std::string renderLineTable(const LineMap &map);

} // namespace kina::target
