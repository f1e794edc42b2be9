#!/usr/bin/env bash
# tests/gpu/run.sh: the GPU test suite (issue 5). Run it on the GPU machine:
#
#   tests/gpu/run.sh [PATH/TO/kina]          (or: KINA=PATH tests/gpu/run.sh)
#
# What it runs:
#   1. smoke_runtime --builtin, if the binary is found ($SMOKE, or the first
#      build*/**/smoke_runtime). It checks the runtime without the compiler.
#   2. Every kernel in stdlib/**/*.kina and tests/gpu/constructs/*.kina
#      (tests/gpu/kernels.py finds them): `kina run FILE --kernel K --dims D
#      --check --save DIR` at each size in tests/gpu/sizes.txt or in the
#      file's `// gpu-size:` lines (>= 3 per kernel, including non-square
#      ones). Two oracles per size: --check (the tile-IR interpreter) and
#      compare_ref.py (the kernel's independent NumPy reference in
#      tests/gpu/refs/, on the saved inputs and GPU output).
#   3. compute-sanitizer memcheck, racecheck and synccheck at the sizes marked
#      `small`.
#   4. The `!refuse` entries: launches the guard must refuse with the given
#      text.
# Each step is PASS, FAIL or SKIP. Exit status 77 from kina or smoke_runtime
# means "SKIP: no CUDA device". A SKIP is never counted as a pass.
#
# The log (date, host, GPU, driver, tool versions, every command and its
# output) goes to $OUT/gpu-log.txt; OUT defaults to tests/gpu/logs. A copy
# is kept as tests/gpu/logs/gpu-log-<UTC date>.txt.
#
# Environment: KINA, SMOKE, OUT, SAVE (saved runs; default $TMPDIR/kina-gpu-saved),
# SIZES (default tests/gpu/sizes.txt),
# REFS (default tests/gpu/refs), PYTHON (default python3, with NumPy),
# SANITIZE=0 (skip step 3), TIMEOUT (seconds per command,
# default 600), KINA_RUN_ARGS (extra args for every `kina run`, e.g.
# "--target auto"), ONLY (a bash regex: run only the kernels it matches,
# e.g. ONLY=cluster_bias; the refusal checks still run).
# Exit status: 0 if something passed and nothing failed; 1 if anything
# failed; 77 if everything was skipped.
set -u -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KINA=${1:-${KINA:-}}
SIZES=${SIZES:-$ROOT/tests/gpu/sizes.txt}
REFS=${REFS:-$ROOT/tests/gpu/refs}
PYTHON=${PYTHON:-python3}
OUT=${OUT:-$ROOT/tests/gpu/logs}
SANITIZE=${SANITIZE:-1}
TIMEOUT=${TIMEOUT:-600}
KINA_RUN_ARGS=${KINA_RUN_ARGS:-}
mkdir -p "$OUT"
LOG=$OUT/gpu-log.txt
: >"$LOG"

npass=0
nfail=0
nskip=0
failed=()

log() { printf '%s\n' "$*" | tee -a "$LOG"; }
result() { # result STATUS NAME [DETAIL]
  local status=$1 name=$2 detail=${3:-}
  case $status in
  PASS) npass=$((npass + 1)) ;;
  FAIL) nfail=$((nfail + 1)); failed+=("$name") ;;
  SKIP) nskip=$((nskip + 1)) ;;
  esac
  log "$status $name${detail:+ ($detail)}"
}
# run_cmd NAME CMD...: runs CMD with a timeout and logs its output; sets $rc
# and $output.
run_cmd() {
  local name=$1
  shift
  log "\$ $*"
  output=$(timeout --kill-after=10 "$TIMEOUT" "$@" 2>&1)
  rc=$?
  printf '%s\n' "$output" | sed 's/^/    /' >>"$LOG"
  [ "$rc" = 124 ] && output="$output (timed out after ${TIMEOUT}s)"
  log "    -> exit $rc"
}
classify() { # classify NAME: PASS on 0, SKIP on 77, else FAIL
  case $rc in
  0) result PASS "$1" ;;
  77) result SKIP "$1" "$(printf '%s\n' "$output" | grep -m1 '^SKIP' || echo 'exit 77')" ;;
  *) result FAIL "$1" "exit $rc" ;;
  esac
}

