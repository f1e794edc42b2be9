#!/usr/bin/env bash
# One device-machine session: unpack the carried static kina, run the GPU
# suite (checks + compute-sanitizer) and the GEMM benchmark against cuBLAS
# and Triton, and kina-lsp's kina/run. Usage on the device:
# tests/gpu/device-session.sh suite|bench|lsp|all|hopper
# Inputs: .carry/kina.xz, .carry/kina-lsp.xz (static), .carry/smoke_runtime. Outputs: $OUT.
# Prepare them on the build machine (scripts/setup.sh installs libpolly-22-dev,
# which the static link needs):
#   KINA_BUILD_DIR=build-static KINA_CMAKE_ARGS=-DKINA_STATIC=ON scripts/build.sh kina kina-lsp
#   scripts/build.sh smoke_runtime
#   mkdir -p .carry && xz -T2 -6 -c build-static/compiler/driver/kina > .carry/kina.xz
#   xz -T2 -6 -c build-static/lsp-server/kina-lsp > .carry/kina-lsp.xz
#   cp build/tests/unit/runtime/gpu/smoke_runtime .carry/   (or wherever it was built)
#   git rev-parse HEAD > .carry/commit   (the logs' commit line; the device's .git may be stale)
# and carry `.carry` (git ignores it) with the work tree. The suite needs
# python3 with NumPy there (the independent references, tests/gpu/refs/).
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
if [ "$what" = lsp ] || [ "$what" = all ]; then
  # tests/lit/lsp/run-gpu.test without lit (no LLVM tools on the device):
  # the carried static kina-lsp answers kina/run by running the carried kina.
  xz -dc .carry/kina-lsp.xz > /tmp/kina-bin/kina-lsp && chmod +x /tmp/kina-bin/kina-lsp
  python3 tests/lit/lsp/Inputs/make_transcript.py tests/lit/lsp/Inputs/gemm_tc.kina \
    < tests/lit/lsp/run-gpu.test > /tmp/run-gpu.msgs
  KINA="$KINA" timeout 300 /tmp/kina-bin/kina-lsp --lit-test < /tmp/run-gpu.msgs \
    > "$OUT/lsp-run-gpu-stdout.txt" 2> "$OUT/lsp-run-gpu-stderr.txt"
  python3 tests/gpu/check_lsp_run.py "$OUT/lsp-run-gpu-stdout.txt" > "$OUT/lsp-run-gpu-verdict.txt" 2>&1
  echo "lsp exit $?"
fi
if [ "$what" = hopper ]; then
  # Issue 12: the Hopper bring-up and GEMMs (cubins carried in .carry/hopper,
  # made by tests/gpu/hopper/prepare.sh on the build machine).
  OUT="$OUT" tests/gpu/hopper/run.sh > "$OUT/hopper-stdout.txt" 2>&1
  echo "hopper exit $?"
fi
tail -40 "$OUT"/*stdout.txt "$OUT"/*verdict.txt 2>/dev/null
