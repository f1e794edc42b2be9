#!/usr/bin/env bash
# tests/gpu/hopper/prepare.sh: on the BUILD machine, make what run.sh needs
# on the H200 (which has no LLVM): the cubins + launch metadata of the Hopper
# tile IR kernels (tests/unit/ir/HopperKernels.h, compiled by
# kina-codegen-fixture with the project's ptxas for sm_90a) and the
# statically linked hopper_run, into .carry/hopper/ (git ignores .carry).
#
#   scripts/build.sh kina-codegen-fixture hopper_run && tests/gpu/hopper/prepare.sh
#
# Env: KINA_BUILD_DIR (default build), CARRY (default .carry/hopper).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
BUILD=${KINA_BUILD_DIR:-$ROOT/build}
CARRY=${CARRY:-$ROOT/.carry/hopper}
FIXTURE=$BUILD/tests/unit/codegen/kina-codegen-fixture
RUNNER=$BUILD/tests/unit/runtime/gpu-hopper/hopper_run
for f in "$FIXTURE" "$RUNNER"; do
  [ -x "$f" ] || { echo "missing $f: scripts/build.sh kina-codegen-fixture hopper_run" >&2; exit 1; }
done
mkdir -p "$CARRY"
# hopper2.md: the persistent kernel (TMA-store epilogue, one wgmma group in
# flight) and its older forms, for the comparison at 4096^3.
PERSISTENT="gemm_bf16_hopper_persistent gemm_f16_hopper_persistent
  gemm_bf16_hopper_persistent_gstore gemm_bf16_hopper_persistent_wait0_gstore
  gemm_bf16_hopper_persistent_cluster2"
# s3.md "Cluster multicast": 2x1 clusters sharing B (the plan's kernel) or A
# through TMA multicast, released by cluster arrivals; grid2 = one cluster
# walking every tile (the rings wrap across tiles at small sizes).
CLUSTER="gemm_bf16_hopper_cluster gemm_f16_hopper_cluster gemm_bf16_hopper_cluster_share_a
  gemm_bf16_hopper_cluster_grid2"
REGA="wgmma_rega_ldmatrix_n64 wgmma_rega_ldmatrix_n256 wgmma_rega_chain_n64 wgmma_rega_chain_n128"
for k in tma_round_trip wgmma_m64n64k16 wgmma_m64n256k64 gemm_bf16_hopper gemm_f16_hopper \
  $REGA $PERSISTENT $CLUSTER; do
  "$FIXTURE" --kernel "$k" --target sm_90a --emit cubin -o "$CARRY/$k.cubin" >/dev/null
  "$FIXTURE" --kernel "$k" --target sm_90a --emit ptxas-log > "$CARRY/$k.ptxas.txt"
  "$FIXTURE" --kernel "$k" --target sm_90a --emit ptx > "$CARRY/$k.ptx"
done
# The stdlib kernels from source (frontend + the same codegen), when kina is built.
if [ -x "$BUILD/compiler/driver/kina" ]; then
  for k in gemm_bf16_hopper gemm_f16_hopper gemm_bf16_hopper_cluster gemm_f16_hopper_cluster \
    gemm_bf16_hopper_cluster_share_a; do
    "$BUILD/compiler/driver/kina" build "$ROOT/stdlib/$k.kina" --emit=cubin --target sm_90a \
      -o "$CARRY/stdlib_$k.cubin"
  done
fi
cp "$RUNNER" "$CARRY/hopper_run"
ls -l "$CARRY"