# ---- header ----
log "Kina GPU test suite"
log "date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
log "host:    $(hostname 2>/dev/null || echo unknown)"
# The device's copy of the work tree may carry a stale .git: the build
# machine writes the commit it built into .carry/commit (device-session.sh).
log "commit:  $(cat "$ROOT/.carry/commit" 2>/dev/null || git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo 'not a git checkout')"
if command -v nvidia-smi >/dev/null 2>&1; then
  log "gpu:     $(nvidia-smi --query-gpu=index,name,compute_cap,memory.total --format=csv,noheader 2>&1 | paste -sd ';' -)"
  log "driver:  $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>&1 | head -1), $(nvidia-smi 2>/dev/null | grep -o 'CUDA Version: [0-9.]*' | head -1)"
else
  log "gpu:     nvidia-smi not found"
fi
log "nvcc:    $(nvcc --version 2>/dev/null | grep -m1 release || echo 'not found')"
SANITIZER=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
log "sanitizer: ${SANITIZER:-not found} $([ -n "$SANITIZER" ] && "$SANITIZER" --version 2>/dev/null | grep -m1 -i version)"
if [ -n "$KINA" ] && [ -x "$KINA" ]; then
  log "kina:    $KINA ($("$KINA" --version 2>&1 | head -1))"
else
  log "kina:    ${KINA:-<not given>} (not an executable file)"
fi
log "sizes:   $SIZES"
log "numpy:   $("$PYTHON" -c 'import numpy; print(numpy.__version__)' 2>&1 | tail -1)"
log ""
if [ "$SANITIZE" = 1 ] && [ -z "$SANITIZER" ]; then
  result FAIL "compute-sanitizer" "not found on PATH or in /usr/local/cuda/bin (SANITIZE=0 to skip)"
fi

# ---- 1. runtime smoke test ----
SMOKE=${SMOKE:-$(find "$ROOT" -path "$ROOT/build*" -name smoke_runtime -type f -perm -u+x 2>/dev/null | head -1)}
if [ -n "$SMOKE" ] && [ -x "$SMOKE" ]; then
  run_cmd smoke "$SMOKE" --builtin
  classify "smoke_runtime --builtin"
else
  log "note: smoke_runtime not found (set SMOKE=path); runtime smoke test not run"
fi

# ---- 2-4. stdlib kernels ----
if [ -z "$KINA" ] || [ ! -x "$KINA" ]; then
  result FAIL "kina binary" "give the path as the first argument or in KINA"
