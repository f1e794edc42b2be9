#!/usr/bin/env bash
# s19f: one anchors table with a kernel per shape (64x128 at 1024^3, the
# cluster raster GEMM on the two LLM shapes, where the cluster-free one read
# 0.89-0.90x in bf16 at 4096x11008x4096 in s19d/s19e, 4stage_raster
# elsewhere), then the fused table on the 4stage_raster family again.
set -u
mkdir -p /tmp/k "$OUT/r"
xz -dc .carry/kina.xz > /tmp/k/kina && chmod +x /tmp/k/kina
K=/tmp/k/kina
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $K --version; cat .carry/commit; } > "$OUT/r/env.txt" 2>&1
PICK="1024^3=gemm_@_hopper_64x128,llama2-7b mlp up (4096 tok)=gemm_@_hopper_cluster_4stage_raster,llama3-8b mlp down (8192 tok)=gemm_@_hopper_cluster_4stage_raster"
F16="gemm_f16_hopper_4stage_raster,${PICK//@/f16}"
BF16="gemm_bf16_hopper_4stage_raster,${PICK//@/bf16}"
PYTHONUNBUFFERED=1 timeout 330 python3 bench/gemm/anchors.py --kina $K --b-layout nk --out /tmp/anchors \
  --kernel-f16 "$F16" --kernel-bf16 "$BF16" > "$OUT/r/anchors-stdout.txt" 2>&1
echo "anchors exit $?"; grep -E "^(f16|bf16) " "$OUT/r/anchors-stdout.txt"; cp /tmp/anchors/gemm-results.md "$OUT/r/anchors.md"
PYTHONUNBUFFERED=1 timeout 200 python3 bench/gemm/fused.py --kina $K --quick --family 4stage_raster \
  --kernel gelu=gemm_bf16_hopper_4stage_raster_bias_gelu_tanh --out /tmp/fused > "$OUT/r/fused-stdout.txt" 2>&1
echo "fused exit $?"; tail -4 "$OUT/r/fused-stdout.txt"; cp /tmp/fused/gemm-fused-results.md "$OUT/r/fused.md"
date -u >> "$OUT/r/env.txt"
