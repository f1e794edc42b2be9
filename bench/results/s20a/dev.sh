#!/usr/bin/env bash
# s20a: the fused table with a kernel per shape and activation, picked
# before the run from s13 (the 3-stage cluster kernels with a whole 64x256
# output box per consumer read 1.07x addmm_act at 8192x8192x1024 there,
# against 0.98x for 4stage_raster in s19f); every other candidate is timed
# in the same run (--also), among them the new 3-stage cluster-free raster
# variants of bench/gemm/variants.
set -u
mkdir -p /tmp/k "$OUT/r"
xz -dc .carry/kina.xz > /tmp/k/kina && chmod +x /tmp/k/kina
K=/tmp/k/kina
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $K --version; cat .carry/commit; } > "$OUT/r/env.txt" 2>&1
P=gemm_bf16_hopper
PYTHONUNBUFFERED=1 timeout 420 python3 bench/gemm/fused.py --kina $K --quick --check --stdlib . \
  --kernel relu=${P}_4stage_raster_bias_relu --kernel gelu=${P}_4stage_raster_bias_gelu_tanh \
  --kernel "relu@8192x8192x1024=${P}_cluster_bias_relu" \
  --kernel "gelu@8192x8192x1024=${P}_pingpong_cluster_bias_gelu" \
  --also relu=${P}_3stage_raster_bias_relu --also gelu=${P}_3stage_raster_bias_gelu_tanh \
  --also relu=${P}_cluster_4stage_raster_bias_relu --also gelu=${P}_cluster_bias_gelu_tanh \
  --also relu=${P}_cluster_4stage_bias_relu --also gelu=${P}_cluster_4stage_raster_bias_gelu_tanh \
  --out /tmp/fused > "$OUT/r/fused-stdout.txt" 2>&1
echo "fused exit $?"; cat "$OUT/r/fused-stdout.txt" | tail -30; cp /tmp/fused/gemm-fused-results.md /tmp/fused/gemm-fused-results.json "$OUT/r/"
date -u >> "$OUT/r/env.txt"
