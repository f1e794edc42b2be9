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
cp "$RUNNER" "$CARRY/tileir_run"
# The PTX backend's equivalents (stdlib, sm_90a), timed by `kina run --bench`
# on the device: run.sh uses the kina binary given as KINA there.
ls -l "$CARRY"
