#!/usr/bin/env bash
# tests/gpu/grid/run.sh: grids and atomics on the GPU (issue 14 parts 5, 6), for
# the lead to run on the H200 with the carried static kina:
#
#   tests/gpu/grid/run.sh [PATH/TO/kina]     (or KINA=...; OUT=dir, default /tmp/kina-out)
#
# For each case below: `kina run --check --save` on sm_90a (the GPU result
# against the tile-IR interpreter), then compare_ref.py against the kernel's
# independent NumPy reference (tests/gpu/refs/<kernel>.py). Then
# compute-sanitizer memcheck and racecheck at one size per kernel. The
# grouped-raster GEMM needs M a multiple of 1024 and N of 256 (its requires),
# so its sizes are not ragged; a size its launch guard must refuse is run too
# (expects K1304). The split-K GEMM (stdlib/gemm_splitk_f16.kina) adds four
# K slices into its zero-filled result with atomic_add; its F32 sums round in
# the blocks' order, within the comparison's tolerance. Each line is PASS, FAIL or SKIP; SKIP is never a pass.
#
# Without a GPU: KINA_GPU_INTERPRET=1 runs every case with `--interpret` in
# place of `--check` (the reference interpreter against NumPy) and skips the
# sanitizer, so the script is debugged before device time is spent:
#   KINA_GPU_INTERPRET=1 QUICK=1 tests/gpu/grid/run.sh build/compiler/driver/kina
# QUICK=1 keeps the smallest sizes only.
# Env: PYTHON (python3 with NumPy), SANITIZE=0 (skip compute-sanitizer),
# TIMEOUT (seconds per command, default 600).
# Exit status: 0 all passed; 1 a failure; 77 no GPU (everything skipped).
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
KINA=${1:-${KINA:-/tmp/kina-bin/kina}}
OUT=${OUT:-/tmp/kina-out}
PYTHON=${PYTHON:-python3}
TIMEOUT=${TIMEOUT:-600}
SANITIZE=${SANITIZE:-1}
INTERPRET=${KINA_GPU_INTERPRET:-0}
QUICK=${QUICK:-0}
mkdir -p "$OUT"
LOG=$OUT/grid-log.txt
SAVE=$(mktemp -d "${TMPDIR:-/tmp}/kina-grid-XXXXXX")
pass=0 fail=0 skip=0
say() { echo "$*" | tee -a "$LOG"; }
{
  date -u; hostname
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true
  "$KINA" --version 2>&1 || true
  command -v compute-sanitizer || echo "compute-sanitizer not on PATH"
} > "$LOG" 2>&1
[ -x "$KINA" ] || { say "FAIL setup: kina not found at $KINA"; exit 1; }

# file kernel dims quick(1 = also in QUICK runs)
CASES="
gemm_bf16_hopper_persistent_raster.kina gemm_bf16_hopper_persistent_raster M=1024,N=256,K=64 1
gemm_bf16_hopper_persistent_raster.kina gemm_bf16_hopper_persistent_raster M=2048,N=2304,K=128 1
gemm_bf16_hopper_persistent_raster.kina gemm_bf16_hopper_persistent_raster M=3072,N=1280,K=320 0
gemm_bf16_hopper_persistent_raster.kina gemm_bf16_hopper_persistent_raster M=4096,N=4096,K=512 0
gemm_splitk_f16.kina gemm_splitk_f16 M=128,N=128,K=256 1
gemm_splitk_f16.kina gemm_splitk_f16 M=256,N=384,K=1024 1
gemm_splitk_f16.kina gemm_splitk_f16 M=512,N=256,K=4096 0
"
SANITIZE_CASES="
gemm_bf16_hopper_persistent_raster.kina gemm_bf16_hopper_persistent_raster M=2048,N=2304,K=128
gemm_splitk_f16.kina gemm_splitk_f16 M=256,N=384,K=1024
"
# file kernel dims: sizes the launch guard refuses (K1304), before any launch
REFUSE_CASES="
gemm_bf16_hopper_persistent_raster.kina gemm_bf16_hopper_persistent_raster M=1536,N=256,K=64
"

