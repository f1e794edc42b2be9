//===- Remarks.cpp - ptxas findings at the Kina line that caused them -----===//
#include "codegen/Remarks.h"

#include "codegen/Layout.h"

#include "target/LineMap.h"
#include "target/Occupancy.h"
#include "target/PtxasLog.h"
#include "target/Sass.h"

#include "llvm/Support/Error.h"

#include <algorithm>
#include <map>
#include <set>
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
  // At the register tile that holds the most values per thread: the line a
  // smaller tile would change (issue 17 part 5: at the source line).
  Span at = kernel.span;
  int64_t most = 0;
  const ir::TileDecl *largest = nullptr;
  for (const ir::TileDecl &t : kernel.tiles) {
    if (t.space != ir::MemSpace::Register || t.shape.size() != 2 || t.span.empty())
      continue;
    int64_t values = t.scope == ir::RegisterScope::Warpgroup ? t.shape[0] * t.shape[1] / 128
                                                             : registerSlots(t.shape);
    int64_t regs = ir::dtypeBytes(t.dtype) >= 4 ? values : (values + 1) / 2;
    if (regs > most) {
      most = regs;
      at = t.span;
      largest = &t;
    }
  }
  if (largest)
    msg += "; its largest register tile, `" + largest->name + "`, takes " + std::to_string(most) +
           " registers per thread";
  auto &d = sink.report(DiagId::RegisterLimitedOccupancy, at, msg);
  if (fits)
    d.note("at most " + std::to_string(fits) + " registers per thread would fit " +
           std::to_string(o.blocksPerSM + 1) + " blocks per SM");
}

// ---- what the layout tells (K0860, K0861) ----
// The accesses below are the ones the lowering emits (TileToMLIR.cpp): a
// warp's register tile in the mma.sync accumulator layout is loaded or
// stored one slot (pair) at a time, lane L at row 8 * i + L / 4 and column
// 8 * j + 2 * (L % 4) (+1 for the pair); MMA operands come from shared
// memory by ldmatrix, 8 rows of 16 bytes per 8x8 matrix. Tensors are
// row-major. The slice offsets, when not constants, are taken as 0 (the
// checker's alignment rules make them multiples of the tile's atoms).

/// Degree of the bank conflict of one shared-memory request: per phase
/// (32 lanes for 4-byte, 16 for 8-byte, 8 for 16-byte accesses), the most
/// distinct 4-byte words that one of the 32 banks must serve.
unsigned bankConflictDegree(const std::vector<uint64_t> &addrs, unsigned width) {
  size_t phase = width >= 16 ? 8 : width >= 8 ? 16 : 32;
  unsigned worst = 1;
  for (size_t p0 = 0; p0 < addrs.size(); p0 += phase) {
    std::map<unsigned, std::vector<uint64_t>> words; // bank -> distinct words
    for (size_t l = p0; l < std::min(addrs.size(), p0 + phase); ++l)
      for (unsigned w = 0; w < std::max(1u, width / 4); ++w) {
        uint64_t word = addrs[l] / 4 + w;
        auto &v = words[static_cast<unsigned>(word % 32)];
        if (std::find(v.begin(), v.end(), word) == v.end())
          v.push_back(word);
      }
    for (auto &[bank, v] : words)
      worst = std::max(worst, static_cast<unsigned>(v.size()));
  }
  return worst;
}

int64_t constantOr0(const ir::IndexExpr &e) { return e.asConstant().value_or(0); }

class AccessRemarks {
public:
  AccessRemarks(const ir::Kernel &k, const SourceFile *lineInfo, DiagnosticSink &sink)
      : k_(k), layout_(planLayout(k)), lineInfo_(lineInfo), sink_(sink) {}

