#!/usr/bin/env bash
# One device-machine session: unpack the carried static kina, run the GPU
# suite (checks + compute-sanitizer) and the GEMM benchmark against cuBLAS
# and Triton. Usage on the device: tests/gpu/device-session.sh suite|bench|all
# Inputs: .carry/kina.xz (static kina), .carry/smoke_runtime. Outputs: $OUT.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
OUT=${OUT:-/tmp/kina-out}
mkdir -p "$OUT" /tmp/kina-bin
xz -dc .carry/kina.xz > /tmp/kina-bin/kina && chmod +x /tmp/kina-bin/kina
KINA=/tmp/kina-bin/kina
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; "$KINA" --version; } > "$OUT/env.txt" 2>&1
what=${1:-all}
if [ "$what" = suite ] || [ "$what" = all ]; then
  SMOKE=.carry/smoke_runtime OUT="$OUT" TIMEOUT=${TIMEOUT:-120} tests/gpu/run.sh "$KINA" > "$OUT/suite-stdout.txt" 2>&1
  echo "suite exit $?"
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  PYTHONUNBUFFERED=1 python3 bench/gemm/anchors.py --kina "$KINA" --out "$OUT" ${BENCH_ARGS:-} > "$OUT/bench-stdout.txt" 2>&1
  echo "bench exit $?"
fi
tail -40 "$OUT"/*stdout.txt
