#!/usr/bin/env bash
# s18b: one GEMM table (anchors.py, both dtypes, every shape, the tile per
# shape that bench/gemm/tiles.py measured fastest), the fused bf16 epilogues
# (persistent family) and Nsight Compute on Kina's 4096^3 bf16 kernel and
# cuBLAS's, with the clocks left to the driver (why the sustained ratio is
# 0.85-0.95).
set -u
mkdir -p /tmp/k "$OUT/r"
xz -dc .carry/kina.xz > /tmp/k/kina && chmod +x /tmp/k/kina
K=/tmp/k/kina
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv; $K --version; cat .carry/commit; } > "$OUT/r/env.txt" 2>&1
F16="gemm_f16_hopper_cluster,1024^3=gemm_f16_hopper_64x128,2048^3=gemm_f16_hopper_persistent"
BF16="gemm_bf16_hopper_cluster,1024^3=gemm_bf16_hopper_64x128,2048^3=gemm_bf16_hopper_persistent,8192^3=gemm_bf16_hopper_persistent_raster"
PYTHONUNBUFFERED=1 timeout 330 python3 bench/gemm/anchors.py --kina $K --b-layout nk --out "$OUT/r/anchors" \
  --kernel-f16 "$F16" --kernel-bf16 "$BF16" > "$OUT/r/anchors-stdout.txt" 2>&1
echo "anchors exit $?"; grep -E "^(f16|bf16) " "$OUT/r/anchors-stdout.txt"
PYTHONUNBUFFERED=1 timeout 150 python3 bench/gemm/fused.py --kina $K --persistent --out "$OUT/r/fused" > "$OUT/r/fused-stdout.txt" 2>&1
echo "fused exit $?"; tail -4 "$OUT/r/fused-stdout.txt"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
SEC="--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy --metrics sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__cycles_active.avg"
timeout 100 $NCU --clock-control none $SEC -k regex:gemm --launch-count 1 \
  $K run stdlib/gemm_bf16_hopper_cluster.kina --kernel gemm_bf16_hopper_cluster --dims M=4096,N=4096,K=4096 > "$OUT/r/ncu-kina-4096.txt" 2>&1
echo "ncu kina $?"
cat > /tmp/mm.py <<'PY'
import torch
a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16).t()
for _ in range(4):
    c = torch.matmul(a, b)
torch.cuda.synchronize()
PY
timeout 100 $NCU --clock-control none $SEC --launch-skip 3 --launch-count 1 python3 /tmp/mm.py > "$OUT/r/ncu-cublas-4096.txt" 2>&1
echo "ncu cublas $?"
grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|gmma|Registers Per|Block Size|Grid Size|Warp Cycles Per Issued|Achieved Occupancy" "$OUT/r/ncu-kina-4096.txt" "$OUT/r/ncu-cublas-4096.txt" | head -40
date -u >> "$OUT/r/env.txt"