record() { # record STATUS NAME [DETAIL]
  case $1 in PASS) pass=$((pass + 1)) ;; FAIL) fail=$((fail + 1)) ;; *) skip=$((skip + 1)) ;; esac
  say "$1 $2${3:+ ($3)}"
}

while read -r file kernel dims quick; do
  [ -n "$file" ] || continue
  [ "$QUICK" = 1 ] && [ "$quick" != 1 ] && continue
  name="$kernel $dims sm_90a"
  dir=$SAVE/$kernel-${dims//[,=]/_}
  if [ "$INTERPRET" = 1 ]; then mode=--interpret; what="interpreter = NumPy reference"
  else mode=--check; what="GPU = interpreter = NumPy reference"; fi
  echo "\$ $KINA run stdlib/$file --kernel $kernel --dims $dims --target sm_90a $mode --save $dir" >> "$LOG"
  timeout "$TIMEOUT" "$KINA" run "$ROOT/stdlib/$file" --kernel "$kernel" --dims "$dims" \
    --target sm_90a $mode --save "$dir" >> "$LOG" 2>&1
  rc=$?
  if [ $rc -eq 77 ]; then record SKIP "$name" "no CUDA device"; continue; fi
  if [ $rc -ne 0 ]; then record FAIL "$name" "kina run $mode exited $rc"; continue; fi
  if "$PYTHON" "$ROOT/tests/gpu/compare_ref.py" "$dir/$kernel" --refs "$ROOT/tests/gpu/refs" >> "$LOG" 2>&1; then
    record PASS "$name" "$what"
  else
    record FAIL "$name" "compare_ref.py against the NumPy reference"
  fi
done <<< "$CASES"

while read -r file kernel dims; do
  [ -n "$file" ] || continue
  name="$kernel $dims refused"
  out=$(timeout "$TIMEOUT" "$KINA" run "$ROOT/stdlib/$file" --kernel "$kernel" --dims "$dims" \
    --target sm_90a --interpret 2>&1)
  echo "$out" >> "$LOG"
  if echo "$out" | grep -q "error\[K1304\]"; then record PASS "$name" "launch guard K1304"
  else record FAIL "$name" "expected the launch guard's K1304"; fi
done <<< "$REFUSE_CASES"

if [ "$INTERPRET" != 1 ] && [ "$SANITIZE" != 0 ] && command -v compute-sanitizer > /dev/null; then
  while read -r file kernel dims; do
    [ -n "$file" ] || continue
    for tool in memcheck racecheck; do
      name="compute-sanitizer $tool $kernel $dims"
      echo "\$ compute-sanitizer --tool $tool --error-exitcode 9 $KINA run stdlib/$file --kernel $kernel --dims $dims" >> "$LOG"
      timeout "$TIMEOUT" compute-sanitizer --tool "$tool" --error-exitcode 9 \
        "$KINA" run "$ROOT/stdlib/$file" --kernel "$kernel" --dims "$dims" --target sm_90a >> "$LOG" 2>&1
      rc=$?
      if [ $rc -eq 77 ]; then record SKIP "$name" "no CUDA device"
      elif [ $rc -eq 0 ]; then record PASS "$name"
      else record FAIL "$name" "exit $rc"; fi
    done
  done <<< "$SANITIZE_CASES"
else
  record SKIP "compute-sanitizer" "KINA_GPU_INTERPRET=1, SANITIZE=0 or not on PATH"
fi

say "grid: $pass passed, $fail failed, $skip skipped (log $LOG)"
rm -rf "$SAVE"
[ $fail -gt 0 ] && exit 1
[ $pass -eq 0 ] && exit 77
exit 0
