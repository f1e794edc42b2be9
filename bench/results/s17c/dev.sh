#!/usr/bin/env bash
# s17c: the *_res_bf16 norms without the redundant wait_all + block_sync.
set -u
mkdir -p /tmp/k "$OUT/r/gpu" "$OUT/r/norms"
xz -dc .carry/kina.xz > /tmp/k/kina && chmod +x /tmp/k/kina
K=/tmp/k/kina
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; $K --version; } > "$OUT/r/env.txt" 2>&1
ONLY='_res_' OUT="$OUT/r/gpu" TIMEOUT=120 bash tests/gpu/run.sh $K > "$OUT/r/gpu/suite-stdout.txt" 2>&1
echo "suite exit $?"
tail -2 "$OUT/r/gpu/suite-stdout.txt"
PYTHONUNBUFFERED=1 python3 bench/norms/norms.py --kina $K --norms-only --out "$OUT/r/norms" \
  --extra bench/norms/hyb.kina:rms_hyb6:rms_norm --extra bench/norms/hyb.kina:ln_hyb7:layer_norm > "$OUT/r/norms/stdout.txt" 2>&1
echo "bench exit $?"
date -u >> "$OUT/r/env.txt"
