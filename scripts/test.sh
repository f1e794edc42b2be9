#!/usr/bin/env bash
# The README's test command: setup (editor-test dependencies included), build,
# then every test suite. It prints each suite's totals and ends with one line
# `N passed, N failed, N skipped` summed over the suites; it exits non-zero
# when anything failed (a suite, the build, or setup). Suites:
#   ctest        GoogleTest unit tests in the build folder (tests/unit/*), except
#                the `property` label (tests/property/run-suite.sh runs it);
#   lit          golden tests under tests/lit (tests/lit/lit.cfg.py);
#   tree-sitter  the grammar's corpus (`cd grammar && tree-sitter test`),
#                when grammar/grammar.js exists;
#   demo         the README's main command, `scripts/demo.sh --no-setup
#                --no-build` (check, build, report and run of every stdlib
#                file against this build), so CI catches a broken demo;
#   tests/*/run-suite.sh  any other suite (editors, mutation, property, GPU, ...). Such
#                a script runs from the repository root with .deps/env.sh
#                loaded and KINA_ROOT, KINA_BUILD_DIR, KINA_CACHE set, and
#                prints its own `N passed, N failed, N skipped` line.
# A suite that is absent is reported as "not present" and counts nothing; it
# is never counted as passed. Tests that need a GPU count as skipped on a
# machine without one.
#
# Usage: scripts/test.sh [--no-setup] [--no-build]
# Env:   KINA_BUILD_DIR, KINA_JOBS, KINA_CACHE (scripts/common.sh);
#        KINA_SUITE_TIMEOUT seconds per suite (default 1800).
set -uo pipefail
# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

DO_SETUP=1
DO_BUILD=1
for arg in "$@"; do
  case "$arg" in
  --no-setup) DO_SETUP=0 ;;
  --no-build) DO_BUILD=0 ;;
  -h | --help)
    sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
    ;;
  *) die "unknown argument '$arg' (usage: scripts/test.sh [--no-setup] [--no-build])" ;;
  esac
done

T0=$(now_s)
cd "$KINA_ROOT" || exit 1
SUITE_TIMEOUT=${KINA_SUITE_TIMEOUT:-1800}
RESULTS="$KINA_BUILD_DIR/test-results"

rows=()
TOTAL_P=0
TOTAL_F=0
TOTAL_S=0
# record NAME PASSED FAILED SKIPPED [NOTE]
record() {
  rows+=("$(printf '%-34s %7s %7s %7s  %s' "$1" "$2" "$3" "$4" "${5:-}")")
  TOTAL_P=$((TOTAL_P + $2))
  TOTAL_F=$((TOTAL_F + $3))
  TOTAL_S=$((TOTAL_S + $4))
  log "$1: $2 passed, $3 failed, $4 skipped${5:+ ($5)}"
}
# absent NAME WHY: a suite that did not run; it counts nothing.
absent() {
  rows+=("$(printf '%-34s %7s %7s %7s  %s' "$1" - - - "$2")")
  log "$1: $2; counts nothing"
}

# ---- Setup and build -------------------------------------------------------------
if ((DO_SETUP)); then
  if ! "$KINA_ROOT/scripts/setup.sh" --editors; then
    record setup 0 1 0 "scripts/setup.sh failed"
    printf '%s passed, %s failed, %s skipped\n' "$TOTAL_P" "$TOTAL_F" "$TOTAL_S"
    exit 1
  fi
fi
kina_load_env
export PATH="$KINA_LLVM_BIN:$PATH"

BUILD_OK=1
if ((DO_BUILD)); then
  if ! "$KINA_ROOT/scripts/build.sh"; then
    BUILD_OK=0
    record build 0 1 0 "scripts/build.sh failed; suites that need the build were not run"
  fi
fi
rm -rf "$RESULTS"
mkdir -p "$RESULTS"

# ---- ctest (GoogleTest) ----------------------------------------------------------------
if ((BUILD_OK)); then
  if [ -f "$KINA_BUILD_DIR/CTestTestfile.cmake" ]; then
    log "ctest in $KINA_BUILD_DIR"
    # The `property` label runs below as tests/property/run-suite.sh, with its own totals.
    timeout -k 60 "$SUITE_TIMEOUT" ctest --test-dir "$KINA_BUILD_DIR" -j "$KINA_JOBS" --timeout 600 \
      -LE property --output-on-failure --output-junit "$RESULTS/ctest.xml" </dev/null
    rc=$?
    if counts=$(python3 "$KINA_ROOT/scripts/results.py" ctest "$RESULTS/ctest.xml"); then
      read -r p f s <<<"$counts"
      note=
      if ((rc != 0 && f == 0)); then
        f=1
        note="ctest exited $rc"
      fi
      if ((p + f + s == 0)); then
        absent "ctest (GoogleTest)" "not present: no unit tests registered"
      else
        record "ctest (GoogleTest)" "$p" "$f" "$s" "$note"
      fi
    else
      record "ctest (GoogleTest)" 0 1 0 "ctest exited $rc and wrote no report"
    fi
  else
    record "ctest (GoogleTest)" 0 1 0 "$KINA_BUILD_DIR is not configured"
  fi
fi

