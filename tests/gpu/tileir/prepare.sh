#!/usr/bin/env bash
# tests/gpu/tileir/prepare.sh: on the BUILD machine (it has tileiras 13.3 in
# .deps/cuda/tileiras), write the Tile IR kernels (compiler/tileir/
# SmokeKernels.h: elementwise add, GEMM f16 -> f32, row softmax), assemble
# them for sm_90 and put the cubins, the bytecode, a manifest and the
# GPU runner (tileir_run, no LLVM) into .carry/tileir/ (git ignores .carry).
# The PTX-backend kernels run.sh times beside them are built here too.
#
#   scripts/build.sh kina kina-tileir-prepare tileir_run && tests/gpu/tileir/prepare.sh
#
# Env: KINA_BUILD_DIR (default build), CARRY (default .carry/tileir),
#      SMALL=1 (the small sizes: quick, also for a dry run here).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
BUILD=${KINA_BUILD_DIR:-$ROOT/build}
CARRY=${CARRY:-$ROOT/.carry/tileir}
PREP=$BUILD/compiler/tileir/kina-tileir-prepare
RUNNER=$BUILD/tests/unit/tileir/gpu-tileir/tileir_run
for f in "$PREP" "$RUNNER"; do
  [ -x "$f" ] || { echo "missing $f: scripts/build.sh kina-tileir-prepare tileir_run" >&2; exit 1; }
done
[ -f "$ROOT/.deps/env.sh" ] && . "$ROOT/.deps/env.sh"
mkdir -p "$CARRY"
args=("$CARRY" --target sm_90)
[ "${SMALL:-0}" = 1 ] && args+=(--small)
"$PREP" "${args[@]}"
# The same backend from Kina source: block-level kernels through
# `kina build --backend=tileir` (manifest kinds kina_add / kina_softmax: the
# dims follow the pointers as i32, the grid is the kernel's block_grid).
KINA_BIN=$BUILD/compiler/driver/kina
if [ -x "$KINA_BIN" ]; then
  if [ "${SMALL:-0}" = 1 ]; then am=64 an=128 sm=64; else am=4096 an=4096 sm=65536; fi
  "$KINA_BIN" build "$ROOT/tests/gpu/tileir/kernels.kina" --kernel add_blk --backend=tileir \
    --target sm_90 -o "$CARRY/add_blk.cubin"
  "$KINA_BIN" build "$ROOT/tests/gpu/tileir/kernels.kina" --kernel softmax_blk --backend=tileir \
    --target sm_90 -o "$CARRY/softmax_blk.cubin"
  "$KINA_BIN" build "$ROOT/tests/gpu/tileir/gemm_blk.kina" --kernel gemm_blk --backend=tileir \
    --target sm_90 -o "$CARRY/gemm_blk.cubin"
  # The block is the cubin's REQNTID (tileiras chooses the thread count).
  add_block=$("$PREP" --block-of "$CARRY/add_blk.cubin" add_blk)
  softmax_block=$("$PREP" --block-of "$CARRY/softmax_blk.cubin" softmax_blk)
  echo "add_blk kina_add $((am / 16)) $((an / 64)) 1 $add_block $am $an" >>"$CARRY/manifest.txt"
  echo "softmax_blk kina_softmax $((sm / 16)) 1 1 $softmax_block $sm 128" >>"$CARRY/manifest.txt"
else
  echo "note: $KINA_BIN not built: the Kina-source kernels are left out" >&2
fi
cp "$RUNNER" "$CARRY/tileir_run"
# The PTX backend's equivalents (stdlib, sm_90a), timed by `kina run --bench`
# on the device: run.sh uses the kina binary given as KINA there.
ls -l "$CARRY"
