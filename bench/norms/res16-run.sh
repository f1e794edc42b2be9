# bench/norms/res16-run.sh: the device run for bench/norms/res16.kina (checks, racecheck,
# norms.py with the variants); on the GPU machine with the static kina in .carry/kina.xz.
set -u
mkdir -p /tmp/k && xz -dc .carry/kina.xz > /tmp/k/kina && chmod +x /tmp/k/kina
K=/tmp/k/kina
R=$OUT/r; mkdir -p $R/norms
date -u
( for k in rms_res16 ln_res16; do for d in M=9,D=2056 M=33,D=4096 M=333,D=3000 M=1000,D=4096; do echo "== $k $d"; timeout 60 $K run bench/norms/res16.kina --kernel $k --dims $d --check --target sm_90a 2>&1 | tail -1; done; done
  for d in M=5,D=8 M=33,D=1000 M=9,D=2056 M=333,D=8192; do echo "== rms_cp16 $d"; timeout 60 $K run bench/norms/res16.kina --kernel rms_cp16 --dims $d --check --target sm_90a 2>&1 | tail -1; done
  for k in rms_res16 ln_res16 rms_cp16; do echo "== racecheck $k"; timeout 60 compute-sanitizer --tool racecheck $K run bench/norms/res16.kina --kernel $k --dims M=33,D=2056 --target sm_90a 2>&1 | tail -1; done ) > $R/checks.txt 2>&1
grep -c "check: PASS" $R/checks.txt; grep -c "0 hazards" $R/checks.txt
E="--extra bench/norms/res16.kina:rms_res16:rms_norm --extra bench/norms/res16.kina:ln_res16:layer_norm --extra bench/norms/res16.kina:rms_cp16:rms_norm"
timeout 100 python3 bench/norms/norms.py --kina $K --norms-only $E --out $R/norms > $R/norms/stdout.txt 2>&1
python3 - <<'PY'
import json,os
d=json.load(open(os.environ['OUT']+'/r/norms/norms-results.json'))
for r in d['rows']:
    print(r['M'], r['D'], {k[5:-9]: round(v,3) for k,v in r.items() if k.endswith('_vs_torch') and 'selected' not in k}, 'vs_copy', {k[5:-8]: round(v,3) for k,v in r.items() if k.endswith('_vs_copy') and 'selected' not in k})
PY
date -u
tar czf $OUT/r.tgz -C $OUT r
