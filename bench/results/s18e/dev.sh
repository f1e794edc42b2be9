#!/usr/bin/env bash
# s18e: the GPU suite on the 4-stage stdlib GEMMs again (s18d's logs were too
# many files to come back: tarred here), and the grouped-raster variant
# gemm_bf16_hopper_cluster_4stage_raster: checks, sanitizers, tiles.
set -u
mkdir -p /tmp/k "$OUT/r" /tmp/gpu
xz -dc .carry/kina.xz > /tmp/k/kina && chmod +x /tmp/k/kina
K=/tmp/k/kina
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; $K --version; cat .carry/commit; } > "$OUT/r/env.txt" 2>&1
ONLY='4stage' OUT=/tmp/gpu TIMEOUT=120 bash tests/gpu/run.sh $K > /tmp/gpu/suite-stdout.txt 2>&1
echo "suite exit $?"; tail -2 /tmp/gpu/suite-stdout.txt
tar -C /tmp -czf "$OUT/r/gpu-4stage.tar.gz" gpu
V=bench/gemm/variants/gemm_bf16_hopper_cluster_4stage_raster.kina
k=gemm_bf16_hopper_cluster_4stage_raster
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
{
for d in M=1024,N=768,K=512 M=2048,N=2304,K=448 M=4096,N=4096,K=256 M=3072,N=1280,K=192; do
  echo "== $k $d check"; timeout 200 $K run $V --kernel $k --dims $d --check 2>&1 | tail -2
done
for t in memcheck racecheck synccheck; do
  echo "== $k sanitizer $t"; timeout 200 $CS --tool $t --error-exitcode 9 $K run $V --kernel $k --dims M=1024,N=512,K=128 --check 2>&1 | tail -2; echo "rc ${PIPESTATUS[0]}"
done
} > "$OUT/r/checks-raster.txt" 2>&1
grep -c PASS "$OUT/r/checks-raster.txt"; grep -E "FAIL|rc [1-9]" "$OUT/r/checks-raster.txt"
PYTHONUNBUFFERED=1 python3 bench/gemm/tiles.py --kina $K --dtype bf16 --sizes 4096,8192 --out /tmp/tiles \
  gemm_bf16_hopper_cluster_4stage gemm_bf16_hopper_cluster_4stage_raster gemm_bf16_hopper_persistent_raster > "$OUT/r/tiles.txt" 2>&1
tail -5 "$OUT/r/tiles.txt"
date -u >> "$OUT/r/env.txt"
