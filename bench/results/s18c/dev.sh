#!/usr/bin/env bash
# s18c: gemm_bf16_hopper_cluster_s4e (4 stages, two [64, 128] accumulators,
# half-width C stage) against gemm_bf16_hopper_cluster (3 stages): checks,
# sanitizers, tiles at 2048^3 / 4096^3 / 8192^3.
set -u
mkdir -p /tmp/k "$OUT/r"
xz -dc .carry/kina.xz > /tmp/k/kina && chmod +x /tmp/k/kina
K=/tmp/k/kina
V=bench/gemm/variants/gemm_bf16_hopper_cluster_s4e.kina
k=gemm_bf16_hopper_cluster_s4e
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; $K --version; cat .carry/commit; } > "$OUT/r/env.txt" 2>&1
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
{
for d in M=256,N=256,K=64 M=512,N=768,K=320 M=2048,N=2304,K=448; do
  echo "== $k $d check"; timeout 200 $K run $V --kernel $k --dims $d --check 2>&1 | tail -2
done
for t in memcheck racecheck synccheck; do
  echo "== $k sanitizer $t"; timeout 200 $CS --tool $t --error-exitcode 9 $K run $V --kernel $k --dims M=512,N=512,K=128 --check 2>&1 | tail -2; echo "rc ${PIPESTATUS[0]}"
done
} > "$OUT/r/checks.txt" 2>&1
grep -c PASS "$OUT/r/checks.txt"; grep -E "FAIL|rc [1-9]" "$OUT/r/checks.txt"
PYTHONUNBUFFERED=1 python3 bench/gemm/tiles.py --kina $K --dtype bf16 --sizes 2048,4096,8192 --out "$OUT/r/tiles" \
  gemm_bf16_hopper_cluster gemm_bf16_hopper_cluster_s4e gemm_bf16_hopper_persistent_raster > "$OUT/r/tiles.txt" 2>&1
tail -6 "$OUT/r/tiles.txt"
date -u >> "$OUT/r/env.txt"
