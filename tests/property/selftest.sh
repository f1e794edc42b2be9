#!/usr/bin/env bash
# The harness's own test (ctest property.harness_catches_broken_build): a
# build broken on purpose must be caught. With an injected fault, every
# kernel whose tile IR contains `transpose` fails to build; the harness must
#   - exit 1 and print a FAIL with the failure's text and the program,
#   - minimize it: the written program is smaller and still transposes,
#   - count it as failed on its totals line;
# for an injected crash it must print the program and write crash.kina;
# and without a fault the same programs must pass (the fault is the cause).
# Usage: selftest.sh KINA_PROPERTY OUT_DIR
set -uo pipefail
bin=$1
out=$2
rm -rf "$out"
mkdir -p "$out"
fails=0
check() { # check WHAT CONDITION...
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; fails=$((fails + 1)); fi
}
# The real known classes apply throughout (the compiler's own gaps are not
# what this tests). Seed 7 with 60 programs has transposing kernels (the generator's
# transpose template); the count keeps the test short.
args=(--seed 7 --count 60 --jobs 2 --targets sm_80 --cubin-every 0
      --known "$(dirname "${BASH_SOURCE[0]}")/known-failures.txt")

"$bin" "${args[@]}" --out "$out/clean" >"$out/clean.log" 2>&1
rc=$?
check "the unbroken build passes (exit 0, got $rc)" test "$rc" -eq 0

"$bin" "${args[@]}" --inject-fault uncoded:transpose --out "$out/uncoded" >"$out/uncoded.log" 2>&1
rc=$?
check "an injected uncoded failure exits 1 (got $rc)" test "$rc" -eq 1
check "the failure is reported as unexpected, uncoded" \
  grep -q 'UNEXPECTED build failure after a clean check.*injected uncoded' "$out/uncoded.log"
check "the totals line counts it as failed" \
  grep -Eq '^[0-9]+ passed, [1-9][0-9]* failed, [0-9]+ skipped$' "$out/uncoded.log"
written=$(ls "$out"/uncoded/fail-*.kina 2>/dev/null | head -1)
check "the failing program is written to a file" test -n "$written"
if [ -n "$written" ]; then
  check "the written program still transposes" grep -q transpose "$written"
  check "the written program is printed in the log" grep -qF "$(grep transpose "$written" | head -1)" "$out/uncoded.log"
  lines=$(grep -c . "$written")
  # 30: since the generators emit `transpose` of a shared MMA operand too
  # (GenerateMma), the first transposing program of seed 7 can be an MMA
  # kernel whose minimum is 27 lines (a cp_async, the mma and a result).
  check "the program was minimized ($lines lines, at most 30)" test "$lines" -le 30
  check "the log says it was minimized" grep -q 'minimized from' "$out/uncoded.log"
fi

"$bin" "${args[@]}" --inject-fault coded:transpose --out "$out/coded" >"$out/coded.log" 2>&1
rc=$?
check "an injected coded failure exits 1 too (got $rc)" test "$rc" -eq 1
check "its code is shown" grep -q 'injected K1208' "$out/coded.log"

"$bin" "${args[@]}" --jobs 1 --no-minimize --inject-fault crash:transpose --out "$out/crash" \
  >"$out/crash.log" 2>&1
rc=$?
check "an injected crash ends the run unsuccessfully (got $rc)" test "$rc" -ne 0
check "the crash report names the program" grep -q 'CRASH while building generated #' "$out/crash.log"
check "the crashing program is written to crash.kina" grep -q transpose "$out/crash/crash.kina"

# A known class hides a failure only when its pattern matches.
known="$(dirname "${BASH_SOURCE[0]}")/known-failures.txt"
{ cat "$known"; printf 'injected | ^injected uncoded: .*transpose | test entry\n'; } >"$out/known.txt"
"$bin" "${args[@]}" --inject-fault uncoded:transpose --known "$out/known.txt" --out "$out/known" \
  >"$out/known.log" 2>&1
rc=$?
check "a failure in a known class is expected: exit 0 (got $rc)" test "$rc" -eq 0
check "and counted as skipped" grep -Eq '^[0-9]+ passed, 0 failed, [1-9][0-9]* skipped$' "$out/known.log"

echo "selftest: $fails check(s) failed"
[ "$fails" -eq 0 ]
