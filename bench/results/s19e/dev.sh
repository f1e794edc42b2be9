#!/usr/bin/env bash
# s19e: the declared warpgroup rows and columns on the GPU
# (tests/gpu/constructs/warpgroup_rows.kina against its NumPy reference,
# with the sanitizers at the small sizes), then a second anchors table for
# the cluster-free 4stage_raster GEMMs (the spread of s19c/s19d).
set -u
mkdir -p /tmp/k "$OUT/r" /tmp/gpu
xz -dc .carry/kina.xz > /tmp/k/kina && chmod +x /tmp/k/kina
K=/tmp/k/kina
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $K --version; cat .carry/commit; } > "$OUT/r/env.txt" 2>&1
ONLY='^wgrow_' OUT=/tmp/gpu TIMEOUT=120 bash tests/gpu/run.sh $K > /tmp/gpu/suite-stdout.txt 2>&1
echo "suite exit $?"; tail -2 /tmp/gpu/suite-stdout.txt; grep -E "^FAIL" /tmp/gpu/suite-stdout.txt | head
mkdir -p "$OUT/r/gpu" && tar -C /tmp/gpu -czf "$OUT/r/gpu/gpu.tgz" suite-stdout.txt gpu-log.txt
PICK="1024^3=gemm_@_hopper_64x128"
F16="gemm_f16_hopper_4stage_raster,${PICK//@/f16}"
BF16="gemm_bf16_hopper_4stage_raster,${PICK//@/bf16}"
PYTHONUNBUFFERED=1 timeout 330 python3 bench/gemm/anchors.py --kina $K --b-layout nk --out /tmp/anchors \
  --kernel-f16 "$F16" --kernel-bf16 "$BF16" > "$OUT/r/anchors-stdout.txt" 2>&1
echo "anchors exit $?"; grep -E "^(f16|bf16) " "$OUT/r/anchors-stdout.txt"; cp /tmp/anchors/gemm-results.md "$OUT/r/anchors.md"
date -u >> "$OUT/r/env.txt"
