#!/usr/bin/env bash
# tests/gpu/hopper/run.sh: the Hopper bring-up and GEMM check, for the lead to
# run on the H200 (issue 12 parts 3-4). It needs no LLVM there: prepare.sh
# (on the build machine) puts the sm_90a cubins, their launch metadata and
# the statically linked runner into .carry/hopper/; carry that directory.
#
#   tests/gpu/hopper/run.sh            (OUT=dir for logs, default $OUT or /tmp/kina-out)
#
# Per kernel and size: hopper_run launches the cubin through kina_runtime
# (launch guard, seeded inputs, cuTensorMapEncodeTiled tensor maps, > 48 KB
# dynamic shared memory) and saves inputs and outputs; check.py compares
# them with a NumPy reference. Then compute-sanitizer memcheck, racecheck
# and synccheck at the small size of each kernel. Order: the bring-up
# kernels first (one TMA load, one wgmma group), so that a failure points at
# one op family. Each line is PASS, FAIL or SKIP; SKIP is never a pass.
# Env: CARRY (default .carry/hopper), PYTHON (python3 with NumPy),
# SANITIZE=0 (skip compute-sanitizer), ITERS (timed runs of the largest
# GEMM, default 20), TIMEOUT (seconds per command, default 300), ONLY (a
# bash regex: run only the kernels it matches, e.g. ONLY=cluster).
# Exit status: 0 all passed; 1 a failure; 77 no GPU (everything skipped).
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
CARRY=${CARRY:-$ROOT/.carry/hopper}
OUT=${OUT:-/tmp/kina-out}
PYTHON=${PYTHON:-python3}
TIMEOUT=${TIMEOUT:-300}
ITERS=${ITERS:-20}
mkdir -p "$OUT"
LOG=$OUT/hopper-log.txt
RUN=$CARRY/hopper_run
pass=0 fail=0 skip=0
say() { echo "$*" | tee -a "$LOG"; }
{
  date -u; hostname
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true
  command -v compute-sanitizer || echo "compute-sanitizer not on PATH"
} > "$LOG" 2>&1
[ -x "$RUN" ] || { say "FAIL setup: $RUN missing (run tests/gpu/hopper/prepare.sh on the build machine)"; exit 1; }
for f in "$CARRY"/*.ptxas.txt; do
  say "ptxas log $(basename "$f"):"; sed 's/^/  /' "$f" | tee -a "$LOG" >/dev/null
done

# kernel  dims  [timed]   (the first size of each kernel is the sanitizer size)
CASES=(
  "tma_round_trip M=64"
  "tma_round_trip M=640"
  "wgmma_m64n64k16 -"
  "wgmma_m64n256k64 -"
  "wgmma_rega_ldmatrix_n64 -"
  "wgmma_rega_ldmatrix_n256 -"
  "wgmma_rega_chain_n64 -"
  "wgmma_rega_chain_n128 -"
  "gemm_bf16_hopper M=128,N=256,K=64"
  "gemm_bf16_hopper M=256,N=512,K=192"
  "gemm_bf16_hopper M=384,N=768,K=1024"
  "gemm_bf16_hopper M=1024,N=512,K=4096"
  "gemm_bf16_hopper M=4096,N=4096,K=4096 timed"
  "gemm_f16_hopper M=128,N=256,K=64"
  "gemm_f16_hopper M=512,N=256,K=576"
  "gemm_f16_hopper M=2048,N=1024,K=1024"
  "gemm_f16_hopper M=4096,N=4096,K=4096 timed"
  # Persistent (132 blocks): 1 tile (131 blocks idle), 4 tiles, 128 tiles with
  # K/64 = 5 (the 3-stage ring wraps inside a tile), 288 tiles (2-3 per
  # block, the ring counter runs across tiles) with K/64 = 7.
  "gemm_bf16_hopper_persistent M=128,N=256,K=64"
  "gemm_bf16_hopper_persistent M=256,N=512,K=192"
  "gemm_bf16_hopper_persistent M=2048,N=2048,K=320"
  "gemm_bf16_hopper_persistent M=4096,N=2304,K=448"
  "gemm_bf16_hopper_persistent M=4096,N=4096,K=4096 timed"
  "gemm_f16_hopper_persistent M=128,N=256,K=64"
  "gemm_f16_hopper_persistent M=4096,N=2304,K=448"
  "gemm_f16_hopper_persistent M=4096,N=4096,K=4096 timed"
  "gemm_bf16_hopper_persistent_gstore M=128,N=256,K=64"
  "gemm_bf16_hopper_persistent_gstore M=4096,N=2304,K=448"
  "gemm_bf16_hopper_persistent_gstore M=4096,N=4096,K=4096 timed"
  # 2x1 clusters (launch only: cuLaunchKernelEx with the cluster attribute).
  "gemm_bf16_hopper_persistent_cluster2 M=128,N=256,K=64"
  "gemm_bf16_hopper_persistent_cluster2 M=4096,N=2304,K=448"
  # 2x1 clusters with TMA multicast of the shared operand and cluster
  # releases (s3.md "Cluster multicast"). 256x256x64: one cluster of two
  # tiles (65 clusters idle, K/64 = 1); 1024x768x512: 24 tiles, the ring
  # wraps inside a tile; 2048x2304x448: 144 tiles, clusters 0..5 take two
  # (the ring runs across tiles); 4096^3 timed. The first size of each is
  # the compute-sanitizer size.
  "gemm_bf16_hopper_cluster M=256,N=256,K=64"
  "gemm_bf16_hopper_cluster M=1024,N=768,K=512"
  "gemm_bf16_hopper_cluster M=2048,N=2304,K=448"
  "gemm_bf16_hopper_cluster M=4096,N=4096,K=4096 timed"
  "gemm_f16_hopper_cluster M=256,N=256,K=64"
  "gemm_f16_hopper_cluster M=1024,N=768,K=512"
  "gemm_f16_hopper_cluster M=4096,N=4096,K=4096 timed"
  # A shared instead of B (N-adjacent tiles, requires N mod 512).
  "gemm_bf16_hopper_cluster_share_a M=128,N=512,K=64"
  "gemm_bf16_hopper_cluster_share_a M=1024,N=1536,K=512"
  "gemm_bf16_hopper_cluster_share_a M=4096,N=4096,K=4096 timed"
  # One cluster for all tiles: 8 tiles of K/64 = 5 per CTA pair, 4 each.
  "gemm_bf16_hopper_cluster_grid2 M=512,N=512,K=320"
  "gemm_bf16_hopper_cluster_grid2 M=1024,N=768,K=192"
  "gemm_bf16_hopper_persistent_wait0_gstore M=128,N=256,K=64"
  "gemm_bf16_hopper_persistent_wait0_gstore M=4096,N=4096,K=4096 timed"
  "stdlib_gemm_bf16_hopper M=256,N=512,K=192"
  "stdlib_gemm_bf16_hopper M=1024,N=768,K=2048"
  "stdlib_gemm_bf16_hopper M=4096,N=4096,K=4096 timed"
  "stdlib_gemm_f16_hopper M=256,N=512,K=192"
  "stdlib_gemm_f16_hopper M=4096,N=4096,K=4096 timed"
  "stdlib_gemm_bf16_hopper_cluster M=256,N=256,K=64"
  "stdlib_gemm_bf16_hopper_cluster M=1024,N=768,K=512"
  "stdlib_gemm_bf16_hopper_cluster M=4096,N=4096,K=4096 timed"
  "stdlib_gemm_f16_hopper_cluster M=256,N=256,K=64"
  "stdlib_gemm_f16_hopper_cluster M=1024,N=768,K=512"
  "stdlib_gemm_f16_hopper_cluster M=4096,N=4096,K=4096 timed"
  "stdlib_gemm_bf16_hopper_cluster_share_a M=128,N=512,K=64"
  "stdlib_gemm_bf16_hopper_cluster_share_a M=1024,N=1536,K=512"
  "stdlib_gemm_bf16_hopper_cluster_share_a M=4096,N=4096,K=4096 timed"
)
declare -A small
for c in "${CASES[@]}"; do
  set -- $c
  k=$1 dims=$2 timed=${3:-}
  [ -n "${ONLY:-}" ] && ! [[ $k =~ $ONLY ]] && continue
  [ "$dims" = - ] && dims=""
  [ -n "${small[$k]:-}" ] || small[$k]="$dims"
  dir=$OUT/hopper-saved/$k-${dims//[,=]/_}
  mkdir -p "$dir"
  iters=0; [ "$timed" = timed ] && iters=$ITERS
  [ -f "$CARRY/$k.cubin" ] || { say "SKIP $k: no $CARRY/$k.cubin (prepare.sh without kina)"; skip=$((skip+1)); continue; }
  say "== $k ${dims:-(no dims)}"
  timeout "$TIMEOUT" "$RUN" "$CARRY/$k.cubin" "$CARRY/$k.launch.json" ${dims:+--dims "$dims"} \
    --save "$dir" --iters "$iters" >> "$LOG" 2>&1
  rc=$?
  if [ $rc -eq 77 ]; then say "SKIP $k $dims: no CUDA device"; skip=$((skip+1)); continue; fi
  if [ $rc -ne 0 ]; then say "FAIL $k $dims: hopper_run exit $rc (see $LOG)"; fail=$((fail+1)); continue; fi
  if "$PYTHON" "$ROOT/tests/gpu/hopper/check.py" "${k#stdlib_}" "$dir" 2>&1 | tee -a "$LOG" | grep -q '^PASS'; then
    pass=$((pass+1))
  else
    say "FAIL $k $dims: reference mismatch"; fail=$((fail+1))
  fi
  [ "$timed" = timed ] && grep -h "median" "$LOG" | tail -n 1 | tee -a "$OUT/hopper-timing.txt"
done

if [ "${SANITIZE:-1}" != 0 ] && [ $skip -eq 0 ]; then
  if command -v compute-sanitizer >/dev/null; then
    for k in "${!small[@]}"; do
      dims=${small[$k]}
      for tool in memcheck racecheck synccheck; do
        out=$OUT/hopper-sanitizer-$k-$tool.txt
        timeout "$TIMEOUT" compute-sanitizer --tool "$tool" --error-exitcode 3 \
          "$RUN" "$CARRY/$k.cubin" "$CARRY/$k.launch.json" ${dims:+--dims "$dims"} \
          > "$out" 2>&1
        rc=$?
        tail -n 3 "$out" >> "$LOG"
        if [ $rc -eq 0 ] && grep -q "ERROR SUMMARY: 0 errors\|RACECHECK SUMMARY: 0 hazards" "$out"; then
          say "PASS sanitizer $tool $k ${dims}"; pass=$((pass+1))
        else
          say "FAIL sanitizer $tool $k ${dims}: exit $rc (see $out)"; fail=$((fail+1))
        fi
      done
    done
  else
    say "SKIP sanitizer: compute-sanitizer not found"; skip=$((skip+1))
  fi
fi
say "hopper: $pass passed, $fail failed, $skip skipped"
[ $pass -gt 0 ] && cp "$LOG" "$ROOT/tests/gpu/logs/hopper-log-$(date -u +%Y%m%d)-$(hostname -s).txt"
[ $fail -gt 0 ] && exit 1
[ $pass -eq 0 ] && exit 77
exit 0
