#!/usr/bin/env bash
# s17b: the hybrid-resident stdlib norms (suite + sanitizers + bench).
set -u
mkdir -p /tmp/k "$OUT/r/gpu" "$OUT/r/norms"
xz -dc .carry/kina.xz > /tmp/k/kina && chmod +x /tmp/k/kina
K=/tmp/k/kina
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; $K --version; cat .carry/commit; } > "$OUT/r/env.txt" 2>&1
ONLY='norm' OUT="$OUT/r/gpu" TIMEOUT=120 bash tests/gpu/run.sh $K > "$OUT/r/gpu/suite-stdout.txt" 2>&1
echo "suite exit $?"
tail -3 "$OUT/r/gpu/suite-stdout.txt"
PYTHONUNBUFFERED=1 python3 bench/norms/norms.py --kina $K --norms-only --out "$OUT/r/norms" \
  --extra bench/norms/hyb.kina:rms_res8:rms_norm --extra bench/norms/hyb.kina:ln_res8:layer_norm \
  --extra bench/norms/hyb.kina:rms_hyb7:rms_norm --extra bench/norms/hyb.kina:ln_hyb6:layer_norm \
  --extra bench/norms/big.kina:rms_part6:rms_norm > "$OUT/r/norms/stdout.txt" 2>&1
echo "bench exit $?"
date -u >> "$OUT/r/env.txt"
