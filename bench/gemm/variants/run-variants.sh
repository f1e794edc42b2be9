#!/usr/bin/env bash
# Times GEMM tiling variants with `kina run --bench` at one shape (device machine).
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
KINA=${KINA:-/tmp/kina-bin/kina}
dims=${DIMS:-M=4096,N=4096,K=4096}
for f in stdlib/gemm_f16_pipelined.kina bench/gemm/variants/*.kina; do
  echo "== $f $dims"
  "$KINA" run "$f" --dims "$dims" --bench 2>&1 | tail -2
done
