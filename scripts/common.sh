# Shared helpers for scripts/setup.sh, build.sh, test.sh and demo.sh (sourced,
# never run). It fixes the repository root, the reusable cache folder and the
# build folder, so every script agrees on where things live:
#   KINA_ROOT       the repository root (computed from this file's location);
#   KINA_CACHE      survives between runs on one machine (ccache, the tree-sitter
#                   CLI, downloaded wheels, editor tools); default /var/cache/kina
#                   when writable, else ${XDG_CACHE_HOME:-~/.cache}/kina;
#   KINA_BUILD_DIR  the CMake build folder; default $KINA_ROOT/build;
#   KINA_JOBS       parallel build jobs; default 2.
# shellcheck shell=bash

KINA_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export KINA_ROOT

if [ -z "${KINA_CACHE:-}" ]; then
  if mkdir -p /var/cache/kina 2>/dev/null && [ -w /var/cache/kina ]; then
    KINA_CACHE=/var/cache/kina
  else
    KINA_CACHE="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/kina"
  fi
fi
mkdir -p "$KINA_CACHE"
export KINA_CACHE
export KINA_BUILD_DIR=${KINA_BUILD_DIR:-$KINA_ROOT/build}
export KINA_JOBS=${KINA_JOBS:-2}
export KINA_DEPS="$KINA_ROOT/.deps"

# The project's LLVM 22 tools (lit, FileCheck, not, split-file) come first.
KINA_LLVM_BIN=/usr/lib/llvm-22/bin
export KINA_LLVM_BIN

kina_script=$(basename "${BASH_SOURCE[1]:-kina}" .sh)
log() { printf '[%s] %s\n' "$kina_script" "$*" >&2; }
die() {
  printf '[%s] error: %s\n' "$kina_script" "$*" >&2
  exit 1
}

# now_s: seconds since the epoch with millisecond precision (for step timings).
now_s() { date +%s.%N | cut -c1-14; }
# elapsed START: seconds since START, one decimal.
elapsed() { awk -v a="$1" -v b="$(now_s)" 'BEGIN { printf "%.1f", b - a }'; }

# Loads .deps/env.sh (written by setup.sh) when it exists.
kina_load_env() {
  if [ -f "$KINA_DEPS/env.sh" ]; then
    # shellcheck disable=SC1091
    . "$KINA_DEPS/env.sh"
  fi
}
