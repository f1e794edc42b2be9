#!/usr/bin/env bash
# s18a: the 64x128 Hopper GEMM with 2x1 / 4x1 clusters multicasting B
# (bench/gemm/variants/*_64x128_cluster*.kina): checks, sanitizers, and tiles
# at 1024^3 / 2048^3 against cuBLAS in one process per dtype.
set -u
mkdir -p /tmp/k "$OUT/r"
xz -dc .carry/kina.xz > /tmp/k/kina && chmod +x /tmp/k/kina
K=/tmp/k/kina
V=bench/gemm/variants
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; $K --version; cat .carry/commit; } > "$OUT/r/env.txt" 2>&1
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
{
for k in gemm_bf16_hopper_64x128_cluster gemm_f16_hopper_64x128_cluster gemm_bf16_hopper_64x128_cluster4 gemm_f16_hopper_64x128_cluster4; do
  for d in M=256,N=128,K=64 M=512,N=384,K=192 M=1024,N=1024,K=256 M=768,N=256,K=1024; do
    echo "== $k $d check"; timeout 200 $K run $V/$k.kina --kernel $k --dims $d --check 2>&1 | tail -3
  done
  for t in memcheck racecheck synccheck; do
    echo "== $k sanitizer $t"; timeout 200 $CS --tool $t --error-exitcode 9 $K run $V/$k.kina --kernel $k --dims M=256,N=256,K=128 --check 2>&1 | tail -3; echo "rc ${PIPESTATUS[0]}"
  done
done
} > "$OUT/r/checks.txt" 2>&1
grep -c PASS "$OUT/r/checks.txt"; grep -i -E "fail|error|mismatch" "$OUT/r/checks.txt" | head
for dt in bf16 f16; do
  PYTHONUNBUFFERED=1 python3 bench/gemm/tiles.py --kina $K --dtype $dt --sizes 1024,2048 --out "$OUT/r/tiles-$dt" \
    gemm_${dt}_hopper_64x128 gemm_${dt}_hopper_64x128_cluster gemm_${dt}_hopper_64x128_cluster4 gemm_${dt}_hopper_cluster gemm_${dt}_hopper_persistent \
    > "$OUT/r/tiles-$dt.txt" 2>&1
  tail -6 "$OUT/r/tiles-$dt.txt"
done
date -u >> "$OUT/r/env.txt"
PYTHONUNBUFFERED=1 python3 bench/gemm/tiles.py --kina $K --dtype f16 --sizes 4096,8192 --out "$OUT/r/tiles-f16-big" \
  gemm_f16_hopper_cluster gemm_f16_hopper_cluster_share_a gemm_f16_hopper_persistent > "$OUT/r/tiles-f16-big.txt" 2>&1
tail -5 "$OUT/r/tiles-f16-big.txt"
date -u >> "$OUT/r/env.txt"
