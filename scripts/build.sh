#!/usr/bin/env bash
# Configures and builds Kina: Ninja, Release, ccache (its cache in the reusable
# $KINA_CACHE/ccache), unit tests on. The top-level CMakeLists.txt adds only the
# layers and test folders that exist, so a partial tree still builds. It does
# not install anything: run scripts/setup.sh first (test.sh and demo.sh do).
#
# Usage: scripts/build.sh [ninja targets...]     (default: all targets)
# Env:   KINA_BUILD_DIR (default build/), KINA_JOBS (default 2),
#        KINA_BUILD_TYPE (default Release), KINA_CMAKE_ARGS (extra -D options).
set -euo pipefail
# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
kina_load_env

export CCACHE_DIR=${CCACHE_DIR:-$KINA_CACHE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
# Paths in the ccache key are relative to the root, so fresh clones hit too.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$KINA_ROOT}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
mkdir -p "$CCACHE_DIR"

command -v cmake >/dev/null || die "cmake not found: run scripts/setup.sh"
command -v ninja >/dev/null || die "ninja not found: run scripts/setup.sh"

T=$(now_s)
ccache -z >/dev/null 2>&1 || true
# Always (re)configure: it takes a second or two and picks up new subfolders,
# which the CMakeLists find with if(EXISTS) and file(GLOB).
read -r -a extra <<<"${KINA_CMAKE_ARGS:-}"
cmake -G Ninja -S "$KINA_ROOT" -B "$KINA_BUILD_DIR" \
  -DCMAKE_BUILD_TYPE="${KINA_BUILD_TYPE:-Release}" \
  -DKINA_BUILD_TESTS=ON \
  "${extra[@]}" >"$KINA_CACHE/logs/cmake-configure.log" 2>&1 || {
  cat "$KINA_CACHE/logs/cmake-configure.log" >&2
  die "cmake configure failed"
}
log "configured $KINA_BUILD_DIR in $(elapsed "$T") s"

T=$(now_s)
ninja -C "$KINA_BUILD_DIR" -j "$KINA_JOBS" "$@"
# ccache 4.7 prints "  Hits: 12 / 20 (60.00 %)" per cache level; the first is the total.
stats=$(ccache -s 2>/dev/null | awk '/^ *Hits:/ && !h { h = $2 "/" $4 } END { if (h) print h }' || true)
log "built in $(elapsed "$T") s (ccache hits ${stats:-n/a})"