  void walk(const ir::Block &b) {
    for (const ir::Op &op : b.ops) {
      if (auto *l = op.as<ir::LoadOp>())
        registerAccess(op.span, l->src, l->dst, "load");
      else if (auto *st = op.as<ir::StoreOp>(); st && st->atomic == ir::AtomicKind::None)
        registerAccess(op.span, st->dst, st->src, "store");
      else if (auto *m = op.as<ir::MmaOp>()) {
        ldmatrix(op.span, m->a, "A");
        ldmatrix(op.span, m->b, "B");
      } else if (auto *f = op.as<ir::ForOp>())
        walk(f->body);
      else if (auto *i = op.as<ir::IfOp>()) {
        walk(i->thenBody);
        walk(i->elseBody);
      } else if (auto *r = op.as<ir::RoleOp>())
        walk(r->body);
    }
  }

private:
  std::string accessText(const ir::Access &a) const {
    return a.kind == ir::Access::Kind::Tensor ? k_.params[a.id].name : k_.tiles[a.id].name;
  }
  /// One report per op and code (a loop body is walked once anyway).
  bool once(DiagId id, Span at) { return seen_.insert({int(id), at.begin}).second; }

  void registerAccess(Span at, const ir::Access &mem, ir::TileId reg, const char *what) {
    const ir::TileDecl &t = k_.tiles[reg];
    if (t.space != ir::MemSpace::Register || t.scope != ir::RegisterScope::Warp ||
        t.shape.size() != 2 || t.shape[0] < 8)
      return;
    int64_t R = t.shape[0], C = t.shape[1];
    if (mem.kind == ir::Access::Kind::Tensor)
      coalescing(at, mem, R, C, what);
    else
      sharedBanks(at, mem, R, C, what);
  }

  void coalescing(Span at, const ir::Access &a, int64_t R, int64_t C, const char *what) {
    const ir::TensorParam &p = k_.params[a.id];
    size_t rank = p.shape.size();
    std::vector<size_t> keep;
    for (size_t i = 0; i < rank; ++i)
      if (a.slice.empty() || !a.slice[i].point)
        keep.push_back(i);
    if (keep.empty() || keep.size() > 2)
      return;
    unsigned eb = ir::dtypeBytes(p.dtype);
    bool lastKept = keep.back() == rank - 1;
    // Contiguous bytes per row of one warp request, and the rows it spans.
    uint64_t run;
    std::string shape;
    // A column of a tensor whose rows are one element ([M, 1]) is contiguous.
    bool unitRows = lastKept && p.shape.back().asConstant() == 1;
    if (keep.size() == 2 && C > 1)
      run = lastKept ? std::min<int64_t>(C, 8) * eb : eb;
    else
      run = (keep.size() == 1 && lastKept) || unitRows ? std::min<int64_t>(R, 8) * eb : eb;
    if (run >= 16)
      return;
    if (!once(DiagId::UncoalescedGlobalAccess, at))
      return;
    unsigned pct = static_cast<unsigned>(run * 100 / 32);
    auto &d = sink_.report(
        DiagId::UncoalescedGlobalAccess, at,
        std::string("uncoalesced global ") + what + " of `" + p.name + "`: each warp request " +
            (std::string(what) == "store" ? "writes " : "reads ") +
            (lastKept && run > eb ? std::to_string(run) + " contiguous bytes"
                                  : "one " + std::to_string(eb) + "-byte element") +
            " per row over 8 rows, one 32-byte sector each (" + std::to_string(pct) +
            "% of the fetched bytes used)");
    if (!lastKept)
      d.note("the tile runs down a column of the row-major tensor `" + p.name +
             "`; a tensor stored with this dimension last (transposed) is read along rows");
  }

