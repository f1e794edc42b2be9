#!/usr/bin/env bash
# s19d: the cluster-free grouped-raster four-stage GEMMs in the stdlib
# (stdlib/gemm_{bf16,f16}_hopper_4stage_raster*.kina): the GPU suite on
# them, one anchors table (64x128 at 1024^3, 4stage_raster elsewhere) and
# the fused table on the 4stage_raster family (ReLU; GELU in the tanh form).
set -u
mkdir -p /tmp/k "$OUT/r" /tmp/gpu
xz -dc .carry/kina.xz > /tmp/k/kina && chmod +x /tmp/k/kina
K=/tmp/k/kina
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $K --version; cat .carry/commit; } > "$OUT/r/env.txt" 2>&1
ONLY='_hopper_4stage_raster' OUT=/tmp/gpu TIMEOUT=120 bash tests/gpu/run.sh $K > /tmp/gpu/suite-stdout.txt 2>&1
echo "suite exit $?"; tail -2 /tmp/gpu/suite-stdout.txt
mkdir -p "$OUT/r/gpu" && tar -C /tmp/gpu -czf "$OUT/r/gpu/gpu.tgz" suite-stdout.txt gpu-log.txt
PICK="1024^3=gemm_@_hopper_64x128"
F16="gemm_f16_hopper_4stage_raster,${PICK//@/f16}"
BF16="gemm_bf16_hopper_4stage_raster,${PICK//@/bf16}"
PYTHONUNBUFFERED=1 timeout 330 python3 bench/gemm/anchors.py --kina $K --b-layout nk --out /tmp/anchors \
  --kernel-f16 "$F16" --kernel-bf16 "$BF16" > "$OUT/r/anchors-stdout.txt" 2>&1
echo "anchors exit $?"; grep -E "^(f16|bf16) " "$OUT/r/anchors-stdout.txt"; cp /tmp/anchors/gemm-results.md "$OUT/r/anchors.md"
PYTHONUNBUFFERED=1 timeout 200 python3 bench/gemm/fused.py --kina $K --quick --family 4stage_raster \
  --kernel gelu=gemm_bf16_hopper_4stage_raster_bias_gelu_tanh --out /tmp/fused > "$OUT/r/fused-stdout.txt" 2>&1
echo "fused exit $?"; tail -4 "$OUT/r/fused-stdout.txt"; cp /tmp/fused/gemm-fused-results.md "$OUT/r/fused.md"
date -u >> "$OUT/r/env.txt"
