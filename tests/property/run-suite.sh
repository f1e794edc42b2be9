#!/usr/bin/env bash
# The check => build property suite (run by scripts/test.sh, which runs every
# tests/*/run-suite.sh from the repository root and reads the last
# `N passed, N failed, N skipped` line). It runs the harness's self-test and
# then the property with the CI seed: every .kina file under tests/, stdlib/
# and bench/, the ```kina blocks of docs/, and KINA_PROPERTY_COUNT (default
# 3000) generated programs, for sm_80 and sm_90a. Passed: programs that
# check clean and build; failed: unexpected build failures after a clean
# check (plus 1 if the self-test fails); skipped: failures in a class of
# tests/property/known-failures.txt. scripts/test.sh's ctest step leaves
# out the `property` label, so the suite runs once.
#
# The binary: $KINA_PROPERTY, else $KINA_BUILD_DIR/tests/property/kina-property,
# else build/tests/property/kina-property. Env: KINA_PROPERTY_SEED
# (`random` for a new one), KINA_PROPERTY_COUNT, KINA_JOBS.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${KINA_BUILD_DIR:-$root/build}"
bin="${KINA_PROPERTY:-$build/tests/property/kina-property}"
if [ ! -x "$bin" ]; then
  echo "property: the harness was not built ($bin); build the kina-property target"
  echo "0 passed, 1 failed, 0 skipped"
  exit 1
fi
out="$build/property"
mkdir -p "$out"

selftest_failed=0
if "$here/selftest.sh" "$bin" "$out/selftest" >"$out/selftest.log" 2>&1; then
  echo "property: harness self-test passed ($(grep -c '^ok:' "$out/selftest.log") checks)"
else
  selftest_failed=1
  echo "property: harness self-test FAILED:"
  cat "$out/selftest.log"
fi

"$bin" --corpus "$root/tests" --corpus "$root/stdlib" --corpus "$root/bench" --docs "$root/docs" \
  --known "$here/known-failures.txt" --out "$out/failures" \
  --jobs "${KINA_JOBS:-2}" ${KINA_PROPERTY_COUNT:+--count "$KINA_PROPERTY_COUNT"} \
  >"$out/property.log" 2>&1
rc=$?
grep -v '^[0-9]* passed, [0-9]* failed, [0-9]* skipped$' "$out/property.log"
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$out/property.log" | tail -1)
if [ -z "$line" ]; then
  echo "property: the harness exited $rc without a totals line"
  echo "0 passed, $((1 + selftest_failed)) failed, 0 skipped"
  exit 1
fi
read -r p _ f _ s _ <<<"$line"
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
  f=1
fi
echo "property: $p passed, $((f + selftest_failed)) failed, $s skipped"
[ "$((f + selftest_failed))" -eq 0 ]
