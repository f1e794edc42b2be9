#!/usr/bin/env bash
# Does line info change what ptxas makes? For every stdlib kernel: the PTX
# without line info through `ptxas -v`, and the PTX with `.loc` (kina build
# --line-info) through `ptxas -v -lineinfo`; prints the registers, spill
# bytes and whether the SASS (cuobjdump -sass, line comments dropped) is
# identical. Runs on this machine (ptxas/cuobjdump from .deps/cuda).
# Usage: bench/lines/lineinfo_registers.sh [KINA] > table.txt
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
kina=${1:-$root/build/compiler/driver/kina}
. "$root/.deps/env.sh"
ptxas=${KINA_PTXAS:?}; cuobjdump=${KINA_CUOBJDUMP:-$(dirname "$ptxas")/cuobjdump}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '%-44s %-7s %9s %9s %s\n' kernel target "regs" "regs+li" "sass"
for f in "$root"/stdlib/*.kina; do
  target=sm_80
  grep -q 'sm_90a' "$f" && target=sm_90a
  for k in $(grep -oE '^kernel [A-Za-z0-9_]+' "$f" | cut -d' ' -f2); do
    "$kina" build "$f" --kernel "$k" --target "$target" --emit=ptx -o "$tmp/a.ptx" 2>/dev/null || continue
    "$kina" build "$f" --kernel "$k" --target "$target" --emit=ptx --line-info -o "$tmp/b.ptx" 2>/dev/null || continue
    ra=$("$ptxas" -arch="$target" -v "$tmp/a.ptx" -o "$tmp/a.cubin" 2>&1 | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' | tr '\n' ' ')
    rb=$("$ptxas" -arch="$target" -v -lineinfo "$tmp/b.ptx" -o "$tmp/b.cubin" 2>&1 | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' | tr '\n' ' ')
    same=differs
    if cmp -s <("$cuobjdump" -sass "$tmp/a.cubin" | grep -v '^\s*$') <("$cuobjdump" -sass "$tmp/b.cubin" | grep -v '^\s*$'); then same=identical; fi
    printf '%-44s %-7s %9s %9s %s   (%s | %s)\n' "$k" "$target" "$(echo "$ra" | grep -oE 'Used [0-9]+' | cut -d' ' -f2)" "$(echo "$rb" | grep -oE 'Used [0-9]+' | cut -d' ' -f2)" "$same" "$ra" "$rb"
  done
done
