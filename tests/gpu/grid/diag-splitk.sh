#!/bin/bash
# tests/gpu/grid/diag-splitk.sh: on the device, why gemm_splitk_f16 at
# M=128,N=128,K=256 went wrong on 2026-12-01 (s14a): repeat runs, neighbouring
# sizes, sm_80, the four compute-sanitizer tools, and gemm_tc (same mainloop).
# KINA=/tmp/k/kina OUT=dir bash tests/gpu/grid/diag-splitk.sh
K=${KINA:-/tmp/k/kina}; O=$OUT/splitk; mkdir -p $O
for i in 1 2 3 4 5; do
  $K run stdlib/gemm_splitk_f16.kina --kernel gemm_splitk_f16 --dims M=128,N=128,K=256 --target sm_90a --check --save $O/r$i 2>&1 | grep check
done
for d in M=128,N=128,K=512 M=128,N=128,K=1024 M=256,N=256,K=256 M=128,N=256,K=256 M=256,N=128,K=256 M=128,N=128,K=64 M=128,N=128,K=128; do
  echo "== $d"; $K run stdlib/gemm_splitk_f16.kina --kernel gemm_splitk_f16 --dims $d --target sm_90a --check 2>&1 | grep check
done
echo "== sm_80 128^3"; $K run stdlib/gemm_splitk_f16.kina --kernel gemm_splitk_f16 --dims M=128,N=128,K=256 --target sm_80 --check 2>&1 | grep check
echo "== memcheck"; compute-sanitizer --tool memcheck $K run stdlib/gemm_splitk_f16.kina --kernel gemm_splitk_f16 --dims M=128,N=128,K=256 --check 2>&1 | tail -4
echo "== synccheck"; compute-sanitizer --tool synccheck $K run stdlib/gemm_splitk_f16.kina --kernel gemm_splitk_f16 --dims M=128,N=128,K=256 --check 2>&1 | tail -3
echo "== racecheck"; compute-sanitizer --tool racecheck $K run stdlib/gemm_splitk_f16.kina --kernel gemm_splitk_f16 --dims M=128,N=128,K=256 --check 2>&1 | tail -3
echo "== initcheck"; compute-sanitizer --tool initcheck $K run stdlib/gemm_splitk_f16.kina --kernel gemm_splitk_f16 --dims M=128,N=128,K=256 --check 2>&1 | tail -5
echo "== gemm_tc 128^3 (same mainloop, plain store)"; $K run stdlib/gemm_tc.kina --dims M=128,N=128,K=256 --check 2>&1 | grep check
ls stdlib | grep -i "tc\|atomic" | head
(cd $OUT && tar czf splitk.tgz splitk && rm -rf splitk)
