#!/usr/bin/env bash
# Usage: mma-lines.sh KINA FILE TARGET ptx|sass
# Builds FILE with line info and prints, per file, the Kina lines its
# tensor-core instructions (PTX mma.sync / wgmma.mma_async, SASS HMMA /
# HGMMA) map to, next to the lines of the file's `<- wmma_mma` / `<- wgmma`
# statements, so a test can pin both and see that they agree.
set -euo pipefail
kina=$1 file=$2 target=$3 view=$4
if [ "$view" = ptx ]; then pat='mma\.sync|wgmma\.mma_async'; else pat='HMMA|HGMMA'; fi
table=$("$kina" build "$file" --target "$target" --emit="$view-lines")
mma=$(printf '%s\n' "$table" | grep -E "	($pat)" | cut -f1 | sort -nu | tr '\n' ' ')
n=$(printf '%s\n' "$table" | grep -cE "	($pat)" || true)
src=$(grep -nE '<- (wmma_mma|wgmma) ' "$file" | cut -d: -f1 | tr '\n' ' ')
echo "$(basename "$file") $view: $n on lines ${mma}; statements on lines ${src}"
