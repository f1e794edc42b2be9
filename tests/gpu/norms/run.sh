#!/usr/bin/env bash
# tests/gpu/norms/run.sh: LayerNorm and RMSNorm (stdlib/layernorm.kina,
# stdlib/rmsnorm.kina), GEMM + bias + GELU with a BF16 result on the Ampere
# path (stdlib/gemm_bias_gelu_bf16.kina) and the batched GEMM
# (stdlib/gemm_batched.kina) on the GPU, issue 14 parts 3 and 7, and the
# predicated masked accesses they use (tests/gpu/constructs/masked_pairs.kina:
# the 4-byte pair version at even widths, the element version at odd). For the
# lead, on the H200 with the carried static kina:
#
#   KINA=/tmp/kina-bin/kina tests/gpu/norms/run.sh      (OUT=dir, default /tmp/kina-out)
#
# Each case: built for sm_80 (the H200 cannot run sm_80 cubins, K1303), run
# for sm_90a with `kina run --save` (random inputs, kept), then compared with
# the kernel's independent float64 NumPy reference (tests/gpu/refs/*.py,
# compare_ref.py) and with PyTorch on the same inputs (compare_torch.py:
# F.layer_norm, F.rms_norm, gelu(addmm), torch.bmm; bf16 on the GPU when
# there is one). Small cases also run with --check (GPU = tile-IR
# interpreter). Then compute-sanitizer memcheck and racecheck at one ragged
# size of each norm (the block reduction's shared scratch and barriers).
# Each line is PASS, FAIL or SKIP; SKIP is never a pass.
#
# Here, without a GPU: INTERPRET=1 tests/gpu/norms/run.sh runs the small
# cases through the interpreter (`--interpret`) and the same comparisons.
# Env: PYTHON (python3 with NumPy; PyTorch optional), SANITIZE=0, TIMEOUT
# (seconds per command, default 300), INTERPRET=1.
# Exit status: 0 all passed; 1 a failure; 77 nothing ran (no GPU).
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
KINA=${1:-${KINA:-/tmp/kina-bin/kina}}
OUT=${OUT:-/tmp/kina-out}
PYTHON=${PYTHON:-python3}
TIMEOUT=${TIMEOUT:-300}
SANITIZE=${SANITIZE:-1}
INTERPRET=${INTERPRET:-0}
mkdir -p "$OUT"
LOG=$OUT/norms-log.txt
SAVE=$(mktemp -d "${TMPDIR:-/tmp}/kina-norms-XXXXXX")
pass=0 fail=0 skip=0
say() { echo "$*" | tee -a "$LOG"; }
{
  date -u; hostname
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true
  "$KINA" --version 2>&1 || true
} > "$LOG" 2>&1
[ -x "$KINA" ] || { say "FAIL setup: kina not found at $KINA"; exit 1; }

# file kernel dims small(1: also --check, and the only ones with INTERPRET=1)
CASES="
layernorm.kina layernorm_bf16 M=7,D=1024 1
layernorm.kina layernorm_bf16 M=33,D=512 1
layernorm.kina layernorm_bf16 M=5,D=1000 1
layernorm.kina layernorm_bf16 M=1000,D=4099 0
layernorm.kina layernorm_bf16 M=1000,D=1024 0
layernorm.kina layernorm_bf16 M=4096,D=4096 0
layernorm.kina layernorm_bf16 M=333,D=8192 0
layernorm.kina layernorm_cp_bf16 M=7,D=1024 1
layernorm.kina layernorm_cp_bf16 M=33,D=1536 1
layernorm.kina layernorm_cp_bf16 M=1000,D=1024 0
layernorm.kina layernorm_cp_bf16 M=4096,D=4096 0
layernorm.kina layernorm_cp_bf16 M=333,D=8192 0
rmsnorm.kina rmsnorm_bf16 M=7,D=1024 1
rmsnorm.kina rmsnorm_bf16 M=33,D=512 1
rmsnorm.kina rmsnorm_bf16 M=5,D=1000 1
rmsnorm.kina rmsnorm_bf16 M=1000,D=4099 0
rmsnorm.kina rmsnorm_bf16 M=1000,D=1024 0
rmsnorm.kina rmsnorm_bf16 M=4096,D=4096 0
rmsnorm.kina rmsnorm_bf16 M=333,D=8192 0
rmsnorm.kina rmsnorm_cp_bf16 M=7,D=1024 1
rmsnorm.kina rmsnorm_cp_bf16 M=33,D=1536 1
rmsnorm.kina rmsnorm_cp_bf16 M=4096,D=4096 0
rmsnorm.kina rmsnorm_cp_bf16 M=333,D=8192 0
gemm_bias_gelu_bf16.kina gemm_bias_gelu_bf16 M=128,N=128,K=96 1
gemm_bias_gelu_bf16.kina gemm_bias_gelu_bf16 M=256,N=384,K=160 0
gemm_bias_gelu_bf16.kina gemm_bias_gelu_bf16 M=1024,N=1024,K=1024 0
gemm_bias_gelu_bf16.kina gemm_bias_gelu_tanh_bf16 M=128,N=128,K=96 1
gemm_bias_gelu_bf16.kina gemm_bias_gelu_tanh_bf16 M=1024,N=1024,K=1024 0
gemm_batched.kina gemm_batched_bf16 B=2,M=128,N=128,K=96 1
gemm_batched.kina gemm_batched_bf16 B=3,M=256,N=128,K=128 0
gemm_batched.kina gemm_batched_bf16 B=16,M=512,N=512,K=512 0
../tests/gpu/constructs/masked_pairs.kina mp_even M=17,N=62 1
../tests/gpu/constructs/masked_pairs.kina mp_even M=333,N=1000 0
../tests/gpu/constructs/masked_pairs.kina mp_any M=17,N=67 1
../tests/gpu/constructs/masked_pairs.kina mp_any M=5,N=62 1
../tests/gpu/constructs/masked_pairs.kina mp_any M=1000,N=4099 0
../tests/gpu/constructs/masked_pairs.kina mp_any M=333,N=1000 0
"
SANITIZE_CASES="
layernorm.kina layernorm_bf16 M=5,D=1000
rmsnorm.kina rmsnorm_bf16 M=33,D=512
layernorm.kina layernorm_cp_bf16 M=33,D=1536
rmsnorm.kina rmsnorm_cp_bf16 M=7,D=1024
../tests/gpu/constructs/masked_pairs.kina mp_any M=17,N=67
"

