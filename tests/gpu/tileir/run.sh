#!/usr/bin/env bash
# tests/gpu/tileir/run.sh: the Tile IR backend on the H200 (issue 18). Carry
# .carry/tileir (made by prepare.sh on the build machine: cubins assembled by
# tileiras 13.3 for sm_90 + the runner). For each kernel, tileir_run loads
# the cubin through kina_runtime, launches it, compares with a CPU reference
# and times it; then, when KINA names a kina binary, the PTX backend's
# equivalents from stdlib run with --check --bench at the same sizes, for
# the comparison. Each line is PASS, FAIL or SKIP (SKIP names the missing
# prerequisite, e.g. a driver that refuses the cubin; never a pass).
#
#   tests/gpu/tileir/run.sh               (OUT=dir for logs, default $OUT or /tmp/kina-out)
#
# Env: CARRY (default .carry/tileir), KINA (a static kina for the PTX
# comparison; skipped when unset), ITERS (timed runs, default 20), TIMEOUT
# (seconds per command, default 300). Exit: 0 passed, 1 a failure, 77 no GPU.
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
CARRY=${CARRY:-$ROOT/.carry/tileir}
OUT=${OUT:-/tmp/kina-out}
ITERS=${ITERS:-20}
TIMEOUT=${TIMEOUT:-300}
mkdir -p "$OUT"
LOG=$OUT/tileir-log.txt
{ date -u; hostname; nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1 || true; } >"$LOG"
[ -x "$CARRY/tileir_run" ] || { echo "FAIL setup: $CARRY/tileir_run missing (run tests/gpu/tileir/prepare.sh on the build machine)" | tee -a "$LOG"; exit 1; }
timeout "$TIMEOUT" "$CARRY/tileir_run" "$CARRY" --iters "$ITERS" 2>&1 | tee -a "$LOG"
rc=${PIPESTATUS[0]}
if [ -n "${KINA:-}" ] && [ "$rc" != 77 ]; then
  echo "PTX backend, same shapes (kina run --check --bench):" | tee -a "$LOG"
  read -r _ _ _ _ _ _ _ _ n <<<"$(grep ' add ' "$CARRY/manifest.txt" | head -1)"
  read -r _ _ _ _ _ _ _ _ gm gn gk <<<"$(grep ' gemm ' "$CARRY/manifest.txt")"
  read -r _ _ _ _ _ _ _ _ sr sc <<<"$(grep ' softmax ' "$CARRY/manifest.txt")"
  # Manifest columns: name kind grid(3) block(3) sizes. add_f32 is 2-D [M, N]: the same element count as the 1-D Tile IR add.
  timeout "$TIMEOUT" "$KINA" run "$ROOT/stdlib/elementwise.kina" --kernel add_f32 \
    --dims "M=$((n / 4096)),N=4096" --check --bench 2>&1 | tee -a "$LOG"
  timeout "$TIMEOUT" "$KINA" run "$ROOT/stdlib/gemm_f16_hopper.kina" \
    --dims "M=$gm,N=$gn,K=$gk" --check --bench 2>&1 | tee -a "$LOG"
  timeout "$TIMEOUT" "$KINA" run "$ROOT/stdlib/softmax.kina" --kernel softmax_f32 \
    --dims "M=$sr,N=$sc" --check --bench 2>&1 | tee -a "$LOG"
  # The Kina-source block-level kernels through `kina run --backend=tileir`
  # (the cubins prepare.sh built, checked against their .tileirbc), and the
  # same kernels through the PTX backend.
  read -r _ _ _ _ _ _ _ _ am an <<<"$(grep '^add_blk ' "$CARRY/manifest.txt")"
  read -r _ _ _ _ _ _ _ _ bm _ <<<"$(grep '^softmax_blk ' "$CARRY/manifest.txt")"
  for be in tileir ptx; do
    extra=()
    [ "$be" = tileir ] && extra=(--backend=tileir --cubin "$CARRY/add_blk.cubin")
    echo "kina run add_blk ($be):" | tee -a "$LOG"
    timeout "$TIMEOUT" "$KINA" run "$ROOT/tests/gpu/tileir/kernels.kina" --kernel add_blk \
      "${extra[@]}" --dims "M=$am,N=$an" --check --bench 2>&1 | tee -a "$LOG"
    [ "$be" = tileir ] && extra=(--backend=tileir --cubin "$CARRY/softmax_blk.cubin")
    echo "kina run softmax_blk ($be):" | tee -a "$LOG"
    timeout "$TIMEOUT" "$KINA" run "$ROOT/tests/gpu/tileir/kernels.kina" --kernel softmax_blk \
      "${extra[@]}" --dims "M=$bm" --check --bench 2>&1 | tee -a "$LOG"
  done
  # The Kina-source block-level GEMM (Tile IR only: its B operand is a
  # register tile): checked against the interpreter at 2048^3, timed at the
  # writer-built GEMM's and the PTX stdlib GEMM's 4096^3 above.
  for d in M=2048,N=2048,K=2048 "M=$gm,N=$gn,K=$gk"; do
    check=--check
    [ "$d" = M=2048,N=2048,K=2048 ] || check=
    echo "kina run gemm_blk (tileir) $d:" | tee -a "$LOG"
    timeout "$TIMEOUT" "$KINA" run "$ROOT/tests/gpu/tileir/gemm_blk.kina" --kernel gemm_blk \
      --backend=tileir --cubin "$CARRY/gemm_blk.cubin" --dims "$d" $check --bench 2>&1 | tee -a "$LOG"
  done
fi
exit "$rc"
