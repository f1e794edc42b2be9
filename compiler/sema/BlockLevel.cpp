//===- BlockLevel.cpp - The block-level kernel form (issue 18) ------------===//
#include "sema/BlockLevel.h"

namespace kina::sema {

namespace {
void scan(const syntax::Module &m, const std::vector<syntax::StmtId> &stmts, bool &registers,
          bool &warpGrids) {
  for (syntax::StmtId id : stmts) {
    const syntax::Stmt &s = m.stmt(id);
    switch (s.kind) {
    case syntax::StmtKind::Register:
      registers = true;
      break;
    case syntax::StmtKind::WarpGrid:
    case syntax::StmtKind::WarpgroupGrid:
      warpGrids = true;
      break;
    default:
      scan(m, s.body, registers, warpGrids);
      scan(m, s.elseBody, registers, warpGrids);
      break;
    }
  }
}
} // namespace

bool isBlockLevelGrid(const syntax::Module &m, const syntax::Stmt &grid) {
  if (grid.kind != syntax::StmtKind::BlockGrid)
    return false;
  bool registers = false, warpGrids = false;
  scan(m, grid.body, registers, warpGrids);
  return registers && !warpGrids;
}

} // namespace kina::sema