record() { # record STATUS NAME [DETAIL]
  case $1 in PASS) pass=$((pass + 1)) ;; FAIL) fail=$((fail + 1)) ;; *) skip=$((skip + 1)) ;; esac
  say "$1 $2${3:+ ($3)}"
}

while read -r file kernel dims small; do
  [ -n "$file" ] || continue
  [ "$INTERPRET" = 1 ] && [ "$small" != 1 ] && continue
  name="$kernel $dims sm_80 build"
  if "$KINA" build "$ROOT/stdlib/$file" --kernel "$kernel" --target sm_80 --emit=ptx -o /dev/null >> "$LOG" 2>&1; then
    record PASS "$name"
  else
    record FAIL "$name" "kina build --target sm_80"
  fi
  name="$kernel $dims sm_90a"
  dir=$SAVE/$kernel-${dims//[,=]/_}
  mode=()
  if [ "$INTERPRET" = 1 ]; then mode=(--interpret); name="$kernel $dims interpreter"
  elif [ "$small" = 1 ]; then mode=(--check); fi
  echo "\$ $KINA run stdlib/$file --kernel $kernel --dims $dims --target sm_90a ${mode[*]} --save $dir" >> "$LOG"
  timeout "$TIMEOUT" "$KINA" run "$ROOT/stdlib/$file" --kernel "$kernel" --dims "$dims" \
    --target sm_90a "${mode[@]}" --save "$dir" >> "$LOG" 2>&1
  rc=$?
  if [ $rc -eq 77 ]; then record SKIP "$name" "no CUDA device"; continue; fi
  if [ $rc -ne 0 ]; then record FAIL "$name" "kina run ${mode[*]} exited $rc"; continue; fi
  if "$PYTHON" "$ROOT/tests/gpu/compare_ref.py" "$dir/$kernel" --refs "$ROOT/tests/gpu/refs" >> "$LOG" 2>&1; then
    record PASS "$name" "against the float64 NumPy reference"
  else
    record FAIL "$name" "compare_ref.py against the NumPy reference"
  fi
  # The masked-access constructs (predicated pair and element versions)
  # have no PyTorch counterpart: the NumPy reference is their check.
  case $kernel in mp_*) continue ;; esac
  "$PYTHON" "$ROOT/tests/gpu/norms/compare_torch.py" "$dir/$kernel" >> "$LOG" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then record PASS "$name vs PyTorch"
  elif [ $rc -eq 77 ]; then record SKIP "$name vs PyTorch" "no PyTorch"
  else record FAIL "$name vs PyTorch" "compare_torch.py exited $rc"; fi
done <<< "$CASES"

if [ "$INTERPRET" != 1 ] && [ "$SANITIZE" != 0 ] && command -v compute-sanitizer > /dev/null; then
  while read -r file kernel dims; do
    [ -n "$file" ] || continue
    for tool in memcheck racecheck synccheck; do
      name="compute-sanitizer $tool $kernel $dims"
      echo "\$ compute-sanitizer --tool $tool --error-exitcode 9 $KINA run stdlib/$file --kernel $kernel --dims $dims --target sm_90a" >> "$LOG"
      timeout "$TIMEOUT" compute-sanitizer --tool "$tool" --error-exitcode 9 \
        "$KINA" run "$ROOT/stdlib/$file" --kernel "$kernel" --dims "$dims" --target sm_90a >> "$LOG" 2>&1
      rc=$?
      if [ $rc -eq 77 ]; then record SKIP "$name" "no CUDA device"
      elif [ $rc -eq 0 ]; then record PASS "$name"
      else record FAIL "$name" "exit $rc"; fi
    done
  done <<< "$SANITIZE_CASES"
else
  record SKIP "compute-sanitizer" "INTERPRET=1, SANITIZE=0 or not on PATH"
fi

say "norms: $pass passed, $fail failed, $skip skipped (log $LOG)"
rm -rf "$SAVE"
[ $fail -gt 0 ] && exit 1
[ $pass -eq 0 ] && exit 77
exit 0