else
  declare -A kernelFile=()
  declare -A kernelSizes=()
  kernelOrder=()
  # Saved runs (.npy, up to ~100 MB for the large GEMMs) stay out of $OUT;
  # those of a passing size are removed, failing ones are kept to inspect.
  SAVE=${SAVE:-${TMPDIR:-/tmp}/kina-gpu-saved}
  rm -rf "$SAVE"
  log "saved:   $SAVE (inputs and outputs of failing sizes are kept there)"
  while read -r f k dims flag; do
    if [ -z "${kernelFile[$k]:-}" ]; then
      kernelOrder+=("$k")
      kernelFile[$k]=$f
    fi
    [ "$dims" = "?" ] || kernelSizes[$k]+="$dims $flag"$'\n'
  done < <("$PYTHON" "$ROOT/tests/gpu/kernels.py" --root "$ROOT" --sizes "$SIZES")
  if [ ${#kernelFile[@]} -eq 0 ]; then
    result FAIL "kernel discovery" "tests/gpu/kernels.py found no 'kernel NAME' under stdlib/ or tests/gpu/constructs/"
  fi

  for k in "${kernelOrder[@]}"; do
    [ -n "${ONLY:-}" ] && ! [[ $k =~ $ONLY ]] && continue
    f=${kernelFile[$k]}
    mapfile -t rows < <(printf '%s' "${kernelSizes[$k]:-}" | sed '/^$/d')
    if [ ${#rows[@]} -lt 3 ] && ! { [ ${#rows[@]} -ge 1 ] && [ "${rows[0]%% *}" = - ]; }; then
      result FAIL "$k: sizes" "${#rows[@]} size(s) in $(basename "$SIZES") or // gpu-size: lines, need >= 3"
    fi
    nonsquare=0
    for row in "${rows[@]}"; do
      read -r dims flag <<<"$row"
      dimArgs=(--dims "$dims")
      [ "$dims" = - ] && dimArgs=() && nonsquare=1
      vals=$(printf '%s' "$dims" | tr ',' '\n' | cut -d= -f2 | sort -u | wc -l)
      names=$(printf '%s' "$dims" | tr ',' '\n' | wc -l)
      # Two dims or more must differ somewhere; one dim cannot be "square".
      [ "$vals" -gt 1 ] || [ "$names" -le 1 ] && nonsquare=1
      save="$SAVE/$k-${dims//[=,]/_}"
      # shellcheck disable=SC2086
      run_cmd "$k $dims" "$KINA" run "$f" --kernel "$k" "${dimArgs[@]}" --check --save "$save" $KINA_RUN_ARGS
      classify "$k --dims $dims --check"
      if [ "$rc" = 0 ] || [ "$rc" = 1 ] && [ -f "$save/$k/run.json" ]; then
        check_rc=$rc
        run_cmd "$k $dims ref" "$PYTHON" "$ROOT/tests/gpu/compare_ref.py" "$save/$k" --refs "$REFS"
        log "    $output"
        classify "$k --dims $dims independent reference"
        [ "$check_rc" = 0 ] && [ "$rc" = 0 ] && rm -rf "$save"
      elif [ "$rc" != 77 ]; then
        result FAIL "$k --dims $dims independent reference" "kina run saved no result"
      fi
      if [ "$flag" = small ] && [ "$SANITIZE" = 1 ]; then
        for tool in memcheck racecheck synccheck; do
          [ -n "$SANITIZER" ] || continue # reported once, below the header
          # shellcheck disable=SC2086
          run_cmd "$k $tool" "$SANITIZER" --tool "$tool" --error-exitcode 99 --print-limit 20 \
            "$KINA" run "$f" --kernel "$k" "${dimArgs[@]}" --check $KINA_RUN_ARGS
          if [ "$rc" = 0 ] && ! printf '%s' "$output" | grep -q 'ERROR SUMMARY: [1-9]'; then
            result PASS "$k --dims $dims compute-sanitizer $tool"
          elif [ "$rc" = 77 ]; then
            classify "$k --dims $dims compute-sanitizer $tool"
          else
            result FAIL "$k --dims $dims compute-sanitizer $tool" "exit $rc"
          fi
        done
      fi
    done
    if [ ${#rows[@]} -gt 0 ] && [ $nonsquare = 0 ]; then
      result FAIL "$k: sizes" "no non-square size in $(basename "$SIZES")"
    fi
  done

  # Sizes listed for kernels that do not exist are mistakes in sizes.txt.
  for k in $(awk '!/^#/ && !/^!/ && NF { print $1 }' "$SIZES" | sort -u); do
    [ -n "${kernelFile[$k]:-}" ] || log "note: sizes.txt lists '$k', which is not a stdlib or construct kernel"
  done

  # Guard refusals.
  while IFS= read -r line; do
    spec=${line#!refuse }
    expect=${spec#* -- }
    args=${spec%% -- *}
    read -r k dims extra <<<"$args"
    f=${kernelFile[$k]:-}
    name="guard refuses $k --dims $dims${extra:+ $extra}"
    if [ -z "$f" ]; then
      result FAIL "$name" "kernel $k not found in stdlib"
      continue
    fi
    # shellcheck disable=SC2086
    run_cmd "$name" "$KINA" run "$f" --kernel "$k" --dims "$dims" --check $extra
    if [ "$rc" = 77 ]; then
      classify "$name"
    elif [ "$rc" != 0 ] && printf '%s' "$output" | grep -qF -- "$expect"; then
      result PASS "$name"
    else
      result FAIL "$name" "exit $rc; expected a refusal mentioning: $expect"
    fi
  done < <(grep '^!refuse ' "$SIZES")
fi

# ---- summary ----
log ""
log "summary: $npass passed, $nfail failed, $nskip skipped (a SKIP is not a pass)"
for name in "${failed[@]}"; do log "  FAILED: $name"; done

stamp=$(date -u +%Y%m%dT%H%M%SZ)
if mkdir -p "$ROOT/tests/gpu/logs" 2>/dev/null && [ "$(cd "$OUT" && pwd)" != "$ROOT/tests/gpu/logs" ]; then
  cp "$LOG" "$ROOT/tests/gpu/logs/gpu-log-$stamp.txt" 2>/dev/null || true
elif [ -w "$ROOT/tests/gpu/logs" ]; then
  cp "$LOG" "$ROOT/tests/gpu/logs/gpu-log-$stamp.txt" 2>/dev/null || true
fi

if [ $nfail -gt 0 ]; then exit 1; fi
if [ $npass -eq 0 ]; then exit 77; fi
exit 0
