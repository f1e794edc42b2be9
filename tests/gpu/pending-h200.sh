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
# Logs are tarred per part into $OUT/<part>.tgz (the device returns few files).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
K=${KINA:?KINA=path to a static kina}
OUT=${OUT:-/tmp/kina-out}
parts=${*:-check14 bench14 tune host tileir}
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
  esac
  (cd "$OUT" && tar czf "$p.tgz" "$p" && rm -rf "$p")
done
