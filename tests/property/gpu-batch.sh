#!/usr/bin/env bash
# Runs, on a machine with a GPU, the generated programs that build: every
# kernel of every file of a batch that `kina-property --gpu-batch DIR` wrote
# (DIR/manifest.txt: `file kernel dims` per line) goes through
# `kina run FILE --kernel K --dims D --check`, which compares the GPU's
# result with the tile-IR interpreter on random inputs. That catches code
# generation bugs the build cannot (a cooperative copy that misses chunks
# for an odd warp count, a wrong swizzle); it cannot catch a lowering bug,
# since both sides run the same tile IR (docs/architecture.md, decision 12).
# Prints one line per failure and `N passed, N failed, N skipped`.
#
# Hopper kernels (GenerateHopper.h) are in the batch too: the interpreter
# runs warpgroup grids (roles as coroutines, mbarrier phases, TMA, wgmma),
# and it fails a run whose waits would not mean their round on the GPU or
# that deadlocks. `--family hopper` writes a batch of Hopper kernels only.
#
# Usage: tests/property/gpu-batch.sh DIR
#   e.g. build/tests/property/kina-property --count 500 --targets sm_90a \
#          --known tests/property/known-failures.txt --gpu-batch /tmp/batch
#        tests/property/gpu-batch.sh /tmp/batch          (on the GPU machine)
# Env: KINA (the kina binary; default build/compiler/driver/kina),
#      KINA_GPU_TARGET (default sm_90a), KINA_GPU_WRAPPER (a command put
#      before kina, e.g. `compute-sanitizer --error-exitcode 9`),
#      KINA_GPU_INTERPRET=1 (no GPU: `kina run --interpret`, the reference
#      alone, to see that every program of the batch runs there).
set -uo pipefail
dir=${1:?usage: gpu-batch.sh DIR}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
kina=${KINA:-$root/build/compiler/driver/kina}
target=${KINA_GPU_TARGET:-sm_90a}
read -r -a wrapper <<<"${KINA_GPU_WRAPPER:-}"
[ -f "$dir/manifest.txt" ] || { echo "gpu-batch: no $dir/manifest.txt"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
passed=0 failed=0 skipped=0
while read -r file kernel dims; do
  case "$file" in '#'* | '') continue ;; esac
  if [ "${KINA_GPU_INTERPRET:-0}" = 1 ]; then
    args=(run "$dir/$file" --kernel "$kernel" --interpret --target "$target")
  else
    args=(run "$dir/$file" --kernel "$kernel" --check --target "$target")
  fi
  [ "$dims" != "-" ] && args+=(--dims "$dims")
  out=$("${wrapper[@]}" "$kina" "${args[@]}" 2>&1)
  rc=$?
  if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1))
  elif [ "$rc" -eq 77 ]; then
    skipped=$((skipped + 1))
  else
    failed=$((failed + 1))
    echo "FAIL (exit $rc): kina ${args[*]}"
    echo "$out" | tail -5 | sed 's/^/    /'
  fi
done <"$dir/manifest.txt"
echo "gpu-batch: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
