#!/usr/bin/env bash
# tests/gpu/attention/run.sh: flash attention forward on the GPU (issue 14
# part 7), for the lead to run on the H200 with the carried static kina:
#
#   tests/gpu/attention/run.sh [PATH/TO/kina]   (or KINA=...; OUT=dir, default /tmp/kina-out)
#
# For each kernel of stdlib/attention_fwd_bf16.kina (head dim 64 and 128,
# causal and not) at 3+ sizes [B*H, S] including ragged S: inputs from
# make_inputs.py (normal, q x 2: peaked softmax rows), built for sm_80
# (build only: the H200 refuses sm_80 cubins, K1303) and run for sm_90a with
# `kina run --inputs --save`, then two oracles on the saved inputs and GPU
# output: compare_ref.py (the float64 NumPy reference, tests/gpu/refs/
# attention_fwd_bf16.py) and sdpa_check.py (PyTorch's
# scaled_dot_product_attention, math backend, float32). Then
# compute-sanitizer memcheck and racecheck at one small ragged size per
# head dim (racecheck: the two cp_async stages of K and V).
# On this machine, without a GPU: KINA_GPU_INTERPRET=1 runs the small sizes
# through the tile-IR interpreter (`kina run --interpret`) against the NumPy
# reference (sdpa_check.py SKIPs without PyTorch; no sanitizer).
# Env: PYTHON (python3 with NumPy; PyTorch for sdpa_check), SANITIZE=0,
# TIMEOUT (seconds per command, default 300).
# Exit status: 0 all passed; 1 a failure; 77 nothing ran.
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
KINA=${1:-${KINA:-/tmp/kina-bin/kina}}
OUT=${OUT:-/tmp/kina-out}
PYTHON=${PYTHON:-python3}
TIMEOUT=${TIMEOUT:-300}
SANITIZE=${SANITIZE:-1}
INTERPRET=${KINA_GPU_INTERPRET:-0}
SRC=$ROOT/stdlib/attention_fwd_bf16.kina
HERE=$ROOT/tests/gpu/attention
mkdir -p "$OUT"
LOG=$OUT/attention-log.txt
SAVE=$(mktemp -d "${TMPDIR:-/tmp}/kina-attn-XXXXXX")
pass=0 fail=0 skip=0
say() { echo "$*" | tee -a "$LOG"; }
{
  date -u; hostname
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true
  "$KINA" --version 2>&1 || true
  "$PYTHON" -c 'import torch; print("torch", torch.__version__)' 2>&1 || true
  command -v compute-sanitizer || echo "compute-sanitizer not on PATH"
} > "$LOG" 2>&1
[ -x "$KINA" ] || { say "FAIL setup: kina not found at $KINA"; exit 1; }

# kernel head-dim BH S   (S = 100, 1000, 70: ragged tails of the 64-key blocks)
if [ "$INTERPRET" = 1 ]; then
  CASES="
attention_fwd_bf16_d64 64 2 128
attention_fwd_bf16_d64 64 3 100
attention_fwd_bf16_d128 128 2 70
attention_fwd_causal_bf16_d64 64 2 128
attention_fwd_causal_bf16_d64 64 1 100
attention_fwd_causal_bf16_d128 128 2 70
"
else
  CASES="
attention_fwd_bf16_d64 64 16 1024
attention_fwd_bf16_d64 64 4 1000
attention_fwd_bf16_d64 64 3 100
attention_fwd_bf16_d128 128 16 1024
attention_fwd_bf16_d128 128 4 1000
attention_fwd_bf16_d128 128 2 70
attention_fwd_causal_bf16_d64 64 16 1024
attention_fwd_causal_bf16_d64 64 4 1000
attention_fwd_causal_bf16_d64 64 3 100
attention_fwd_causal_bf16_d128 128 16 1024
attention_fwd_causal_bf16_d128 128 4 1000
attention_fwd_causal_bf16_d128 128 2 70
"
fi
SANITIZE_CASES="
attention_fwd_bf16_d64 64 2 100
attention_fwd_causal_bf16_d128 128 2 70
"

record() { # record STATUS NAME [DETAIL]
  case $1 in PASS) pass=$((pass + 1)) ;; FAIL) fail=$((fail + 1)) ;; *) skip=$((skip + 1)) ;; esac
  say "$1 $2${3:+ ($3)}"
}