  void sharedBanks(Span at, const ir::Access &a, int64_t R, int64_t C, const char *what) {
    const auto &slo = a.id < layout_.shared.size() ? layout_.shared[a.id] : std::nullopt;
    if (!slo)
      return;
    auto [r0, c0] = sliceOrigin(a);
    bool pairs = C > 1;
    unsigned width = slo->elemBytes * (pairs ? 2 : 1);
    auto degree = [&](const SharedTileLayout &sl) {
      unsigned worst = 1;
      for (int64_t i = 0; i < std::min<int64_t>(R / 8, 2); ++i)
        for (int64_t j = 0; j < std::max<int64_t>(1, std::min<int64_t>(C / 8, 2)); ++j) {
          std::vector<uint64_t> addrs;
          for (int64_t lane = 0; lane < 32; ++lane) {
            int64_t row = r0 + 8 * i + lane / 4;
            int64_t col = c0 + (C > 1 ? 8 * j + 2 * (lane % 4) : 0);
            addrs.push_back(sl.byteOffset(row % sl.rows, col % std::max<int64_t>(sl.cols, 1)));
          }
          worst = std::max(worst, bankConflictDegree(addrs, width));
        }
      return worst;
    };
    bankRemark(at, a, degree,
               std::string("the ") + what + " of a [" + std::to_string(R) + ", " +
                   std::to_string(C) + "] register tile (" + std::to_string(width) +
                   "-byte accesses, lane L at row L / 4)",
               *slo);
  }

  void ldmatrix(Span at, const ir::Access &a, const char *operand) {
    if (a.kind != ir::Access::Kind::Tile || a.id >= layout_.shared.size() || !layout_.shared[a.id])
      return;
    auto [r0, c0] = sliceOrigin(a);
    auto degree = [&](const SharedTileLayout &sl) {
      std::vector<uint64_t> addrs;
      for (int64_t row = 0; row < 8; ++row)
        addrs.push_back(sl.byteOffset((r0 + row) % sl.rows, c0 % std::max<int64_t>(sl.cols, 1)));
      return bankConflictDegree(addrs, 16);
    };
    bankRemark(at, a, degree,
               std::string("ldmatrix of the MMA's ") + operand + " operand (8 rows of 16 bytes)",
               *layout_.shared[a.id]);
  }

  std::pair<int64_t, int64_t> sliceOrigin(const ir::Access &a) const {
    size_t rank = k_.tiles[a.id].shape.size();
    if (a.slice.size() == rank && rank >= 2)
      return {constantOr0(a.slice[rank - 2].offset), constantOr0(a.slice[rank - 1].offset)};
    return {0, 0};
  }

  /// Reports the conflict when `degree` of the tile's layout is above 1. The
  /// pointer (pad the rows) is given only when the padded, swizzled layout
  /// makes the same request conflict-free.
  template <typename Degree>
  void bankRemark(Span at, const ir::Access &a, const Degree &degree, const std::string &how,
                  const SharedTileLayout &sl) {
    unsigned n = degree(sl);
    if (n <= 1 || !once(DiagId::SharedBankConflict, at))
      return;
    auto &d = sink_.report(DiagId::SharedBankConflict, at,
                           std::to_string(n) + "-way shared-memory bank conflict in " + how +
                               " of `" + k_.tiles[a.id].name + "`: its rows are " +
                               std::to_string(sl.cols * sl.elemBytes) + " bytes" +
                               (sl.swizzled ? "" : ", stored without a swizzle"));
    if (sl.swizzled || (sl.cols * sl.elemBytes) % 16 != 0)
      return;
    SharedTileLayout padded = sl;
    unsigned chunks = 1;
    while (chunks * 16 < sl.cols * sl.elemBytes)
      chunks *= 2;
    padded.cols = chunks * 16 / sl.elemBytes;
    padded.swizzled = true;
    padded.chunksPerRow = chunks;
    if (degree(padded) == 1)
      d.note("a tile " + std::to_string(padded.cols) + " elements wide (" +
             std::to_string(chunks * 16) +
             "-byte rows, a power-of-two number of 16-byte chunks) gets the code generator's "
             "XOR swizzle, under which this access has no conflict");
  }

  const ir::Kernel &k_;
  KernelLayout layout_;
  const SourceFile *lineInfo_;
  DiagnosticSink &sink_;
  std::set<std::pair<int, uint32_t>> seen_;
};

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
  AccessRemarks access(kernel, lineInfo, sink);
  access.walk(kernel.body);
}

} // namespace kina::codegen
