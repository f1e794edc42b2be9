"""Cluster multicast mutants (issue 13, /work/coord/s3.md "Cluster
multicast"), run by run.py with mutants.py. The base is the s3.md target
kernel, gemm_bf16_hopper_cluster.kina (the persistent GEMM in 2x1 clusters,
B multicast, cluster releases). One mutant per proof obligation at least:
  1. expect_tx counts the peers' multicast bytes          K0640
  2. the peers' multicast boxes tile the stage            K0151
  3. multicast stages released by cluster arrivals,
     arrivals = consumer warpgroups x cluster size         K0641, K0642
  4. cluster-uniform control flow around cluster ops      K0152
  5. the unclustered protocol rules still apply           K0624, K0620, K0621
plus the capability (K0501) and the missing cluster launch (K0150).
"""

CLUSTER = "gemm_bf16_hopper_cluster.kina"

MULTICAST_DST = "tma_load b_s[s, cluster_rank * 128 ..+ 128, 0 ..+ 64]"
RELEASE = "arrive empty[(it - 1) mod 3] cluster"
LAST_RELEASE = "arrive empty[((t / 132) * (K/64) + K/64 - 1) mod 3] cluster"

MUTANTS = [
    # 1. expect_tx without the peer's half of B (the unclustered count).
    dict(name="cluster-expect-tx-misses-peer-bytes", fix=True, base=CLUSTER, code="K0640",
         edits=[("arrive full[s] expect_tx 49152", "arrive full[s] expect_tx 32768")]),
    # 1. expect_tx counting each multicast box once per CTA twice over.
    dict(name="cluster-expect-tx-counts-a-twice", fix=True, base=CLUSTER, code="K0640",
         edits=[("arrive full[s] expect_tx 49152", "arrive full[s] expect_tx 65536")]),
    # 2. every CTA multicasts into the same half: the boxes overlap.
    dict(name="cluster-multicast-same-half", base=CLUSTER, code="K0151",
         edits=[(MULTICAST_DST, "tma_load b_s[s, 0 ..+ 128, 0 ..+ 64]")]),
    # 2. rank r writes from r * 64: the halves overlap by 64 rows.
    dict(name="cluster-multicast-rank-step-half-a-box", base=CLUSTER, code="K0151",
         edits=[(MULTICAST_DST, "tma_load b_s[s, cluster_rank * 64 ..+ 128, 0 ..+ 64]")]),
    # 2. the stage index depends on the rank.
    dict(name="cluster-multicast-stage-depends-on-rank", base=CLUSTER, code="K0151",
         edits=[(MULTICAST_DST, "tma_load b_s[(s + cluster_rank) mod 3, cluster_rank * 128 ..+ 128, 0 ..+ 64]")]),
    # 3. a consumer releases a multicast stage only in its own CTA.
    dict(name="cluster-release-local", fix=True, base=CLUSTER, code="K0641",
         edits=[(RELEASE, "arrive empty[(it - 1) mod 3]")]),
    dict(name="cluster-last-release-local", fix=True, base=CLUSTER, code="K0641",
         edits=[(LAST_RELEASE, "arrive empty[((t / 132) * (K/64) + K/64 - 1) mod 3]")]),
    # 3. the unclustered arrival count: 2 consumers, not 2 x 2 CTAs.
    dict(name="cluster-empty-arrivals-2", fix=True, base=CLUSTER, code="K0642",
         edits=[("shared empty : Barrier[3, arrivals=4]", "shared empty : Barrier[3, arrivals=2]")]),
    # 3. a cluster arrive on the barrier the multicast completes on.
    dict(name="cluster-arrive-on-full", base=CLUSTER, code="K0641",
         edits=[("            wait full[s] round (it / 3)\n",
                 "            wait full[s] round (it / 3)\n            arrive full[s] cluster\n")],
         at="arrive full[s] cluster"),
    # 4. the producer's inner loop runs one trip fewer in rank 1.
    dict(name="cluster-producer-trips-depend-on-rank", base=CLUSTER, code="K0152",
         edits=[("          for k in (0 .. K/64) {\n            let it = (t / 132) * (K/64) + k in\n"
                 "            let s = it mod 3 in\n            wait empty[s]",
                 "          for k in (0 .. K/64 - cluster_rank) {\n            let it = (t / 132) * (K/64) + k in\n"
                 "            let s = it mod 3 in\n            wait empty[s]")]),
    # 4. a consumer release under a condition on the block.
    dict(name="cluster-release-under-block-condition", base=CLUSTER, code="K0152",
         edits=[("            if (k > 0) {\n              " + RELEASE,
                 "            if (k > block_id 0 mod 2) {\n              " + RELEASE)]),
    # 4. the whole warpgroup grid under a condition on the block: CTAs of
    # one cluster may disagree (130 is even here, but not provably a
    # cluster-uniform test).
    dict(name="cluster-grid-under-block-condition", base=CLUSTER, code="K0152",
         edits=[("    warpgroup_grid [3] {\n", "    if (block_id 0 < 131) {\n    warpgroup_grid [3] {\n"),
                ("        tma_store_wait 0\n      }\n    }\n", "        tma_store_wait 0\n      }\n    }\n    }\n")]),
    # 5. the rules of the unclustered proof: no empty wait before refilling.
    dict(name="cluster-producer-no-empty-wait", base=CLUSTER, code="K0624",
         edits=[("            wait empty[s] round (it / 3 - 1)\n", "")], at="tma_load a_s[s]"),
    # 5. the consumers read a stage without waiting for the multicast.
    dict(name="cluster-consumer-no-full-wait", base=CLUSTER, code="K0620",
         edits=[("            wait full[s] round (it / 3)\n", "")], at="acc <- wgmma"),
    # 5. the consumers wait one round early.
    dict(name="cluster-full-wait-round-early", base=CLUSTER, code="K0621",
         edits=[("wait full[s] round (it / 3)", "wait full[s] round (it / 3 - 1)")]),
    # the capability and the cluster launch.
    dict(name="cluster-multicast-capability-not-declared", base=CLUSTER, code="K0501",
         edits=[("tma_store, tma_multicast, mbarrier", "tma_store, mbarrier")], at="multicast completes"),
]

ACCEPT = [
    dict(name="cluster", base=CLUSTER, edits=[]),
]
