#!/usr/bin/env bash
# Runs the compile-time benchmark for the seed GEMM and the pipelined GEMM and
# writes bench/compile/results/compile-<host>-<date>.json: per-stage wall-time
# medians, the thread-CPU median (robust to other load) and the load average.
# Usage: bench/compile/run.sh [build-dir]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build}"
bin="$(find "$build" -name kina-compile-bench -type f -perm -u+x | head -n1)"
if [[ -z "$bin" ]]; then
  echo "kina-compile-bench is not built in $build" >&2
  exit 2
fi
mkdir -p "$root/bench/compile/results"
out="$root/bench/compile/results/compile-$(hostname -s)-$(date +%Y%m%d).json"
{
  echo "["
  "$bin" --file "$root/stdlib/gemm_tc.kina" --kernel gemm_tc --json
  echo ","
  "$bin" --file "$root/stdlib/gemm_f16_pipelined.kina" --kernel gemm_f16_pipelined --json
  echo "]"
} > "$out"
cat "$out"
echo "wrote $out (nproc=$(nproc))"
