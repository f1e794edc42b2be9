#!/usr/bin/env bash
# bench/gemm/session13.sh: issue 13's H200 measurements in one device call.
# Every table is one process run with its anchors (cuBLAS, cuBLASLt fused,
# Triton) in the same run; logs and tables go to $OUT/<part>/.
#   KINA=/path/to/kina OUT=/tmp/out bash bench/gemm/session13.sh [parts...]
# Parts (default: check anchors fused tiles compile; also ncu, ptxas)
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KINA=${KINA:?KINA=path to kina}
OUT=${OUT:-/tmp/session13}
parts=${*:-check anchors fused tiles compile}
cd "$ROOT"
for p in $parts; do
  mkdir -p "$OUT/$p"
  echo "== $p $(date -u +%H:%M:%S)"
  case $p in
    check) # the new kernels against their references, compute-sanitizer at the small size
      ONLY=${ONLY:-'cluster_bias|cluster$|pingpong'} OUT=$OUT/check TIMEOUT=120 bash tests/gpu/run.sh "$KINA" \
        > "$OUT/check/stdout.txt" 2>&1; tail -5 "$OUT/check/stdout.txt" ;;
    anchors)
      timeout 300 python3 bench/gemm/anchors.py --kina "$KINA" --out "$OUT/anchors" \
        --kernel-bf16 ${KBF16:-gemm_bf16_hopper_pingpong_cluster} --kernel-f16 ${KF16:-gemm_f16_hopper_pingpong_cluster} --b-layout nk \
        > "$OUT/anchors/stdout.txt" 2>&1; tail -20 "$OUT/anchors/stdout.txt" ;;
    fused)
      for fam in ${FAMILIES:-cluster}; do
        timeout 300 python3 bench/gemm/fused.py --kina "$KINA" --out "$OUT/fused-$fam" --quick --family $fam \
          ${FUSED_ARGS:---kernel gelu=gemm_bf16_hopper_cluster_bias_gelu_tanh} --check \
          > "$OUT/fused-$fam-stdout.txt" 2>&1; tail -8 "$OUT/fused-$fam-stdout.txt"
      done ;;
    tiles) # which tile wins where (the shapes below 4096^3 are the open ones)
      timeout 200 python3 bench/gemm/tiles.py --kina "$KINA" --out "$OUT/tiles" --sizes ${TILE_SIZES:-1024,2048} \
        ${TILE_KERNELS:-gemm_bf16_hopper_pingpong_cluster gemm_bf16_hopper_cluster gemm_bf16_hopper_cluster_s4 \
        gemm_bf16_hopper_64x128_s4 gemm_bf16_hopper_64x128_s8 gemm_bf16_hopper_64x64_s4} \
        > "$OUT/tiles/stdout-bf16.txt" 2>&1; tail -6 "$OUT/tiles/stdout-bf16.txt"
      mv "$OUT/tiles/gemm-tiles.md" "$OUT/tiles/gemm-tiles-bf16.md" 2>/dev/null
      mv "$OUT/tiles/gemm-tiles.json" "$OUT/tiles/gemm-tiles-bf16.json" 2>/dev/null ;;
    ncu) # where the cooperative cluster GEMM's time goes at 4096^3
      k=${NCU_KERNEL:-gemm_bf16_hopper_cluster}
      timeout 200 ncu --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
        --section MemoryWorkloadAnalysis -k regex:gemm -c 1 \
        "$KINA" run stdlib/$k.kina --dims M=4096,N=4096,K=4096 > "$OUT/ncu/$k.txt" 2>&1
      grep -E "Duration|Throughput|Compute \(SM\)|Issued|Stall|L2 Hit|Eligible|No Eligible|One or More" "$OUT/ncu/$k.txt" | head -40 ;;
    ptxas) # ptxas alone, on 2 cores, for the source-to-cubin budget
      for k in gemm_bf16_hopper_cluster gemm_bf16_hopper_64x128 gemm_tc; do
        "$KINA" build stdlib/$k.kina --emit=ptx -o "$OUT/ptxas/$k.ptx"
        for i in 1 2 3 4 5; do
          /usr/bin/time -f "$k ptxas wall %e s" taskset -c 0,1 ptxas -v --gpu-name sm_90a -O3 "$OUT/ptxas/$k.ptx" \
            -o /tmp/$k.cubin 2>&1 | grep -E "Compile time|wall"
        done
        /usr/bin/time -f "$k kina check wall %e s" taskset -c 0,1 "$KINA" check stdlib/$k.kina 2>&1 | tail -1
        /usr/bin/time -f "$k kina build ptx wall %e s" taskset -c 0,1 "$KINA" build stdlib/$k.kina --emit=ptx -o /tmp/$k.ptx 2>&1 | tail -1
      done 2>&1 | tee "$OUT/ptxas/times.txt" ;;
    compile)
      timeout 120 python3 bench/compile/device-cubin.py --kina "$KINA" --out "$OUT/compile" --runs 20 \
        stdlib/gemm_bf16_hopper_pingpong_cluster.kina:gemm_bf16_hopper_pingpong_cluster \
        stdlib/gemm_bf16_hopper_cluster.kina:gemm_bf16_hopper_cluster \
        stdlib/gemm_f16_hopper_cluster.kina:gemm_f16_hopper_cluster \
        stdlib/gemm_bf16_hopper_persistent.kina:gemm_bf16_hopper_persistent \
        stdlib/gemm_tc.kina:gemm_tc > "$OUT/compile/stdout.txt" 2>&1; cat "$OUT/compile/stdout.txt"
      nproc > "$OUT/compile/nproc.txt"; lscpu > "$OUT/compile/lscpu.txt" 2>&1 ;;
  esac
done
