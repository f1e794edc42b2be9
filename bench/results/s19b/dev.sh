#!/usr/bin/env bash
# s19b: where the bias rows are loaded: before the k-loop (stdlib, s19a) or
# after the last wgmma is issued (bench/gemm/variants/*_raster_late_bias_*),
# fused tables back to back; then the plain raster GEMM at the two fused
# shapes with `kina run --bench` (its mm anchor is the fused tables' mm).
set -u
mkdir -p /tmp/k "$OUT/r"
xz -dc .carry/kina.xz > /tmp/k/kina && chmod +x /tmp/k/kina
K=/tmp/k/kina
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; $K --version; cat .carry/commit; } > "$OUT/r/env.txt" 2>&1
for pass in 1 2; do
PYTHONUNBUFFERED=1 timeout 200 python3 bench/gemm/fused.py --kina $K --quick --family cluster_4stage_raster \
  --kernel gelu=gemm_bf16_hopper_cluster_4stage_raster_bias_gelu_tanh --out /tmp/fused$pass > "$OUT/r/fused-before-$pass-stdout.txt" 2>&1
echo "fused before $pass exit $?"; grep -E "^(4096|8192)" "$OUT/r/fused-before-$pass-stdout.txt"; cp /tmp/fused$pass/gemm-fused-results.md "$OUT/r/fused-before-$pass.md"
PYTHONUNBUFFERED=1 timeout 200 python3 bench/gemm/fused.py --kina $K --quick --stdlib bench/gemm/variants \
  --kernel relu=gemm_bf16_hopper_cluster_4stage_raster_late_bias_relu \
  --kernel gelu=gemm_bf16_hopper_cluster_4stage_raster_late_bias_gelu_tanh --out /tmp/fusedl$pass > "$OUT/r/fused-late-$pass-stdout.txt" 2>&1
echo "fused late $pass exit $?"; grep -E "^(4096|8192)" "$OUT/r/fused-late-$pass-stdout.txt"; cp /tmp/fusedl$pass/gemm-fused-results.md "$OUT/r/fused-late-$pass.md"
done
for d in M=4096,N=4096,K=4096 M=8192,N=8192,K=1024; do
  echo "plain raster $d: $($K run stdlib/gemm_bf16_hopper_cluster_4stage_raster.kina --dims $d --bench 2>&1 | tail -1)"
done | tee "$OUT/r/plain.txt"
date -u >> "$OUT/r/env.txt"
