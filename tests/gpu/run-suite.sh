#!/usr/bin/env bash
# The GPU suite's oracles, checked on this machine (scripts/test.sh runs every
# tests/*/run-suite.sh): each kernel that tests/gpu/run.sh runs on the GPU
# (stdlib and tests/gpu/constructs) goes through the tile-IR interpreter
# (`kina run --interpret --save`) at its small sizes, and its result is
# compared with the kernel's independent NumPy reference (tests/gpu/refs/),
# so a wrong reference or a wrong interpreter is caught without a GPU.
# The GPU half itself is tests/gpu/run.sh (on the GPU machine).
# Ends with `N passed, N failed, N skipped`.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${KINA_BUILD_DIR:-$ROOT/build}
KINA=${KINA_BIN:-$BUILD/compiler/driver/kina}
if [ ! -x "$KINA" ]; then
  echo "FAIL kina is not built ($KINA)"
  echo "0 passed, 1 failed, 0 skipped"
  exit 1
fi
# A Python 3 with NumPy: $PYTHON, else python3 on PATH, else Debian's (setup
# installs python3-numpy there; a pyenv python3 on PATH may lack it).
PY=
for cand in "${PYTHON:-}" python3 /usr/bin/python3; do
  if [ -n "$cand" ] && "$cand" -c 'import numpy' 2>/dev/null; then
    PY=$cand
    break
  fi
done
if [ -z "$PY" ]; then
  echo "FAIL no python3 with NumPy (scripts/setup.sh installs python3-numpy)"
  echo "0 passed, 1 failed, 0 skipped"
  exit 1
fi
exec "$PY" "$ROOT/tests/gpu/check_refs_cpu.py" --kina "$KINA" --root "$ROOT" "$@"
