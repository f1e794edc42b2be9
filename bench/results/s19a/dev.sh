#!/usr/bin/env bash
# s19a: the 4-stage cluster GEMMs' fused epilogues with the bias prefetched
# into warpgroup rows before the k-loop (GPU suite on the six changed
# kernels, the fused table), and epilogue variants of the plain GEMM
# (bench/gemm/variants/gemm_bf16_hopper_cluster_4stage_st{1,2}: halves
# stored from registers instead of through the C stage).
set -u
mkdir -p /tmp/k "$OUT/r" /tmp/gpu
xz -dc .carry/kina.xz > /tmp/k/kina && chmod +x /tmp/k/kina
K=/tmp/k/kina
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; $K --version; cat .carry/commit; } > "$OUT/r/env.txt" 2>&1
ONLY='cluster_4stage(_raster)?_bias' OUT=/tmp/gpu TIMEOUT=120 bash tests/gpu/run.sh $K > /tmp/gpu/suite-stdout.txt 2>&1
echo "suite exit $?"; tail -2 /tmp/gpu/suite-stdout.txt
mkdir -p "$OUT/r/gpu" && cp /tmp/gpu/suite-stdout.txt /tmp/gpu/gpu-log.txt "$OUT/r/gpu/"
PYTHONUNBUFFERED=1 timeout 200 python3 bench/gemm/tiles.py --kina $K --sizes 4096,8192 --dtype bf16 --out /tmp/tiles \
  gemm_bf16_hopper_cluster_4stage gemm_bf16_hopper_cluster_4stage_st1 gemm_bf16_hopper_cluster_4stage_st2 \
  > "$OUT/r/tiles-stdout.txt" 2>&1
echo "tiles exit $?"; tail -6 "$OUT/r/tiles-stdout.txt"; cp /tmp/tiles/*.md "$OUT/r/" 2>/dev/null
PYTHONUNBUFFERED=1 timeout 200 python3 bench/gemm/fused.py --kina $K --quick --family cluster_4stage_raster \
  --kernel gelu=gemm_bf16_hopper_cluster_4stage_raster_bias_gelu_tanh --out /tmp/fused > "$OUT/r/fused-stdout.txt" 2>&1
echo "fused exit $?"; tail -4 "$OUT/r/fused-stdout.txt"; cp /tmp/fused/gemm-fused-results.md "$OUT/r/fused.md"
PYTHONUNBUFFERED=1 timeout 200 python3 bench/gemm/fused.py --kina $K --quick --stdlib bench/gemm/variants \
  --kernel relu=gemm_bf16_hopper_cluster_4stage_raster_st1_bias_relu --out /tmp/fused2 > "$OUT/r/fused-st1-stdout.txt" 2>&1
echo "fused st1 exit $?"; tail -4 "$OUT/r/fused-st1-stdout.txt"; cp /tmp/fused2/gemm-fused-results.md "$OUT/r/fused-st1.md"
date -u >> "$OUT/r/env.txt"
