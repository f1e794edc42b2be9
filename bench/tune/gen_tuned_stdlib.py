import sys
def kernel(dt, cluster):
    wg = 'wgmma_bf16' if dt=='BF16' else 'wgmma_f16'
    name = f"gemm_{dt.lower()}_hopper_tuned" + ("_cluster" if cluster else "")
    caps = f"sm_90a, {wg}, tma, tma_store, " + ("tma_multicast, " if cluster else "") + "mbarrier, mbarrier_try_wait, setmaxnreg" + (", clusters" if cluster else "")
    mreq = "(2 * BM)" if cluster else "BM"
    grid = "block_grid [132] cluster [2] {" if cluster else "block_grid [132] {"
    arr = "BM / 32" if cluster else "BM / 64"
    if cluster:
        tile = """          let bn = (t / 2) mod (N/BN) in
          let bm = 2 * ((t / 2) / (N/BN)) + cluster_rank in"""
        bload = """            tma_load b_s[s, cluster_rank * (BN/2) ..+ BN/2, 0 ..+ 64]
                <- b[bn * BN + cluster_rank * (BN/2) ..+ BN/2, k * 64 ..+ 64]
                multicast completes full[s]"""
        rel = " cluster"
    else:
        tile = """          let bm = t / (N/BN) in
          let bn = t mod (N/BN) in"""
        bload = """            tma_load b_s[s] <- b[bn * BN ..+ BN, k * 64 ..+ 64] completes full[s]"""
        rel = ""
    return f"""kernel {name}
    [M, N, K]
    tune BM in {{64, 128, 192, 256}} = 128
    tune BN in {{64, 128, 192, 256}} = 256
    tune STAGES in {{2, 3, 4, 5, 6}} = 3
    tune CREGS in {{152, 232}} = 232
    requires (M mod {mreq} = 0)
    requires (N mod BN = 0)
    requires (K mod 64 = 0)
    requires capability({caps})
    (a : Tensor[{dt}, [M, K], on=cuda:global])
    (b : Tensor[{dt}, [N, K], on=cuda:global])
    : (c : Tensor[{dt}, [M, N], on=cuda:global]) {{
  {grid}
    shared a_s : Tile[{dt}, [STAGES, BM, 64], on=cuda:shared, layout=swizzle_128b]
    shared b_s : Tile[{dt}, [STAGES, BN, 64], on=cuda:shared, layout=swizzle_128b]
    shared c_s : Tile[{dt}, [BM / 64, 64, BN], on=cuda:shared, layout=swizzle_128b]
    shared full  : Barrier[STAGES, arrivals=1]
    shared empty : Barrier[STAGES, arrivals={arr}]
    warpgroup_grid [1 + BM / 64] {{
      role producer (warpgroup 0) registers 40 {{
        for t in (block_id 0 .. (M/BM) * (N/BN) step 132) {{
{tile}
          for k in (0 .. K/64) {{
            let it = (t / 132) * (K/64) + k in
            let s = it mod STAGES in
            wait empty[s] round (it / STAGES - 1)
            arrive full[s] expect_tx (BM + BN) * 128
            tma_load a_s[s] <- a[bm * BM ..+ BM, k * 64 ..+ 64] completes full[s]
{bload}
          }}
        }}
      }}
      role consumer (warpgroup 1 .. BM / 64) registers CREGS {{
        let wg = warpgroup_id - 1 in
        register acc : Tile[F32, [64, BN], on=cuda:register]
        for t in (block_id 0 .. (M/BM) * (N/BN) step 132) {{
{tile}
          for k in (0 .. K/64) {{
            let it = (t / 132) * (K/64) + k in
            let s = it mod STAGES in
            wait full[s] round (it / STAGES)
            acc <- wgmma acc a_s[s, wg * 64 ..+ 64, 0 ..+ 64] b_s[s] zero_when (k = 0)
            wgmma_commit
            wgmma_wait 1
            if (k > 0) {{
              arrive empty[(it - 1) mod STAGES]{rel}
            }}
          }}
          wgmma_wait 0
          arrive empty[((t / 132) * (K/64) + K/64 - 1) mod STAGES]{rel}
          tma_store_wait 0
          c_s[wg] <- convert {dt} acc
          fence_proxy_async
          tma_store c[bm * BM + wg * 64 ..+ 64, bn * BN ..+ BN] <- c_s[wg]
          tma_store_commit
        }}
        tma_store_wait 0
      }}
    }}
  }}
}}
"""
dt = sys.argv[1]
other = 'F16' if dt=='BF16' else 'BF16'
hdr = f"""// Tunable persistent Hopper (sm_90a) GEMM, c = a * transpose(b) with b stored
// K-major ([N, K]), {dt} in and out, F32 accumulation: the kernels of
// stdlib/gemm_{dt.lower()}_hopper_persistent.kina and gemm_{dt.lower()}_hopper_cluster.kina with
// their tile, pipeline and register choices as tune parameters (docs/language.md
// "Tunable parameters"; `kina tune` searches them, issue 15).
//   BM      block tile rows: BM / 64 consumer warpgroups, one wgmma M=64 each
//   BN      block tile columns = the wgmma N (and the TMA box rows of B)
//   STAGES  depth of the TMA ring (shared memory: STAGES * (BM + BN) * 128 B)
//   CREGS   setmaxnreg of each consumer (the 64 x BN F32 accumulator is BN / 2
//           registers per thread, plus headroom)
// The first kernel runs one CTA per tile; the second (`_cluster`) runs 2x1
// clusters whose CTAs take M-adjacent tiles sharing one B tile (each loads half
// of it and multicasts it to both), the cluster-1/2 axis of the search. The
// checker is the legality oracle: a point whose shared memory, register budget,
// divisibility or protocol does not check is not built or launched. With the
// defaults each kernel is its hand-written counterpart.
"""
print(hdr)
print(kernel(dt, False))
print(kernel(dt, True), end='')
