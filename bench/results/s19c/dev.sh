#!/usr/bin/env bash
# s19c: (1) the four-stage GEMM with and without its 2x1 cluster
# (bench/gemm/variants/gemm_bf16_hopper_4stage_nc{,_raster}); (2) the fused
# raster GEMMs with the bias rows prefetched before the k-loop (stdlib)
# against the same kernels reading the bias in the epilogue (the layout
# before, bench/gemm/variants/*_raster_epi_bias_*). Two passes of each, to
# see the run-to-run spread.
set -u
mkdir -p /tmp/k "$OUT/r"
xz -dc .carry/kina.xz > /tmp/k/kina && chmod +x /tmp/k/kina
K=/tmp/k/kina
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $K --version; cat .carry/commit; } > "$OUT/r/env.txt" 2>&1
for pass in 1 2; do
PYTHONUNBUFFERED=1 timeout 250 python3 bench/gemm/tiles.py --kina $K --sizes 2048,4096,8192 --dtype bf16 --out /tmp/tiles$pass \
  gemm_bf16_hopper_cluster_4stage gemm_bf16_hopper_cluster_4stage_raster gemm_bf16_hopper_4stage_nc gemm_bf16_hopper_4stage_nc_raster \
  > "$OUT/r/tiles-$pass-stdout.txt" 2>&1
echo "tiles $pass exit $?"; grep "^|" "$OUT/r/tiles-$pass-stdout.txt"
PYTHONUNBUFFERED=1 timeout 200 python3 bench/gemm/fused.py --kina $K --quick --family cluster_4stage_raster \
  --kernel gelu=gemm_bf16_hopper_cluster_4stage_raster_bias_gelu_tanh --out /tmp/fp$pass > "$OUT/r/fused-prefetch-$pass-stdout.txt" 2>&1
echo "fused prefetch $pass exit $?"; grep -E "^(4096|8192)" "$OUT/r/fused-prefetch-$pass-stdout.txt"
PYTHONUNBUFFERED=1 timeout 200 python3 bench/gemm/fused.py --kina $K --quick --stdlib bench/gemm/variants \
  --kernel relu=gemm_bf16_hopper_cluster_4stage_raster_epi_bias_relu \
  --kernel gelu=gemm_bf16_hopper_cluster_4stage_raster_epi_bias_gelu_tanh --out /tmp/fe$pass > "$OUT/r/fused-epi-$pass-stdout.txt" 2>&1
echo "fused epi $pass exit $?"; grep -E "^(4096|8192)" "$OUT/r/fused-epi-$pass-stdout.txt"
done
date -u >> "$OUT/r/env.txt"