# ---- lit ---------------------------------------------------------------------------------------
if ((BUILD_OK)); then
  if [ -f tests/lit/lit.cfg.py ]; then
    log "lit over tests/lit"
    timeout -k 60 "$SUITE_TIMEOUT" "${KINA_LIT:-$KINA_LLVM_BIN/lit}" -v --print-result-after=failed \
      -j "$KINA_JOBS" --xunit-xml-output "$RESULTS/lit.xml" tests/lit </dev/null 2>&1 |
      tee "$RESULTS/lit.log"
    rc=${PIPESTATUS[0]}
    if [ ! -f "$RESULTS/lit.xml" ] && grep -q 'did not discover any tests' "$RESULTS/lit.log"; then
      absent lit "not present: no tests under tests/lit"
    elif counts=$(python3 "$KINA_ROOT/scripts/results.py" lit "$RESULTS/lit.xml"); then
      read -r p f s <<<"$counts"
      note=
      if ((rc != 0 && f == 0)); then
        f=1
        note="lit exited $rc"
      fi
      record lit "$p" "$f" "$s" "$note"
    else
      record lit 0 1 0 "lit exited $rc and wrote no report"
    fi
  else
    absent lit "not present: tests/lit/lit.cfg.py missing"
  fi
fi

# ---- tree-sitter corpus ------------------------------------------------------------------
if [ -f grammar/grammar.js ]; then
  if [ -d grammar/test/corpus ]; then
    TS=${KINA_TREE_SITTER:-tree-sitter}
    log "tree-sitter corpus ($TS test)"
    # The CLI compiles the grammar into ~/.cache/tree-sitter/lib/kina.so and
    # reuses it by time stamp; a checkout beside this one (another branch's
    # grammar) can leave a newer library there. A cache of the build folder's
    # own keeps the corpus run to this checkout's grammar.
    (cd grammar && XDG_CACHE_HOME="$KINA_BUILD_DIR/tree-sitter-cache" \
      timeout -k 60 "$SUITE_TIMEOUT" "$TS" test </dev/null) >"$RESULTS/tree-sitter.log" 2>&1
    rc=$?
    sed 's/\x1b\[[0-9;]*m//g' "$RESULTS/tree-sitter.log"
    if counts=$(python3 "$KINA_ROOT/scripts/results.py" tree-sitter "$RESULTS/tree-sitter.log"); then
      read -r p f s <<<"$counts"
      note=
      if ((rc != 0 && f == 0)); then
        f=1
        note="tree-sitter test exited $rc"
      fi
      record "tree-sitter corpus" "$p" "$f" "$s" "$note"
    else
      record "tree-sitter corpus" 0 1 0 "no output"
    fi
  else
    absent "tree-sitter corpus" "not present: grammar/test/corpus missing"
  fi
else
  absent "tree-sitter corpus" "not present: grammar/grammar.js missing"
fi

# ---- demo (the README's main command, on this build) ------------------------------------
if ((BUILD_OK)); then
  log "scripts/demo.sh --no-setup --no-build"
  timeout -k 60 "$SUITE_TIMEOUT" "$KINA_ROOT/scripts/demo.sh" --no-setup --no-build </dev/null \
    >"$RESULTS/demo.log" 2>&1
  rc=$?
  cat "$RESULTS/demo.log"
  # demo: 7 files, 29 steps ok, 0 failed, 0 skipped in 6.7 s
  if read -r p f s < <(sed -nE 's/^demo: [0-9]+ files, ([0-9]+) steps ok, ([0-9]+) failed, ([0-9]+) skipped.*/\1 \2 \3/p' \
    "$RESULTS/demo.log") && [ -n "$p" ]; then
    note=
    if ((rc != 0 && f == 0)); then
      f=1
      note="demo.sh exited $rc"
    fi
    record "demo (scripts/demo.sh)" "$p" "$f" "$s" "$note"
  else
    record "demo (scripts/demo.sh)" 0 1 0 "exited $rc without its summary line"
  fi
fi

# ---- tests/*/run-suite.sh ------------------------------------------------------------------
shopt -s nullglob
for suite in tests/*/run-suite.sh; do
  name="${suite%/run-suite.sh}"
  if ((!BUILD_OK)); then
    absent "$name" "not run: the build failed"
    continue
  fi
  log "$suite"
  log_file="$RESULTS/${name//\//_}.log"
  # Into a file, not a pipe: a server that a suite leaves running must not keep
  # this script waiting for the end of its output.
  timeout -k 60 "$SUITE_TIMEOUT" bash "$suite" </dev/null >"$log_file" 2>&1
  rc=$?
  cat "$log_file"
  counts=$(python3 "$KINA_ROOT/scripts/results.py" line "$log_file")
  if [ -z "$counts" ]; then
    record "$name" 0 1 0 "exited $rc without an 'N passed, N failed, N skipped' line"
    continue
  fi
  read -r p f s <<<"$counts"
  note=
  if ((rc != 0 && f == 0)); then
    f=1
    note="exited $rc"
  fi
  record "$name" "$p" "$f" "$s" "$note"
done

# ---- Summary ----------------------------------------------------------------------------------
echo
printf '%-34s %7s %7s %7s\n' suite passed failed skipped
printf '%s\n' "${rows[@]}"
echo "($(elapsed "$T0") s in all; reports in $RESULTS)"
printf '%s passed, %s failed, %s skipped\n' "$TOTAL_P" "$TOTAL_F" "$TOTAL_S"
((TOTAL_F == 0))