# sm_80: built once per kernel (the H200 refuses sm_80 cubins, K1303).
if [ "$INTERPRET" != 1 ]; then
  for kernel in $(echo "$CASES" | awk 'NF {print $1}' | sort -u); do
    name="$kernel sm_80 build"
    if "$KINA" build "$SRC" --kernel "$kernel" --target sm_80 --emit=ptx -o /dev/null >> "$LOG" 2>&1; then
      record PASS "$name" "builds for sm_80 (runs need a compute capability 8.x GPU)"
    else
      record FAIL "$name" "kina build --target sm_80"
    fi
  done
fi

RUNS=()
while read -r kernel d bh s; do
  [ -n "$kernel" ] || continue
  dims="BH=$bh,S=$s"
  in=$SAVE/in-$kernel-$bh-$s
  "$PYTHON" "$HERE/make_inputs.py" "$in" "$bh" "$s" "$d" >> "$LOG" 2>&1 ||
    { record FAIL "$kernel $dims inputs" "make_inputs.py (NumPy?)"; continue; }
  if [ "$INTERPRET" = 1 ]; then how=(--interpret); name="$kernel $dims interpreter"
  else how=(--target sm_90a); name="$kernel $dims sm_90a"; fi
  dir=$SAVE/$kernel-$bh-$s
  cmd=("$KINA" run "$SRC" --kernel "$kernel" --dims "$dims" "${how[@]}" --inputs "$in/q.npy" "$in/k.npy" "$in/v.npy" --save "$dir")
  echo "\$ ${cmd[*]}" >> "$LOG"
  timeout "$TIMEOUT" "${cmd[@]}" >> "$LOG" 2>&1
  rc=$?
  if [ $rc -eq 77 ]; then record SKIP "$name" "no CUDA device"; continue; fi
  if [ $rc -ne 0 ]; then record FAIL "$name" "kina run exited $rc"; continue; fi
  if "$PYTHON" "$ROOT/tests/gpu/compare_ref.py" "$dir/$kernel" --refs "$ROOT/tests/gpu/refs" >> "$LOG" 2>&1; then
    record PASS "$name" "= float64 NumPy reference"
  else
    record FAIL "$name" "compare_ref.py against the NumPy reference"
  fi
  RUNS+=("$dir/$kernel")
done <<< "$CASES"

# PyTorch's SDPA math backend on every saved run, in one process.
if [ ${#RUNS[@]} -gt 0 ]; then
  out=$(timeout "$TIMEOUT" "$PYTHON" "$HERE/sdpa_check.py" "${RUNS[@]}" 2>&1)
  rc=$?
  echo "$out" >> "$LOG"
  if [ $rc -eq 77 ]; then record SKIP "SDPA math check of ${#RUNS[@]} runs" "no PyTorch"
  else
    while read -r status rest; do
      case $status in PASS|FAIL) record "$status" "SDPA $rest" ;; esac
    done <<< "$out"
    [ $rc -eq 0 ] || grep -q '^FAIL' <<< "$out" || record FAIL "SDPA math check" "sdpa_check.py exited $rc"
  fi
fi

if [ "$INTERPRET" != 1 ] && [ "$SANITIZE" != 0 ] && command -v compute-sanitizer > /dev/null; then
  while read -r kernel d bh s; do
    [ -n "$kernel" ] || continue
    for tool in memcheck racecheck; do
      name="compute-sanitizer $tool $kernel BH=$bh,S=$s"
      echo "\$ compute-sanitizer --tool $tool --error-exitcode 9 $KINA run $SRC --kernel $kernel --dims BH=$bh,S=$s --target sm_90a" >> "$LOG"
      timeout "$TIMEOUT" compute-sanitizer --tool "$tool" --error-exitcode 9 \
        "$KINA" run "$SRC" --kernel "$kernel" --dims "BH=$bh,S=$s" --target sm_90a >> "$LOG" 2>&1
      rc=$?
      if [ $rc -eq 77 ]; then record SKIP "$name" "no CUDA device"
      elif [ $rc -eq 0 ]; then record PASS "$name"
      else record FAIL "$name" "exit $rc"; fi
    done
  done <<< "$SANITIZE_CASES"
else
  record SKIP "compute-sanitizer" "interpreter run, SANITIZE=0 or not on PATH"
fi

say "attention: $pass passed, $fail failed, $skip skipped (log $LOG)"
rm -rf "$SAVE"
[ $fail -gt 0 ] && exit 1
[ $pass -eq 0 ] && exit 77
exit 0
