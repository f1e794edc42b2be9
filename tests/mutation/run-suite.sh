#!/usr/bin/env bash
# Mutation suite (run by scripts/test.sh, which runs every tests/*/run-suite.sh
# from the repository root): deletes each cp_async_wait_*, block_sync and
# requires clause of every stdlib kernel, and halves each warp_grid extent and
# shortens each constant loop by one iteration, one at a time, and counts the
# mutants `kina check` rejects. Prints `mutation: killed/total` and the runner
# line `N passed, N failed, 0 skipped` (passed = killed, failed = survived,
# crashed, or a stale allowlist entry). See tests/mutation/mutate.py.
# Then the Hopper protocol mutants (tests/mutation/hopper/run.py: each must be
# rejected with its diagnostic at its line, each correct variant accepted);
# their counts are added to the runner line.
#
# The kina binary: $KINA, else $KINA_BUILD_DIR/compiler/driver/kina, else
# build/compiler/driver/kina. Env: KINA_MUTATION_JOBS (default 2),
# KINA_MUTATION_TARGET (passed as --target; default: kina's own default).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

kina="${KINA:-}"
if [ -z "$kina" ] && [ -n "${KINA_BUILD_DIR:-}" ] && [ -x "$KINA_BUILD_DIR/compiler/driver/kina" ]; then
  kina="$KINA_BUILD_DIR/compiler/driver/kina"
fi
if [ -z "$kina" ]; then
  kina="$root/build/compiler/driver/kina"
fi
if [ ! -x "$kina" ]; then
  echo "mutation: the kina binary was not found ($kina); build it or set KINA"
  echo "0 passed, 1 failed, 0 skipped"
  exit 1
fi

args=(--kina "$kina" --stdlib "$root/stdlib" --allowlist "$here/allowlist.txt"
      --jobs "${KINA_MUTATION_JOBS:-2}")
if [ -n "${KINA_MUTATION_TARGET:-}" ]; then
  args+=(--target "$KINA_MUTATION_TARGET")
fi
cd "$root" || exit 1

# Self-test of the harness: a "checker" that accepts everything must let every
# mutant survive, or a kill count would prove nothing.
shim="$(mktemp)"
printf '#!/bin/sh\nexit 0\n' >"$shim"
chmod +x "$shim"
selftest=$(python3 "$here/mutate.py" --kina "$shim" --stdlib "$root/stdlib" --allowlist /dev/null --jobs 2)
selftest_rc=$?
hopper_selftest=$(python3 "$here/hopper/run.py" --kina "$shim" --jobs 2)
hopper_selftest_rc=$?
rm -f "$shim"
selftest_failed=0
if [ "$selftest_rc" -ne 1 ] || ! grep -q '^mutation: 0/[1-9]' <<<"$selftest"; then
  echo "mutation: SELF-TEST FAILED: an accept-everything checker was not reported as letting mutants survive"
  selftest_failed=1
fi
if [ "$hopper_selftest_rc" -ne 1 ] || ! grep -q '^hopper mutation: 0/[1-9]' <<<"$hopper_selftest"; then
  echo "mutation: SELF-TEST FAILED: the Hopper mutants survived nothing under an accept-everything checker"
  selftest_failed=1
fi

out=$(python3 "$here/mutate.py" "${args[@]}")
rc=$?
printf '%s\n' "$out" | sed '$d'
read -r p _ f _ s _ <<<"$(tail -n 1 <<<"$out")"
if ! [[ "$p" =~ ^[0-9]+$ && "$f" =~ ^[0-9]+$ ]]; then
  printf '%s\n' "$(tail -n 1 <<<"$out")"
  echo "0 passed, 1 failed, 0 skipped"
  exit 1
fi
hout=$(python3 "$here/hopper/run.py" --kina "$kina" --jobs "${KINA_MUTATION_JOBS:-2}")
hrc=$?
printf '%s\n' "$hout" | sed '$d'
read -r hp _ hf _ _ _ <<<"$(tail -n 1 <<<"$hout")"
if ! [[ "$hp" =~ ^[0-9]+$ && "$hf" =~ ^[0-9]+$ ]]; then
  hp=0
  hf=1
fi
echo "$((p + hp)) passed, $((f + hf + selftest_failed)) failed, 0 skipped"
if [ "$rc" -ne 0 ] || [ "$hrc" -ne 0 ] || [ "$selftest_failed" -ne 0 ]; then
  exit 1
fi
