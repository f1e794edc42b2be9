#!/usr/bin/env bash
# tests/gpu/multigpu/one-gpu.sh: issue 19's multi-device execution on a
# one-GPU machine (the acceptance's "without a two-GPU machine" case):
#
#   tests/gpu/multigpu/one-gpu.sh [PATH/TO/kina]   (or KINA=...; OUT=dir)
#
# 1. The functions of one_gpu.kina (a mesh of device 0: per-device buffers,
#    cuBLASLt and Kina kernels per device, NCCL communicators, all_reduce,
#    reduce_scatter, all_gather) on the GPU against `--interpret` on the same
#    seeded inputs; mlp_tp1 also with --cublaslt=off (Kina GEMMs) and --bench
#    (the timed reruns include the collective).
# 2. mlp_tp1 on the GPU against the single-device mlp (tests/gpu/host/mlp.kina).
#    all_gather along dim 1 on the GPU: K1352 (NCCL's layout is dim 0's).
# 3. The two-device mlp_tp (mlp_tp.kina, mesh [0, 1]) on one GPU: K1351, not
#    a crash.
# NCCL comes from KINA_LIBNCCL, .deps/nccl or PyTorch's nvidia-nccl wheel.
# Every line is PASS, FAIL or SKIP. Exit status: 0 all passed, 1 a failure,
# 77 no GPU.
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
KINA=${1:-${KINA:-$ROOT/build/compiler/driver/kina}}
OUT=${OUT:-/tmp/kina-out/one-gpu}
PYTHON=${PYTHON:-python3}
export NCCL_NVLS_ENABLE=0
export KINA_STDLIB=${KINA_STDLIB:-$ROOT/stdlib}
export KINA_TUNE_CACHE=${KINA_TUNE_CACHE:-$OUT/none.jsonl}
mkdir -p "$OUT"
LOG=$OUT/one-gpu-log.txt
F=$ROOT/tests/gpu/multigpu/one_gpu.kina
pass=0 fail=0
say() { echo "$*" | tee -a "$LOG"; }
: >"$LOG"
if ! nvidia-smi -L >/dev/null 2>&1; then
  say "SKIP: no GPU"
  exit 77
fi
say "$(nvidia-smi -L | head -4)"
say "kina: $("$KINA" --version 2>&1 | head -1)"

# compare A.npy B.npy TOL: max |a - b| <= TOL * max(1, max |b|)
compare() {
  "$PYTHON" - "$1" "$2" "$3" <<'PY'
import sys, numpy as np
def load(p):
    a = np.load(p)
    return (a.astype(np.uint32) << 16).view(np.float32) if a.dtype == np.uint16 else a.astype(np.float64)
a, b, tol = load(sys.argv[1]), load(sys.argv[2]), float(sys.argv[3])
if a.shape != b.shape:
    print(f"shapes {a.shape} and {b.shape}"); sys.exit(1)
d = float(np.max(np.abs(a - b))); s = max(1.0, float(np.max(np.abs(b))))
print(f"max abs diff {d:.4g} (scale {s:.4g}, {a.size} elements)")
sys.exit(0 if np.isfinite(a).all() and d <= tol * s else 1)
PY
}

check() { # NAME FILE FN DIMS TOL [extra kina args]
  local name=$1 file=$2 fn=$3 dims=$4 tol=$5; shift 5
  if ! "$KINA" run "$file" --fn "$fn" --dims "$dims" --output "$OUT/$name-gpu.npy" "$@" \
      >"$OUT/$name-gpu.txt" 2>&1; then
    say "FAIL $name: kina run on the GPU: $(tail -2 "$OUT/$name-gpu.txt" | tr '\n' ' ')"
    fail=$((fail + 1)); return
  fi
  if ! "$KINA" run "$file" --fn "$fn" --dims "$dims" --output "$OUT/$name-cpu.npy" --interpret \
      >"$OUT/$name-cpu.txt" 2>&1; then
    say "FAIL $name: --interpret: $(tail -2 "$OUT/$name-cpu.txt" | tr '\n' ' ')"
    fail=$((fail + 1)); return
  fi
  if r=$(compare "$OUT/$name-gpu.npy" "$OUT/$name-cpu.npy" "$tol"); then
    say "PASS $name ($fn $dims $*): GPU vs --interpret $r"; pass=$((pass + 1))
  else
    say "FAIL $name ($fn $dims $*): GPU vs --interpret $r"; fail=$((fail + 1))
  fi
  grep -E "^  %|bench:" "$OUT/$name-gpu.txt" | sed 's/^/    /' | tee -a "$LOG" >/dev/null
}

check mlp_tp1 "$F" mlp_tp1 M=256,D=256,H=512 0.03
check mlp_tp1_kina "$F" mlp_tp1 M=256,D=256,H=512 0.03 --cublaslt=off
check mlp_tp1_odd "$F" mlp_tp1 M=192,D=192,H=320 0.03
check mlp_tp1_bench "$F" mlp_tp1 M=512,D=512,H=2048 0.05 --bench
check scatter_gather1 "$F" scatter_gather1 M=256,K=256,N=128 0.02
check scatter_gather1_odd "$F" scatter_gather1 M=192,K=320,N=96 0.02

# refuses NAME CODE FILE FN DIMS: `kina run` exits with a usage/tool error
# (not a signal) and prints error[CODE].
refuses() {
  local name=$1 code=$2 file=$3 fn=$4 dims=$5
  "$KINA" run "$file" --fn "$fn" --dims "$dims" >"$OUT/$name.txt" 2>&1
  local rc=$?
  if [ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -q "error\[$code\]" "$OUT/$name.txt"; then
    say "PASS $name on the GPU: exit $rc, $(grep -o "error\[$code\].*" "$OUT/$name.txt" | head -1 | cut -c1-160)"
    pass=$((pass + 1))
  else
    say "FAIL $name on the GPU: exit $rc: $(tail -2 "$OUT/$name.txt")"
    fail=$((fail + 1))
  fi
}

# all_gather along dim 1 on GPUs: K1352, a coded refusal, not a wrong layout.
refuses gather_columns1 K1352 "$F" gather_columns1 M=64,N=64

# 2. The one-device mesh against the single-device MLP on the GPU (same seed).
if "$KINA" run "$ROOT/tests/gpu/host/mlp.kina" --fn mlp --dims M=256,D=256,H=512 \
    --output "$OUT/mlp-gpu.npy" >"$OUT/mlp-gpu.txt" 2>&1 &&
   r=$(compare "$OUT/mlp_tp1-gpu.npy" "$OUT/mlp-gpu.npy" 0.03); then
  say "PASS mlp_tp1 on mesh [0] vs mlp on device 0: $r"; pass=$((pass + 1))
else
  say "FAIL mlp_tp1 on mesh [0] vs mlp on device 0: ${r:-$(tail -2 "$OUT/mlp-gpu.txt")}"
  fail=$((fail + 1))
fi

# 3. Two devices on one GPU: a coded error.
if [ "$(nvidia-smi -L | grep -c '^GPU')" -ge 2 ]; then
  say "SKIP mlp_tp on one GPU: this machine has two or more (tests/gpu/multigpu/run.sh)"
else
  refuses mlp_tp K1351 "$ROOT/tests/gpu/multigpu/mlp_tp.kina" mlp_tp M=256,D=256,H=512
fi

say "one-gpu: $pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
