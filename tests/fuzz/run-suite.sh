#!/usr/bin/env bash
# Fuzz suite (run by scripts/test.sh, which runs every tests/*/run-suite.sh
# from the repository root). Builds the libFuzzer targets of tests/fuzz
# (clang-22, ASan + UBSan, only the layers they need; ccache) in
# $KINA_FUZZ_BUILD_DIR (default build-fuzz/), seeds each from the test tree
# (seeds.py), runs each for $KINA_FUZZ_SECONDS (default 60), and prints
# `N passed, N failed, 0 skipped` (one per target: passed = no crash, abort,
# sanitizer report, leak or hang).
#
# Every input that crashed or hung is copied into tests/fuzz/regressions/
# <target>/ (commit it with the fix): ctest replays those folders in the
# normal build (fuzz-replay-<target>), so a found bug stays a test.
# Corpora grow in $KINA_FUZZ_BUILD_DIR/corpus/<target> between runs.
#
# Env: KINA_FUZZ_SECONDS (per target), KINA_FUZZ_TARGETS (default
# "parser checker lsp"), KINA_FUZZ_BUILD_DIR, KINA_JOBS (build jobs),
# KINA_FUZZ_STATS (a file to append one JSON line of figures per target to).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${KINA_FUZZ_BUILD_DIR:-$root/build-fuzz}"
seconds="${KINA_FUZZ_SECONDS:-60}"
targets="${KINA_FUZZ_TARGETS:-parser checker lsp}"
cache="${KINA_CACHE:-/var/cache/kina}"
export CCACHE_DIR="${CCACHE_DIR:-$cache/ccache}"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"

fail_all() {
  echo "fuzz: $1"
  echo "0 passed, $(wc -w <<<"$targets") failed, 0 skipped"
  exit 1
}
command -v clang++-22 >/dev/null || fail_all "clang++-22 not found: run scripts/setup.sh"
[ -f /usr/lib/llvm-22/lib/clang/22/lib/linux/libclang_rt.fuzzer-x86_64.a ] ||
  fail_all "libFuzzer not found (Debian package libclang-rt-22-dev): run scripts/setup.sh"

mkdir -p "$build"
# Absolute compiler paths, and a fresh cache when the cached one differs: a
# compiler that CMake sees as changed makes it delete the cache and configure
# again without the -D options (a normal, unsanitized build in build-fuzz).
cc=$(command -v clang-22)
cxx=$(command -v clang++-22)
if [ -f "$build/CMakeCache.txt" ] &&
  ! grep -qx "CMAKE_CXX_COMPILER:[A-Z]*=$cxx" "$build/CMakeCache.txt"; then
  rm -f "$build/CMakeCache.txt"
fi
configure() {
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKINA_FUZZ=ON \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" >"$build/configure.log" 2>&1
}
if ! configure; then
  cat "$build/configure.log"
  fail_all "cmake configure of $build failed"
fi
if ! grep -q '^KINA_FUZZ:BOOL=ON$' "$build/CMakeCache.txt"; then
  rm -f "$build/CMakeCache.txt"
  configure || { cat "$build/configure.log"; fail_all "cmake configure of $build failed"; }
  grep -q '^KINA_FUZZ:BOOL=ON$' "$build/CMakeCache.txt" ||
    fail_all "$build is not configured with KINA_FUZZ=ON"
fi
ninja_targets=()
for t in $targets; do ninja_targets+=("kina-fuzz-$t"); done
if ! ninja -C "$build" -j "${KINA_JOBS:-2}" "${ninja_targets[@]}" >"$build/build.log" 2>&1; then
  tail -40 "$build/build.log"
  fail_all "building the fuzz targets failed"
fi

rm -rf "$build/seeds"
python3 "$here/seeds.py" "$root" "$build/seeds" || fail_all "seeds.py failed"

passed=0
failed=0
for t in $targets; do
  corpus="$build/corpus/$t"
  artifacts="$build/artifacts/$t"
  mkdir -p "$corpus" "$artifacts"
  rm -f "$artifacts"/*
  dict="$here/kina.dict"
  [ "$t" = lsp ] && dict="$here/lsp.dict"
  log_file="$build/fuzz-$t.log"
  echo "fuzz: $t for ${seconds} s (corpus $corpus, seeds $build/seeds/$t)"
  # -timeout: one input may take this long (a hang is a finding);
  # -rss_limit_mb: more is an out-of-memory finding.
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    timeout -k 30 $((seconds + 120)) "$build/tests/fuzz/kina-fuzz-$t" \
    -max_total_time="$seconds" -timeout=25 -rss_limit_mb=4096 -max_len=65536 \
    -dict="$dict" -print_final_stats=1 -artifact_prefix="$artifacts/" \
    "$corpus" "$build/seeds/$t" >"$log_file" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log_file" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log_file" | tail -1)
  size=$(find "$corpus" -type f | wc -l)
  found=$(find "$artifacts" -type f | wc -l)
  echo "fuzz: $t: exit $rc, ${execs:-?} executions, ${speed:-?} exec/s, corpus $size inputs, $found findings"
  if [ -n "${KINA_FUZZ_STATS:-}" ]; then
    printf '{"target":"%s","seconds":%s,"exit":%s,"executions":%s,"exec_per_sec":%s,"corpus":%s,"findings":%s}\n' \
      "$t" "$seconds" "$rc" "${execs:-null}" "${speed:-null}" "$size" "$found" >>"$KINA_FUZZ_STATS"
  fi
  if ((rc == 0 && found == 0)); then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    grep -E "ERROR|SUMMARY|invariant|Test unit written|timeout|deadly" "$log_file" | head -20
    mkdir -p "$here/regressions/$t"
    for f in "$artifacts"/*; do
      [ -f "$f" ] || continue
      cp "$f" "$here/regressions/$t/"
      echo "fuzz: kept $(basename "$f") in tests/fuzz/regressions/$t/"
    done
  fi
done
echo "${passed} passed, ${failed} failed, 0 skipped"
((failed == 0))
