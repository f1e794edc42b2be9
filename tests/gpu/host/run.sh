#!/usr/bin/env bash
# tests/gpu/host/run.sh: host functions on the GPU (issue 16), for the lead
# to run on the H200 with the carried static kina:
#
#   tests/gpu/host/run.sh [PATH/TO/kina]   (or KINA=...; OUT=dir, default /tmp/kina-out)
#
# 1. The MLP forward (tests/gpu/host/mlp.kina: Linear+bias -> GELU(tanh) ->
#    Linear+bias, bf16) at M = 4096, D = 4096, H = 16384: the plan
#    (`kina report --fn mlp`, at most 2 kernel launches), then `kina run --fn
#    mlp` on inputs written by PyTorch, its output against PyTorch's
#    (F.linear -> gelu(approximate='tanh') -> F.linear, bf16 on the GPU).
# 2. The LayerNorm -> MLP -> softmax program (tests/gpu/host/chain.kina,
#    F32) at M = 256, D = 1024, H = 4096 against PyTorch.
# 3. No device-memory leak: `kina run --fn mlp --repeat 20` at a small size
#    reports the free device memory before and after; the difference must be 0.
# Every line is PASS, FAIL or SKIP; SKIP is never a pass. On a machine without
# a GPU, GPU=0 runs the same programs with --interpret at small sizes against
# the pure-Python reference (tests/gpu/host/ref_cpu.py), to debug the script.
# Env: PYTHON (python3 with torch on the GPU), TIMEOUT (per command, 300 s).
# Exit status: 0 all passed; 1 a failure; 77 no GPU.
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
KINA=${1:-${KINA:-/tmp/kina-bin/kina}}
OUT=${OUT:-/tmp/kina-out}
PYTHON=${PYTHON:-python3}
TIMEOUT=${TIMEOUT:-300}
GPU=${GPU:-1}
export KINA_STDLIB=${KINA_STDLIB:-$ROOT/stdlib}
export KINA_TUNE_CACHE=${KINA_TUNE_CACHE:-$OUT/none.jsonl}
# cuBLASLt: PyTorch's nvidia-cublas wheel when KINA_CUBLASLT is not set
# (kina also searches the usual prefixes itself).
if [ -z "${KINA_CUBLASLT:-}" ] && [ "$GPU" != 0 ]; then
  lt=$("$PYTHON" -c 'import glob,site; s=site.getsitepackages()+[site.getusersitepackages()]; p=sorted(q for d in s for q in glob.glob(d+"/nvidia/*/lib/libcublasLt.so*")); print(p[-1] if p else "")' 2>/dev/null)
  [ -n "$lt" ] && export KINA_CUBLASLT=$lt
fi
mkdir -p "$OUT"
LOG=$OUT/host-log.txt
W=$(mktemp -d "${TMPDIR:-/tmp}/kina-host-XXXXXX")
pass=0 fail=0 skip=0
say() { echo "$*" | tee -a "$LOG"; }
{ date -u; hostname; nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1 || true
  "$KINA" --version 2>&1 || true; } > "$LOG" 2>&1
[ -x "$KINA" ] || { say "FAIL setup: kina not found at $KINA"; exit 1; }
result() { # name status detail
  case $2 in
    0) pass=$((pass + 1)); say "PASS $1: $3" ;;
    77) skip=$((skip + 1)); say "SKIP $1: $3" ;;
    *) fail=$((fail + 1)); say "FAIL $1: $3" ;;
  esac
}

if [ "$GPU" = 0 ]; then
  # --interpret at small sizes, checked against the pure-Python reference.
  for prog in "mlp mlp 128 64 256" "chain block 64 128 256"; do
    set -- $prog
    d=$W/$2; mkdir -p "$d"
    python3 "$ROOT/tests/gpu/host/ref_cpu.py" gen "$d" "$2" "$3" "$4" "$5"
    out=$(timeout "$TIMEOUT" "$KINA" run "$ROOT/tests/gpu/host/$1.kina" --fn "$2" --dims "M=$3,D=$4,H=$5" \
          --interpret --cublaslt=on --inputs "$d/x.npy" "$d/w1.npy" "$d/b1.npy" "$d/w2.npy" "$d/b2.npy" \
          --output "$d/y.npy" 2>&1); rc=$?
    echo "$out" >> "$LOG"
    if [ $rc -ne 0 ]; then result "$2 interpret" 1 "kina exit $rc: $(echo "$out" | tail -1)"; continue; fi
    chk=$(python3 "$ROOT/tests/gpu/host/ref_cpu.py" check "$d" "$2" "$3" "$4" "$5" "$d/y.npy" 2>&1); rc=$?
    result "$2 interpret" $rc "$chk"
  done
  say "host (interpret): $pass passed, $fail failed, $skip skipped"
  [ $fail -eq 0 ] || exit 1; exit 0
