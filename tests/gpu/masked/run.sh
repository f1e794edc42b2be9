#!/usr/bin/env bash
# tests/gpu/masked/run.sh: masks and ragged edges on the GPU (issue 14 part 1),
# for the lead to run on the H200 with the carried static kina:
#
#   tests/gpu/masked/run.sh [PATH/TO/kina]     (or KINA=...; OUT=dir, default /tmp/kina-out)
#
# For each masked stdlib kernel (stdlib/gemm_masked.kina: registers and
# cp_async zero fill; softmax_masked.kina: any N and causal)
# and each ragged size below: built for sm_80 (the H200 cannot run sm_80
# cubins: the launch guard refuses them, K1303), run for sm_90a:
# `kina run --check --save` (GPU result against the
# tile-IR interpreter, and the launch guard accepting M = 1000 or 7 with no
# divisibility asked), then compare_ref.py against the kernel's independent
# NumPy reference (tests/gpu/refs/*_masked.py; PyTorch is not needed). Then
# compute-sanitizer memcheck (no access outside the tensors: the masked
# edges) and racecheck at one ragged size per kernel. Each line is PASS,
# FAIL or SKIP; SKIP is never a pass.
# Env: PYTHON (python3 with NumPy), SANITIZE=0 (skip compute-sanitizer),
# TIMEOUT (seconds per command, default 600: --check interprets M = N = K = 1000).
# Exit status: 0 all passed; 1 a failure; 77 no GPU (everything skipped).
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
KINA=${1:-${KINA:-/tmp/kina-bin/kina}}
OUT=${OUT:-/tmp/kina-out}
PYTHON=${PYTHON:-python3}
TIMEOUT=${TIMEOUT:-600}
SANITIZE=${SANITIZE:-1}
mkdir -p "$OUT"
LOG=$OUT/masked-log.txt
SAVE=$(mktemp -d "${TMPDIR:-/tmp}/kina-masked-XXXXXX")
pass=0 fail=0 skip=0
say() { echo "$*" | tee -a "$LOG"; }
{
  date -u; hostname
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true
  "$KINA" --version 2>&1 || true
  command -v compute-sanitizer || echo "compute-sanitizer not on PATH"
} > "$LOG" 2>&1
[ -x "$KINA" ] || { say "FAIL setup: kina not found at $KINA"; exit 1; }

# file kernel dims (ragged: 1, 7, 33, 1000 and sizes that are not multiples)
CASES="
gemm_masked.kina gemm_masked_f16 M=1000,N=1000,K=1000
gemm_masked.kina gemm_masked_f16 M=1,N=7,K=33
gemm_masked.kina gemm_masked_f16 M=33,N=1,K=7
gemm_masked.kina gemm_masked_f16 M=7,N=33,K=1
gemm_masked.kina gemm_masked_f16 M=300,N=130,K=17
gemm_masked.kina gemm_masked_f16 M=256,N=384,K=512
gemm_masked.kina gemm_masked_cp_f16 M=1000,N=1000,K=1000
gemm_masked.kina gemm_masked_cp_f16 M=1,N=8,K=8
gemm_masked.kina gemm_masked_cp_f16 M=33,N=136,K=24
gemm_masked.kina gemm_masked_cp_f16 M=300,N=40,K=200
softmax_masked.kina softmax_masked_f32 M=1000,N=1000
softmax_masked.kina softmax_masked_f32 M=1,N=7
softmax_masked.kina softmax_masked_f32 M=33,N=130
softmax_masked.kina softmax_masked_f32 M=4096,N=1000
softmax_masked.kina softmax_causal_f32 M=1000,N=1000
softmax_masked.kina softmax_causal_f32 M=7,N=33
softmax_masked.kina softmax_causal_f32 M=130,N=33
"
SANITIZE_CASES="
gemm_masked.kina gemm_masked_f16 M=33,N=7,K=17
gemm_masked.kina gemm_masked_cp_f16 M=33,N=136,K=24
softmax_masked.kina softmax_masked_f32 M=33,N=130
softmax_masked.kina softmax_causal_f32 M=7,N=33
"

record() { # record STATUS NAME [DETAIL]
  case $1 in PASS) pass=$((pass + 1)) ;; FAIL) fail=$((fail + 1)) ;; *) skip=$((skip + 1)) ;; esac
  say "$1 $2${3:+ ($3)}"
}

while read -r file kernel dims; do
  [ -n "$file" ] || continue
  # The H200 runs sm_90a code only: kina's launch guard refuses an sm_80
  # cubin on compute capability 9.0 (K1303), so sm_80 is built, not run.
  name="$kernel $dims sm_80 build"
  if "$KINA" build "$ROOT/stdlib/$file" --kernel "$kernel" --target sm_80 --emit=ptx -o /dev/null >> "$LOG" 2>&1; then
    record PASS "$name" "builds for sm_80 (runs need a compute capability 8.x GPU)"
  else
    record FAIL "$name" "kina build --target sm_80"
  fi
  for target in sm_90a; do
    name="$kernel $dims $target"
    dir=$SAVE/$kernel-$target-${dims//[,=]/_}
    echo "\$ $KINA run stdlib/$file --kernel $kernel --dims $dims --target $target --check --save $dir" >> "$LOG"
    timeout "$TIMEOUT" "$KINA" run "$ROOT/stdlib/$file" --kernel "$kernel" --dims "$dims" \
      --target "$target" --check --save "$dir" >> "$LOG" 2>&1
    rc=$?
    if [ $rc -eq 77 ]; then record SKIP "$name" "no CUDA device"; continue; fi
    if [ $rc -ne 0 ]; then record FAIL "$name" "kina run --check exited $rc"; continue; fi
    if "$PYTHON" "$ROOT/tests/gpu/compare_ref.py" "$dir/$kernel" --refs "$ROOT/tests/gpu/refs" >> "$LOG" 2>&1; then
      record PASS "$name" "GPU = interpreter = NumPy reference"
    else
      record FAIL "$name" "compare_ref.py against the NumPy reference"
    fi
  done
done <<< "$CASES"

if [ "$SANITIZE" != 0 ] && command -v compute-sanitizer > /dev/null; then
  while read -r file kernel dims; do
    [ -n "$file" ] || continue
    for tool in memcheck racecheck; do
      name="compute-sanitizer $tool $kernel $dims"
      echo "\$ compute-sanitizer --tool $tool --error-exitcode 9 $KINA run stdlib/$file --kernel $kernel --dims $dims" >> "$LOG"
      timeout "$TIMEOUT" compute-sanitizer --tool "$tool" --error-exitcode 9 \
        "$KINA" run "$ROOT/stdlib/$file" --kernel "$kernel" --dims "$dims" >> "$LOG" 2>&1
      rc=$?
      if [ $rc -eq 77 ]; then record SKIP "$name" "no CUDA device"
      elif [ $rc -eq 0 ]; then record PASS "$name"
      else record FAIL "$name" "exit $rc"; fi
    done
  done <<< "$SANITIZE_CASES"
else
  record SKIP "compute-sanitizer" "SANITIZE=0 or not on PATH"
fi

say "masked: $pass passed, $fail failed, $skip skipped (log $LOG)"
rm -rf "$SAVE"
[ $fail -gt 0 ] && exit 1
[ $pass -eq 0 ] && exit 77
exit 0
