"""Ping-pong consumer mutants (issue 13's ladder: two consumer warpgroups
take alternate tiles and hand the tensor cores over through `order`), run by
run.py with mutants.py. The bases are stdlib/gemm_bf16_hopper_pingpong.kina
and its 2x1-cluster form. The proof attributes a stage's arrivals in
execution order (a consumer skips the rounds its peer takes); these mutants
break what makes that attribution unique or the ring safe:
  - the hand-over (`order`) dropped, mis-indexed or waited a round early:
    a consumer's parity wait could pass on a round it never saw complete;
  - both consumers on every tile, or a wrong empty count;
  - the cluster rules (cluster-uniform conditions, cluster releases).
"""

PP = "gemm_bf16_hopper_pingpong.kina"
PPC = "gemm_bf16_hopper_pingpong_cluster.kina"
ORDER_WAIT = "              wait order[1 - wg] round ((t / 132 - 1) / 2)\n"

MUTANTS = [
    # the hand-over wait dropped: warpgroup 1's first wait on a stage of
    # tile 1 may pass on round 0's parity before tile 0's copy landed.
    dict(name="pingpong-no-order-wait", base=PP, code="K0625",
         edits=[(ORDER_WAIT, "")], at="wait full[s] round (it / 4)"),
    # waiting on its own hand-over stage instead of the peer's: deadlock.
    dict(name="pingpong-order-wait-own-stage", base=PP, code="K0625",
         edits=[(ORDER_WAIT, "              wait order[wg] round ((t / 132 - 1) / 2)\n")]),
    # the hand-over signal dropped: the peer waits forever.
    dict(name="pingpong-no-order-arrive", base=PP, code="K0625",
         edits=[("            arrive order[wg]\n", "")], at="wait order[1 - wg]"),
    # both consumers take every tile: a stage gets two releases per round.
    dict(name="pingpong-both-consumers-every-tile", base=PP, code="K0623",
         edits=[("if ((t / 132) mod 2 = wg) {", "if ((t / 132) mod 1 = 0) {")],
         at="shared empty : Barrier[4, arrivals=1]"),
    # the cooperative count: two releases expected per stage.
    dict(name="pingpong-empty-arrivals-2", base=PP, code="K0623",
         edits=[("shared empty : Barrier[4, arrivals=1]", "shared empty : Barrier[4, arrivals=2]")]),
    # the consumers wait a round early on the ring.
    dict(name="pingpong-full-wait-round-early", base=PP, code="K0621",
         edits=[("wait full[s] round (it / 4)", "wait full[s] round (it / 4 - 1)")]),
    # cluster: a release only in its own CTA.
    dict(name="pingpong-cluster-release-local", base=PPC, code="K0641",
         edits=[("arrive empty[(it - 1) mod 4] cluster", "arrive empty[(it - 1) mod 4]")]),
    # cluster: the tile split by the rank, not the ordinal: the peers differ.
    dict(name="pingpong-cluster-split-by-rank", base=PPC, code="K0152",
         edits=[("if ((t / 132) mod 2 = wg) {", "if ((t / 132 + cluster_rank) mod 2 = wg) {")],
         at="if ((t / 132 + cluster_rank) mod 2 = wg) {"),
    # cluster: the unclustered count.
    dict(name="pingpong-cluster-empty-arrivals-1", base=PPC, code="K0642",
         edits=[("shared empty : Barrier[4, arrivals=2]", "shared empty : Barrier[4, arrivals=1]")]),
]

ACCEPT = [
    dict(name="pingpong", base=PP, edits=[]),
    dict(name="pingpong-cluster", base=PPC, edits=[]),
]
