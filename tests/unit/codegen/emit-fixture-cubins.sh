#!/usr/bin/env bash
# Writes a cubin + launch.json for every hand-built stdlib kernel, for sm_80
# and sm_90a, into OUT (default build/fixture-cubins), so the GPU machine can
# check the code generator before the frontend lowering lands (the kernels'
# semantics are in tests/unit/ir/SeedKernels.cpp; param order: tensors, then
# result, then i32 dims). Usage: emit-fixture-cubins.sh [build-dir] [out-dir]
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
build="${1:-$root/build}"
out="${2:-$build/fixture-cubins}"
bin="$(find "$build" -name kina-codegen-fixture -type f -perm -u+x | head -n1)"
[[ -n "$bin" ]] || { echo "kina-codegen-fixture is not built in $build" >&2; exit 2; }
mkdir -p "$out"
for k in gemm_tc gemm_pipelined_f16 gemm_pipelined_bf16 gemm_pipelined_f16_out_f16 \
         gemm_pipelined_f16_s4 gemm_pipelined_f16_128x256 add_relu row_sum transpose softmax_rows; do
  for t in sm_80 sm_90a; do
    "$bin" --kernel "$k" --target "$t" --emit cubin -o "$out/$k.$t.cubin" >/dev/null
  done
done
ls -l "$out"
