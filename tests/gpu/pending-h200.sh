#!/usr/bin/env bash
# tests/gpu/pending-h200.sh: the H200 runs the 2026-12-01 night session
# prepared but could not make (no device was lent after 21:15 UTC). Each
# part is one script its author debugged on the tile-IR interpreter here;
# run on the device machine with the carried static kina:
#
#   KINA=/tmp/k/kina OUT=$OUT bash tests/gpu/pending-h200.sh [parts]
#
# Parts (default all, about 16 minutes of device time in two calls):
#   check14   norms, attention and grid correctness (in parallel), ~4 min
#   bench14   bench/norms/norms.py and bench/attention/attention.py, ~4 min
#   tune      bench/tune/run.sh with EXHAUSTIVE=0 (3 shapes), ~3 min
#   host      tests/gpu/host/run.sh and bench/mlp/mlp.py --quick, ~3 min
#   tileir    tests/gpu/tileir/run.sh (carry .carry/tileir from prepare.sh)
#   int8      (2026-12-02 s6-int8, never run on a GPU yet) the int8 and
#             mma.sync kernels with `kina run --check` at their sizes.txt
#             sizes (mma.sync m16n8k32, dp4a, .s32 wrapping, the tuned
#             mma.sync families, the mixed mma.sync/wgmma family), then the
#             int8 GEMM timed against torch._int_mm (bench/gemm/int8.py), ~6 min
#   int8tune  `kina tune` of the mma.sync, mixed and int8 families at 4096^3, ~6 min
# Logs are tarred per part into $OUT/<part>.tgz (the device returns few files).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
K=${KINA:?KINA=path to a static kina}
OUT=${OUT:-/tmp/kina-out}
parts=${*:-check14 bench14 tune host tileir int8 int8tune}
cd "$ROOT"
for p in $parts; do
  O=$OUT/$p
  mkdir -p "$O"
  echo "== $p $(date -u +%H:%M:%S)"
  case $p in
    check14)
      (OUT=$O/norms TIMEOUT=120 KINA=$K bash tests/gpu/norms/run.sh > "$O/norms.txt" 2>&1) &
      (OUT=$O/attn TIMEOUT=120 KINA=$K bash tests/gpu/attention/run.sh "$K" > "$O/attn.txt" 2>&1) &
      (OUT=$O/grid TIMEOUT=120 bash tests/gpu/grid/run.sh "$K" > "$O/grid.txt" 2>&1) &
      wait
      for f in norms attn grid; do echo "-- $f"; tail -4 "$O/$f.txt"; done ;;
    bench14)
      timeout 150 python3 bench/norms/norms.py --kina "$K" --out "$O" > "$O/norms.txt" 2>&1
      tail -25 "$O/norms.txt"
      timeout 200 python3 bench/attention/attention.py --kina "$K" --out "$O" --check --variants \
        > "$O/attention.txt" 2>&1
      tail -22 "$O/attention.txt" ;;
    tune)
      EXHAUSTIVE=${EXHAUSTIVE:-0} OUT=$O KINA=$K timeout 400 bash bench/tune/run.sh > "$O/run.txt" 2>&1
      tail -30 "$O/run.txt" ;;
    host)
      KINA=$K OUT=$O timeout 200 bash tests/gpu/host/run.sh > "$O/run.txt" 2>&1
      tail -10 "$O/run.txt"
      KINA=$K OUT=$O MAX_AUTOTUNE_TIMEOUT=200 timeout 300 python3 bench/mlp/mlp.py --quick \
        > "$O/mlp.txt" 2>&1
      tail -12 "$O/mlp.txt" ;;
    tileir)
      KINA=$K OUT=$O timeout 200 bash tests/gpu/tileir/run.sh > "$O/run.txt" 2>&1
      tail -12 "$O/run.txt" ;;
    int8)
      # Correctness first: every size of every new kernel, PASS/FAIL per line.
      fails=0
      while read -r kern dims _; do
        case $kern in
          mma_i8|dp4a_i8|wrap_i8) f=tests/gpu/constructs/int8_mma.kina ;;
          gemm_i8_*) f=stdlib/gemm_i8_tuned.kina ;;
          gemm_f16_pipelined_tuned*) f=stdlib/gemm_f16_pipelined_tuned.kina ;;
          gemm_f16_tuned_*) f=stdlib/gemm_f16_tuned.kina ;;
          *) continue ;;
        esac
        if timeout 120 "$K" run "$f" --kernel "$kern" --dims "$dims" --check > "$O/$kern-$dims.txt" 2>&1
        then echo "PASS $kern $dims"; else echo "FAIL $kern $dims"; fails=$((fails + 1)); fi
      done < <( (grep -h '^// gpu-size:' tests/gpu/constructs/int8_mma.kina | sed 's|^// gpu-size: *||';
                 grep -E '^(gemm_i8_|gemm_f16_pipelined_tuned|gemm_f16_tuned_)' tests/gpu/sizes.txt) )
      echo "int8 correctness: $fails failed"
      # The anchor: torch._int_mm against the three int8 kernels' defaults.
      timeout 200 python3 bench/gemm/int8.py --kina "$K" --out "$O" > "$O/bench.txt" 2>&1
      tail -5 "$O/bench.txt" ;;
    int8tune)
      # The tuner over the new families at 4096^3 (the int8 winner is then
      # worth re-timing with bench/gemm/int8.py --param KERNEL=POINT).
      for f in gemm_f16_pipelined_tuned gemm_f16_tuned gemm_i8_tuned; do
        timeout 200 "$K" tune "stdlib/$f.kina" --shape M=4096,N=4096,K=4096 --cache "$O/cache.jsonl" \
          --timeout 60 > "$O/tune-$f.txt" 2>&1
        echo "-- tune $f"; tail -8 "$O/tune-$f.txt"
      done ;;
  esac
  (cd "$OUT" && tar czf "$p.tgz" "$p" && rm -rf "$p")
done
