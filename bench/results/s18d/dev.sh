#!/usr/bin/env bash
# s18d: the 4-stage 2x1-cluster GEMMs in the stdlib (gemm_{bf16,f16}_hopper_
# cluster_4stage and the bf16 fused epilogues): the GPU suite on them
# (references, interpreter, sanitizers), one anchors table with them, and
# the fused table.
set -u
mkdir -p /tmp/k "$OUT/r/gpu"
xz -dc .carry/kina.xz > /tmp/k/kina && chmod +x /tmp/k/kina
K=/tmp/k/kina
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; $K --version; cat .carry/commit; } > "$OUT/r/env.txt" 2>&1
ONLY='4stage' OUT="$OUT/r/gpu" TIMEOUT=120 bash tests/gpu/run.sh $K > "$OUT/r/gpu/suite-stdout.txt" 2>&1
echo "suite exit $?"; tail -2 "$OUT/r/gpu/suite-stdout.txt"
F16="gemm_f16_hopper_cluster_4stage,1024^3=gemm_f16_hopper_64x128"
BF16="gemm_bf16_hopper_cluster_4stage,1024^3=gemm_bf16_hopper_64x128"
PYTHONUNBUFFERED=1 timeout 330 python3 bench/gemm/anchors.py --kina $K --b-layout nk --out "$OUT/r/anchors" \
  --kernel-f16 "$F16" --kernel-bf16 "$BF16" > "$OUT/r/anchors-stdout.txt" 2>&1
echo "anchors exit $?"; grep -E "^(f16|bf16) " "$OUT/r/anchors-stdout.txt"
PYTHONUNBUFFERED=1 timeout 200 python3 bench/gemm/fused.py --kina $K --quick --family cluster_4stage --out "$OUT/r/fused" > "$OUT/r/fused-stdout.txt" 2>&1
echo "fused exit $?"; tail -4 "$OUT/r/fused-stdout.txt"
PYTHONUNBUFFERED=1 timeout 200 python3 bench/gemm/fused.py --kina $K --quick --family cluster_4stage --kernel gelu=gemm_bf16_hopper_cluster_4stage_bias_gelu_tanh --out "$OUT/r/fused-tanh" > "$OUT/r/fused-tanh-stdout.txt" 2>&1
echo "fused tanh exit $?"; tail -4 "$OUT/r/fused-tanh-stdout.txt"
date -u >> "$OUT/r/env.txt"
