#!/usr/bin/env bash
# tests/gpu/multigpu/run.sh: host functions on two GPUs (issue 19), for a
# session on `nvidia-h200-x2` (NCCL_NVLS_ENABLE=0: NVLink multicast stays off):
#
#   tests/gpu/multigpu/run.sh [PATH/TO/kina]   (or KINA=...; OUT=dir, default /tmp/kina-out)
#
# 1. NCCL loads from .deps/nccl (or KINA_LIBNCCL) and reports its version
#    (build/tests/unit/runtime/kina_runtime_tests --gtest_filter='Nccl.*').
# 2. The tensor-parallel MLP (tests/gpu/multigpu/mlp_tp.kina) interpreted at
#    a small size matches the single-device MLP (the CPU check of the lit test).
# 3. On the GPUs, M = 4096, D = 4096, H = 16384: `kina run --fn mlp_tp`
#    against `kina run --fn mlp` on one GPU and against PyTorch's
#    tensor-parallel MLP (bench/mlp/mlp_tp.py computes it, two devices, one
#    NCCL all-reduce through torch.cuda.comm.reduce_add), with times.
#    (tests/gpu/multigpu/one-gpu.sh runs the same paths on a mesh of one GPU.)
# Every line is PASS, FAIL or SKIP. Exit status: 0 all
# passed; 1 a failure; 77 fewer than two GPUs.
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
KINA=${1:-${KINA:-/tmp/kina-bin/kina}}
OUT=${OUT:-/tmp/kina-out}
PYTHON=${PYTHON:-python3}
TIMEOUT=${TIMEOUT:-300}
export NCCL_NVLS_ENABLE=0
export KINA_STDLIB=${KINA_STDLIB:-$ROOT/stdlib}
export KINA_TUNE_CACHE=${KINA_TUNE_CACHE:-$OUT/none.jsonl}
mkdir -p "$OUT"
LOG=$OUT/multigpu-log.txt
W=$(mktemp -d "${TMPDIR:-/tmp}/kina-multigpu-XXXXXX")
pass=0 fail=0 other=0
say() { echo "$*" | tee -a "$LOG"; }
: >"$LOG"

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
say "GPUs: $gpus"
if [ "$gpus" -lt 2 ]; then
  say "SKIP: fewer than two GPUs"
  exit 77
fi

# 1. NCCL
tests=$(find "$ROOT/build" -name kina_runtime_tests -type f 2>/dev/null | head -1)
if [ -n "$tests" ] && timeout "$TIMEOUT" "$tests" --gtest_filter='Nccl.*' >"$W/nccl.txt" 2>&1; then
  if grep -q SKIPPED "$W/nccl.txt"; then
    say "SKIP nccl: not installed ($(grep -m1 'not installed' "$W/nccl.txt"))"; other=$((other + 1))
  else
    say "PASS nccl loader"; pass=$((pass + 1))
  fi
else
  say "FAIL nccl loader (${tests:-kina_runtime_tests not built})"; fail=$((fail + 1))
fi

# 2. interpreted, small
"$PYTHON" "$ROOT/tests/gpu/host/ref_cpu.py" gen "$W" mlp 128 64 256
ins="$W/x.npy $W/w1.npy $W/b1.npy $W/w2.npy $W/b2.npy"
if timeout "$TIMEOUT" "$KINA" run "$ROOT/tests/gpu/multigpu/mlp_tp.kina" --fn mlp_tp --dims M=128,D=64,H=256 \
    --interpret --cublaslt=on --inputs $ins --output "$W/tp-small.npy" >>"$LOG" 2>&1 &&
  timeout "$TIMEOUT" "$KINA" run "$ROOT/tests/gpu/host/mlp.kina" --fn mlp --dims M=128,D=64,H=256 \
    --interpret --cublaslt=on --inputs $ins --output "$W/one-small.npy" >>"$LOG" 2>&1 &&
  "$PYTHON" "$ROOT/tests/gpu/multigpu/compare_npy.py" "$W/one-small.npy" "$W/tp-small.npy" >>"$LOG"; then
  say "PASS mlp_tp interpreted = mlp interpreted (128x64x256)"; pass=$((pass + 1))
else
  say "FAIL mlp_tp interpreted (see $LOG)"; fail=$((fail + 1))
fi

# 3. on the GPUs, full size
M=4096 D=4096 H=16384
if "$PYTHON" "$ROOT/bench/mlp/mlp_tp.py" --inputs "$W" --torch-only >>"$LOG" 2>&1; then
  say "PASS pytorch tensor-parallel reference written"; pass=$((pass + 1))
else
  say "FAIL pytorch tensor-parallel reference (see $LOG)"; fail=$((fail + 1))
fi
ins="$W/x.npy $W/w1.npy $W/b1.npy $W/w2.npy $W/b2.npy"
timeout "$TIMEOUT" "$KINA" run "$ROOT/tests/gpu/host/mlp.kina" --fn mlp --dims M=$M,D=$D,H=$H \
  --inputs $ins --output "$W/one.npy" --bench >"$W/one.txt" 2>&1
cat "$W/one.txt" >>"$LOG"
timeout "$TIMEOUT" "$KINA" run "$ROOT/tests/gpu/multigpu/mlp_tp.kina" --fn mlp_tp --dims M=$M,D=$D,H=$H \
  --inputs $ins --output "$W/tp.npy" --bench >"$W/tp.txt" 2>&1
rc=$?
cat "$W/tp.txt" >>"$LOG"
if [ $rc -ne 0 ]; then
  say "FAIL mlp_tp on GPUs (exit $rc; see $LOG)"; fail=$((fail + 1))
else
  for ref in one.npy torch_tp.npy; do
    if "$PYTHON" "$ROOT/tests/gpu/multigpu/compare_npy.py" "$W/$ref" "$W/tp.npy" >>"$LOG"; then
      say "PASS mlp_tp on GPUs = $ref"; pass=$((pass + 1))
    else
      say "FAIL mlp_tp on GPUs vs $ref"; fail=$((fail + 1))
    fi
  done
  say "times: $(grep -h '^bench:' "$W/one.txt" "$W/tp.txt" | tr '\n' ' ') $(grep -h '^torch' "$LOG" | tail -2 | tr '\n' ' ')"
fi
say "multigpu: $pass passed, $fail failed, $other skipped"
rm -rf "$W"
[ $fail -eq 0 ] || exit 1
