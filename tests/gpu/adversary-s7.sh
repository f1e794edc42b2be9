#!/usr/bin/env bash
# tests/gpu/adversary-s7.sh: the GPU half of session 7's adversary fixes,
# never run on a GPU yet (no device in that session). With the carried static
# kina on the device machine:
#
#   KINA=/tmp/k/kina OUT=$OUT bash tests/gpu/adversary-s7.sh      (about 1 minute)
#
# 1. tests/lit/grid/atomic-row.kina: atomic_add of a [1, C] row (col_sum), now
#    from row group 0 only; `kina run --check` (GPU against the interpreter)
#    and compare_ref.py (against NumPy, tests/lit/grid/atomic-row.py). Before
#    the fix the GPU would have added each element 8 times.
# 2. tests/lit/runtime/Inputs/int-zero.kina and max-nan.kina: 1 / convert F32
#    of an integer 0 is +inf, an all-NaN row_max is NaN; the GPU output is
#    printed next to what the interpreter now gives (+inf, NaN).
# KINA_GPU_INTERPRET=1 runs the same with --interpret (debugging without a GPU).
# Exit status: 0 all passed, 1 a failure.
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
K=${KINA:?KINA=path to kina}
OUT=${OUT:-/tmp/kina-out}/adversary-s7
PY=${PYTHON:-python3}
MODE=--check
[ "${KINA_GPU_INTERPRET:-0}" = 1 ] && MODE=--interpret
mkdir -p "$OUT"
fail=0
say() { echo "$*" | tee -a "$OUT/log.txt"; }
A=$ROOT/tests/lit/grid/atomic-row.kina
for c in "colsum_add M=48" "colsum_add M=4096" "colsum_add_ragged M=37,N=70" "colsum_add_ragged M=1000,N=513" "rowsum_add M=64,N=256"; do
  set -- $c
  if "$K" run "$A" --kernel "$1" --dims "$2" $MODE --save "$OUT/run" > "$OUT/$1-$2.txt" 2>&1 &&
     { [ "$1" = rowsum_add ] || "$PY" "$ROOT/tests/gpu/compare_ref.py" "$OUT/run/$1" --refs "$ROOT/tests/lit/grid" >> "$OUT/$1-$2.txt" 2>&1; }; then
    say "PASS $1 $2"
  else
    say "FAIL $1 $2: $(tail -3 "$OUT/$1-$2.txt" | tr '\n' ' ')"; fail=1
  fi
done
I=$ROOT/tests/lit/runtime/Inputs
"$PY" -c "import numpy as np; d='$OUT'; np.save(d + '/x32.npy', np.zeros((16, 8), np.int32)); np.save(d + '/h.npy', np.full((16, 8), -0.5, np.float32)); np.save(d + '/x8.npy', np.zeros((16, 8), np.int8)); np.save(d + '/x64.npy', np.zeros((16, 8), np.int64)); x = np.zeros((16, 16), np.float32); x[0] = np.nan; x[1] = -5; x[1, 3] = np.nan; x[2] = -np.inf; np.save(d + '/r.npy', x[:, :8]); np.save(d + '/c.npy', np.ascontiguousarray(x.T))"
run() { "$K" run "$1" --kernel "$2" --dims M=16 $MODE --inputs "${@:3}" --save "$OUT/run" > "$OUT/$2.txt" 2>&1 || { say "FAIL $2: $(tail -2 "$OUT/$2.txt" | tr '\n' ' ')"; fail=1; }; }
run "$I/int-zero.kina" int_zero_i32 "$OUT/x32.npy" "$OUT/h.npy"
run "$I/int-zero.kina" int_zero_i8 "$OUT/x8.npy"
run "$I/int-zero.kina" int_zero_i64 "$OUT/x64.npy"
run "$I/max-nan.kina" max_nan_rows "$OUT/r.npy"
run "$I/max-nan.kina" max_nan_cols "$OUT/c.npy"
"$PY" - "$OUT/run" <<'PY' | tee -a "$OUT/log.txt" || fail=1
import sys, numpy as np
d = sys.argv[1]; bad = 0
for k in ("int_zero_i32", "int_zero_i8", "int_zero_i64"):
    o = np.load(f"{d}/{k}/out.npy"); ok = bool((o == np.inf).all()); bad += not ok
    print("PASS" if ok else "FAIL", k, "(want +inf)", o[0, :2])
r = np.load(f"{d}/max_nan_rows/out.npy")[:4, 0]; c = np.load(f"{d}/max_nan_cols/out.npy")[0, :4]
for k, v in (("max_nan_rows", r), ("max_nan_cols", c)):
    ok = bool(np.isnan(v[0]) and v[1] == -5 and v[2] == -np.inf and v[3] == 0); bad += not ok
    print("PASS" if ok else "FAIL", k, "(want nan -5 -inf 0)", v)
sys.exit(1 if bad else 0)
PY
say "adversary-s7: $([ $fail = 0 ] && echo all passed || echo FAILED)"
exit $fail