fi

# GPU: PyTorch writes the inputs and the reference, kina runs, PyTorch compares.
gpu_case() { # name file fn dims(M D H) dtype extra-kina-args...
  local name=$1 file=$2 fn=$3 M=$4 D=$5 H=$6 dt=$7; shift 7
  local d=$W/$name; mkdir -p "$d"
  "$KINA" report "$ROOT/tests/gpu/host/$file" --fn "$fn" --dims "M=$M,D=$D,H=$H" "$@" > "$d/plan.txt" 2>&1
  cat "$d/plan.txt" >> "$LOG"
  local launches; launches=$(sed -n 's/.* \([0-9]*\) kernel launch(es)$/\1/p' "$d/plan.txt" | head -1)
  if ! timeout "$TIMEOUT" "$PYTHON" "$ROOT/tests/gpu/host/ref_torch.py" gen "$d" "$fn" "$M" "$D" "$H" "$dt" >> "$LOG" 2>&1; then
    result "$name" 77 "PyTorch with CUDA is not available ($PYTHON)"; return
  fi
  local out rc
  out=$(timeout "$TIMEOUT" "$KINA" run "$ROOT/tests/gpu/host/$file" --fn "$fn" --dims "M=$M,D=$D,H=$H" \
        --inputs "$d/x.npy" "$d/w1.npy" "$d/b1.npy" "$d/w2.npy" "$d/b2.npy" --output "$d/y.npy" "$@" 2>&1); rc=$?
  echo "$out" >> "$LOG"
  if [ $rc -ne 0 ]; then result "$name" $rc "kina exit $rc: $(echo "$out" | tail -2 | tr '\n' ' ')"; return; fi
  local chk
  chk=$(timeout "$TIMEOUT" "$PYTHON" "$ROOT/tests/gpu/host/ref_torch.py" check "$d" "$fn" "$M" "$D" "$H" "$dt" 2>&1); rc=$?
  result "$name" $rc "$chk; plan: $launches kernel launch(es)"
  if [ "$name" = mlp ] && [ -n "$launches" ] && [ "$launches" -gt 2 ]; then
    result "mlp launches" 1 "$launches kernel launches (at most 2)"
  elif [ "$name" = mlp ]; then
    result "mlp launches" 0 "$launches kernel launches"
  fi
}
gpu_case mlp mlp.kina mlp 4096 4096 16384 bf16
gpu_case block chain.kina block 256 1024 4096 f32

# No leak over many runs.
out=$(timeout "$TIMEOUT" "$KINA" run "$ROOT/tests/gpu/host/mlp.kina" --fn mlp --dims M=512,D=512,H=1024 --repeat 20 2>&1); rc=$?
echo "$out" >> "$LOG"
diff=$(echo "$out" | sed -n 's/.*(difference \(-\{0,1\}[0-9]*\)).*/\1/p')
if [ $rc -eq 77 ]; then result "no leak" 77 "no GPU"
elif [ $rc -ne 0 ] || [ -z "$diff" ]; then result "no leak" 1 "kina exit $rc: $(echo "$out" | tail -1)"
elif [ "$diff" -le 0 ]; then result "no leak" 0 "20 runs, free device memory unchanged (difference $diff bytes)"
else result "no leak" 1 "20 runs left $diff bytes of device memory allocated"; fi

say "host: $pass passed, $fail failed, $skip skipped (log $LOG)"
[ $fail -eq 0 ] || exit 1
[ $pass -gt 0 ] || exit 77
exit 0
