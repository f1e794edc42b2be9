//===- BlockLevel.h - The block-level kernel form (issue 18) ----*- C++ -*-===//
//
// A block-level kernel declares its register tiles directly in `block_grid`
// (no `warp_grid` or `warpgroup_grid`): each tile belongs to the whole
// block, as a CUDA Tile IR tile does. The checker treats such a block body
// like `warp_grid [1]` (one warp owning every tile), so the shape, bounds,
// placement, capability and register-budget checks apply unchanged and the
// PTX backend and the interpreter run it as a one-warp block; the Tile IR
// backend (compiler/tileir/FromTileIR.h) lets tileiras spread the tiles.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "syntax/Ast.h"

namespace kina::sema {

/// Whether the `block_grid` statement `grid` holds register declarations
/// outside any warp or warpgroup grid and no such grid at all.
bool isBlockLevelGrid(const syntax::Module &m, const syntax::Stmt &grid);

} // namespace kina::sema
