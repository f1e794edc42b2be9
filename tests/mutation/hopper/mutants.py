"""Hopper protocol mutants (issue 12 acceptance), run by run.py.

Each entry edits a base kernel of this folder: `edits` is a list of
(find, replace) pairs applied in order, each `find` occurring exactly once in
the text at that point. A MUTANT must be rejected by `kina check --target
sm_90a` with the diagnostic `code` on the line that holds `at` in the mutated
text (`at` defaults to the first line of the first non-empty replacement);
with `fix=True`, applying that diagnostic's fix-its must give a kernel that
checks clean.
An ACCEPT variant is a correct protocol that must check clean.

Held-out mutants: append entries here (or a file next to this one named
mutants_*.py defining MUTANTS / ACCEPT); run.py loads them all.
"""

GEMM = "gemm_bf16_hopper.kina"

# The consumer body of the `wgmma_wait 1` variant, which releases the previous
# stage one iteration later and the last stage after the loop.
WAIT1_LOOP = (
    "          wgmma_wait 0\n          arrive empty[s]\n        }\n",
    "          wgmma_wait 1\n"
    "          if k > 0 {\n"
    "            arrive empty[(k + 2) mod 3]\n"
    "          }\n"
    "        }\n"
    "        wgmma_wait 0\n"
    "        arrive empty[(K/64 + 2) mod 3]\n",
)

PROLOGUE = [
    ("    requires (K mod 64 = 0)\n",
     "    requires (K mod 64 = 0)\n    requires (K >= 192)\n"),
    ("        for k in (0 .. K/64) {\n          let s = k mod 3 in\n          wait empty[s]",
     "        for p in (0 .. 3) {\n"
     "          arrive full[p] expect_tx 49152\n"
     "          tma_load a_s[p] <- a[bm * 128 ..+ 128, p * 64 ..+ 64] completes full[p]\n"
     "          tma_load b_s[p] <- b[bn * 256 ..+ 256, p * 64 ..+ 64] completes full[p]\n"
     "        }\n"
     "        for k in (3 .. K/64) {\n          let s = k mod 3 in\n          wait empty[s]"),
]

FOUR_STAGES = [
    ("[3, 128, 64]", "[4, 128, 64]"),
    ("[3, 256, 64]", "[4, 256, 64]"),
    ("Barrier[3, arrivals=1]", "Barrier[4, arrivals=1]"),
    ("Barrier[3, arrivals=2]", "Barrier[4, arrivals=2]"),
    ("let s = k mod 3 in\n          wait empty[s] round (k / 3 - 1)",
     "let s = k mod 4 in\n          wait empty[s] round (k / 4 - 1)"),
    ("let s = k mod 3 in\n          wait full[s] round (k / 3)",
     "let s = k mod 4 in\n          wait full[s] round (k / 4)"),
]

ACCEPT = [
    dict(name="base", base=GEMM, edits=[]),
    dict(name="four-stages", base=GEMM, edits=FOUR_STAGES),
    dict(name="producer-prologue-fills-the-ring", base=GEMM, edits=PROLOGUE),
    dict(name="roles-swapped", base=GEMM, edits=[
        ("role producer (warpgroup 0)", "role producer (warpgroup 2)"),
        ("role consumer (warpgroup 1 .. 2)", "role consumer (warpgroup 0 .. 1)"),
        ("let wg = warpgroup_id - 1 in", "let wg = warpgroup_id in"),
    ]),
    dict(name="two-stages", base=GEMM, edits=[
        ("[3, 128, 64]", "[2, 128, 64]"), ("[3, 256, 64]", "[2, 256, 64]"),
        ("Barrier[3, arrivals=1]", "Barrier[2, arrivals=1]"),
        ("Barrier[3, arrivals=2]", "Barrier[2, arrivals=2]"),
        ("let s = k mod 3 in\n          wait empty[s] round (k / 3 - 1)",
         "let s = k mod 2 in\n          wait empty[s] round (k / 2 - 1)"),
        ("let s = k mod 3 in\n          wait full[s] round (k / 3)",
         "let s = k mod 2 in\n          wait full[s] round (k / 2)"),
    ]),
    dict(name="one-consumer-warpgroup", base=GEMM, edits=[
        ("requires (M mod 128 = 0)", "requires (M mod 64 = 0)"),
        ("block_grid [M/128, N/256]", "block_grid [M/64, N/256]"),
        ("[3, 128, 64]", "[3, 64, 64]"),
        ("Barrier[3, arrivals=2]", "Barrier[3, arrivals=1]"),
        ("warpgroup_grid [3]", "warpgroup_grid [2]"),
        ("(warpgroup 1 .. 2)", "(warpgroup 1)"),
        ("expect_tx 49152", "expect_tx 40960"),
        ("a[bm * 128 ..+ 128", "a[bm * 64 ..+ 64"),
        ("c[bm * 128 + wg * 64", "c[bm * 64 + wg * 64"),
    ]),
    dict(name="two-wgmmas-per-stage", base=GEMM, edits=[
        ("          acc <- wgmma acc a_s[s, wg * 64 ..+ 64, 0 ..+ 64] b_s[s] zero_when (k = 0)\n",
         "          acc <- wgmma acc a_s[s, wg * 64 ..+ 64, 0 ..+ 32] b_s[s, 0 ..+ 256, 0 ..+ 32] zero_when (k = 0)\n"
         "          acc <- wgmma acc a_s[s, wg * 64 ..+ 64, 32 ..+ 32] b_s[s, 0 ..+ 256, 32 ..+ 32]\n"),
    ]),
    dict(name="copies-before-their-expect-tx", base=GEMM, edits=[
        ("          arrive full[s] expect_tx 49152\n", ""),
        ("b[bn * 256 ..+ 256, k * 64 ..+ 64] completes full[s]\n",
         "b[bn * 256 ..+ 256, k * 64 ..+ 64] completes full[s]\n"
         "          arrive full[s] expect_tx 49152\n"),
    ]),
    dict(name="producer-guards-its-first-round", base=GEMM, edits=[
        ("          wait empty[s] round (k / 3 - 1)\n",
         "          if k >= 3 {\n            wait empty[s] round (k / 3 - 1)\n          }\n"),
    ]),
    dict(name="round-written-as-shifted-quotient", base=GEMM, edits=[
        ("wait empty[s] round (k / 3 - 1)", "wait empty[s] round ((k - 3) / 3)"),
    ]),
]

MUTANTS = [
    # --- the `wgmma_wait 1` ring (release the previous stage) is a correct
    # protocol the proofs accept, but code generation cannot keep a group in
    # flight over the loop's back edge (ptxas C7514 serialises every wgmma):
    # K0111 at the wait, whose fix-it (`wgmma_wait 0`) checks clean.
    dict(name="wgmma-wait-1-in-flight-across-the-back-edge", fix=True, base=GEMM, code="K0111",
         edits=[WAIT1_LOOP], at="wgmma_wait 1"),
    # --- dropped or misplaced waits
    dict(name="dropped-full-wait", fix=True, base=GEMM, code="K0620",
         edits=[("          wait full[s] round (k / 3)\n", "")],
         at="acc <- wgmma"),
    dict(name="full-wait-one-round-early", base=GEMM, code="K0621",
         edits=[("wait full[s] round (k / 3)", "wait full[s] round (k / 3 - 1)")]),
    dict(name="full-wait-one-round-late", base=GEMM, code="K0625",
         edits=[("wait full[s] round (k / 3)", "wait full[s] round (k / 3 + 1)")]),
    dict(name="full-wait-wrong-stage", base=GEMM, code="K0620",
         edits=[("wait full[s] round (k / 3)", "wait full[(k + 1) mod 3] round (k / 3)")],
         at="acc <- wgmma"),
    dict(name="full-wait-on-empty-barrier", base=GEMM, code="K0625",
         edits=[("wait full[s] round (k / 3)", "wait empty[s] round (k / 3)")]),
    # --- the producer's side of the ring
    dict(name="producer-waits-own-round-deadlock", base=GEMM, code="K0625",
         edits=[("wait empty[s] round (k / 3 - 1)", "wait empty[s] round (k / 3)")]),
    dict(name="producer-waits-two-rounds-back", base=GEMM, code="K0621",
         edits=[("wait empty[s] round (k / 3 - 1)", "wait empty[s] round (k / 3 - 2)")]),
    dict(name="producer-overruns-ring-no-empty-wait", base=GEMM, code="K0624",
         edits=[("          wait empty[s] round (k / 3 - 1)\n", "")],
         at="tma_load a_s[s]"),
    dict(name="producer-waits-wrong-stage", base=GEMM, code="K0621",
         edits=[("wait empty[s] round (k / 3 - 1)", "wait empty[(k + 1) mod 3] round (k / 3 - 1)")]),
    dict(name="copy-into-wrong-stage", base=GEMM, code="K0624",
         edits=[("tma_load a_s[s] <-", "tma_load a_s[(k + 1) mod 3] <-")]),
    # --- expect_tx bytes
    dict(name="expect-tx-too-few-bytes", fix=True, base=GEMM, code="K0622",
         edits=[("expect_tx 49152", "expect_tx 32768")]),
    dict(name="expect-tx-too-many-bytes", fix=True, base=GEMM, code="K0622",
         edits=[("expect_tx 49152", "expect_tx 65536")]),
    dict(name="expect-tx-missing", base=GEMM, code="K0622",
         edits=[("arrive full[s] expect_tx 49152", "arrive full[s]")]),
    dict(name="dropped-expect-tx-arrive", base=GEMM, code="K0622",
         edits=[("          arrive full[s] expect_tx 49152\n", "")],
         at="tma_load a_s[s]"),
    dict(name="copy-completes-on-empty", base=GEMM, code="K0622",
         edits=[("64 ..+ 64] completes full[s]\n          tma_load b_s",
                 "64 ..+ 64] completes empty[s]\n          tma_load b_s")],
         at="tma_load a_s[s]"),
    # --- arrival counts
    dict(name="empty-arrivals-one-with-two-consumers", fix=True, base=GEMM, code="K0623",
         edits=[("Barrier[3, arrivals=2]", "Barrier[3, arrivals=1]")], at="shared empty"),
    dict(name="full-arrivals-two-with-one-producer", fix=True, base=GEMM, code="K0623",
         edits=[("Barrier[3, arrivals=1]", "Barrier[3, arrivals=2]")], at="shared full"),
    dict(name="consumer-releases-on-full", base=GEMM, code="K0623",
         edits=[("          arrive empty[s]\n", "          arrive full[s]\n")],
         at="shared full"),
    dict(name="dropped-consumer-release", base=GEMM, code="K0625",
         edits=[("          arrive empty[s]\n", "")],
         at="wait empty[s]"),
    # Outside the model (one arrival per warpgroup and phase): cannot prove.
    dict(name="consumer-releases-twice", base=GEMM, code="K0650",
         edits=[("          arrive empty[s]\n        }\n", "          arrive empty[s]\n          arrive empty[s] \n        }\n")],
         at="arrive empty[s] \n"),
    # --- wgmma groups in flight
    dict(name="release-before-wgmma-wait", fix=True, base=GEMM, code="K0626",
         edits=[("          wgmma_wait 0\n          arrive empty[s]\n",
                 "          arrive empty[s]\n          wgmma_wait 0\n")]),
    dict(name="dropped-wgmma-wait", base=GEMM, code="K0626",
         edits=[("          wgmma_wait 0\n", "")], at="arrive empty[s]"),
    dict(name="wgmma-wait-1-releases-current-stage", fix=True, base=GEMM, code="K0626",
         edits=[("wgmma_wait 0", "wgmma_wait 1")], at="arrive empty[s]"),
    dict(name="dropped-wgmma-commit", fix=True, base=GEMM, code="K0632",
         edits=[("          wgmma_commit\n", "")], at="wgmma_wait 0"),
    dict(name="accumulator-read-in-flight", base=GEMM, code="K0627",
         edits=[("          wgmma_commit\n",
                 "          wgmma_commit\n"
                 "          c[bm * 128 + wg * 64 ..+ 64, bn * 256 ..+ 256] <- convert BF16 acc\n")],
         at="wgmma_commit\n          c[bm"),
    dict(name="wait1-store-without-final-wait", base=GEMM, code="K0627",
         edits=[WAIT1_LOOP, ("        wgmma_wait 0\n        arrive empty[(K/64 + 2) mod 3]\n",
                             "        arrive empty[(K/64 + 2) mod 3]\n")],
         at="c[bm * 128 + wg * 64"),
    dict(name="wait1-releases-without-guard", base=GEMM, code="K0629",
         edits=[WAIT1_LOOP, ("          if k > 0 {\n            arrive empty[(k + 2) mod 3]\n          }\n",
                             "          arrive empty[(k + 2) mod 3]\n")],
         at="arrive empty[(k + 2) mod 3]"),
    dict(name="wait1-guarded-release-of-current-stage-deadlocks", base=GEMM, code="K0625",
         edits=[WAIT1_LOOP, ("arrive empty[(k + 2) mod 3]", "arrive empty[k mod 3]")],
         at="wait empty[s]"),
    # --- register budgets (setmaxnreg)
    dict(name="consumer-registers-over-sm", fix=True, base=GEMM, code="K0921",
         edits=[("registers 232", "registers 240")]),
    dict(name="producer-registers-not-multiple-of-8", fix=True, base=GEMM, code="K0920",
         edits=[("registers 40", "registers 36")]),
    dict(name="producer-registers-below-24", fix=True, base=GEMM, code="K0920",
         edits=[("registers 40", "registers 16")]),
    dict(name="consumer-registers-above-256", fix=True, base=GEMM, code="K0920",
         edits=[("registers 232", "registers 264")]),
    dict(name="accumulator-over-role-budget", base=GEMM, code="K0922",
         edits=[("registers 232", "registers 120")], at="register acc"),
    dict(name="three-consumers-over-sm", base=GEMM, code="K0921",
         edits=[("warpgroup_grid [3]", "warpgroup_grid [4]"),
                ("role consumer (warpgroup 1 .. 2)", "role consumer (warpgroup 1 .. 3)"),
                ("Barrier[3, arrivals=2]", "Barrier[3, arrivals=3]")],
         at="role consumer"),
    # --- prologue
    dict(name="prologue-fills-one-stage-too-many", base=GEMM, code="K0624",
         edits=[(PROLOGUE[0][0], PROLOGUE[0][1].replace("192", "256")),
                (PROLOGUE[1][0], PROLOGUE[1][1].replace("(0 .. 3)", "(0 .. 4)")
                 .replace("[p]", "[p mod 3]"))],
         at="tma_load a_s[p mod 3]"),
    # --- more orderings and off-by-ones
    dict(name="commit-after-wgmma-wait", fix=True, base=GEMM, code="K0632",
         edits=[("          wgmma_commit\n          wgmma_wait 0\n",
                 "          wgmma_wait 0\n          wgmma_commit\n")], at="wgmma_wait 0"),
    dict(name="b-copy-completes-on-next-stage", base=GEMM, code="K0622",
         edits=[("64 ..+ 64] completes full[s]\n        }",
                 "64 ..+ 64] completes full[(k + 1) mod 3]\n        }")],
         at="completes full[(k + 1) mod 3]"),
    dict(name="expect-tx-arrive-duplicated", base=GEMM, code="K0650",
         edits=[("          arrive full[s] expect_tx 49152\n",
                 "          arrive full[s] expect_tx 49152\n          arrive full[s] expect_tx 49152 \n")],
         at="expect_tx 49152 \n"),
    dict(name="consumer-round-mod-instead-of-div", base=GEMM, code="K0625",
         edits=[("wait full[s] round (k / 3)", "wait full[s] round (k mod 3)")]),
    dict(name="producer-round-shifted-by-one-iteration", base=GEMM, code="K0625",
         edits=[("wait empty[s] round (k / 3 - 1)", "wait empty[s] round ((k - 1) / 3)")]),
    dict(name="producer-round-one-ahead", base=GEMM, code="K0625",
         edits=[("wait empty[s] round (k / 3 - 1)", "wait empty[s] round (k / 3 + 1)")]),
    dict(name="consumer-releases-next-stage", base=GEMM, code="K0629",
         edits=[("          arrive empty[s]\n", "          arrive empty[(k + 1) mod 3]\n")]),
    dict(name="producer-loop-one-iteration-short", base=GEMM, code="K0625",
         edits=[("      role producer (warpgroup 0) registers 40 {\n        for k in (0 .. K/64) {",
                 "      role producer (warpgroup 0) registers 40 {\n        for k in (0 .. K/64 - 1) {")],
         at="wait full[s]"),
    dict(name="consumer-loop-one-iteration-long", base=GEMM, code="K0625",
         edits=[("on=cuda:register]\n        for k in (0 .. K/64) {",
                 "on=cuda:register]\n        for k in (0 .. K/64 + 1) {")],
         at="wait full[s]"),
    dict(name="producer-arrives-before-its-empty-wait", base=GEMM, code="K0629",
         edits=[("          wait empty[s] round (k / 3 - 1)\n          arrive full[s] expect_tx 49152\n",
                 "          arrive full[s] expect_tx 49152\n          wait empty[s] round (k / 3 - 1)\n")]),
    dict(name="full-wait-after-the-wgmma", base=GEMM, code="K0620",
         edits=[("          wait full[s] round (k / 3)\n          acc <- wgmma", "          acc <- wgmma"),
                ("          wgmma_commit\n", "          wait full[s] round (k / 3)\n          wgmma_commit\n")],
         at="acc <- wgmma"),
    # --- outside the model: rejected, never accepted unproved
    dict(name="stage-depends-on-block-id", base=GEMM, code="K0650",
         edits=[("          wait full[s] round (k / 3)\n",
                 "          wait full[s] round (k / 3 + bm)\n")],
         at="wait full[s]"),
]

# ---------------------------------------------------------------------------
# The persistent kernel of coord hopper2.md (issue 12's last parts): a tile
# loop `for t in (block_id 0 .. T step 132)` around the k loop, the ring
# counter `it = (t / 132) * (K/64) + k` shared by the roles, one wgmma group
# in flight across the back edge (`wgmma_wait 1`, the previous stage released
# under `if (k > 0)`), register -> shared -> TMA store epilogue.
PERSISTENT = "gemm_bf16_hopper_persistent.kina"

# The same kernel with A from registers: each consumer loads its A slice
# with ldmatrix into a warpgroup tile, then runs wgmma on it; `wgmma_wait 0`
# in the loop (the next load rewrites a_r, so no group may read it then).
REGISTER_A = [
    ("        register acc : Tile[F32, [64, 256], on=cuda:register]\n",
     "        register acc : Tile[F32, [64, 256], on=cuda:register]\n"
     "        register a_r : Tile[BF16, [64, 64], on=cuda:register]\n"),
    ("            acc <- wgmma acc a_s[s, wg * 64 ..+ 64, 0 ..+ 64] b_s[s] zero_when (k = 0)\n"
     "            wgmma_commit\n"
     "            wgmma_wait 1\n"
     "            if (k > 0) {\n"
     "              arrive empty[(it - 1) mod 3]\n"
     "            }\n",
     "            a_r <- a_s[s, wg * 64 ..+ 64, 0 ..+ 64]\n"
     "            acc <- wgmma acc a_r b_s[s] zero_when (k = 0)\n"
     "            wgmma_commit\n"
     "            wgmma_wait 0\n"
     "            arrive empty[s]\n"),
    ("          wgmma_wait 0\n          arrive empty[((t / 132) * (K/64) + K/64 - 1) mod 3]\n", ""),
]

ACCEPT += [
    dict(name="persistent", base=PERSISTENT, edits=[]),
    dict(name="persistent-wait0-releases-current-stage", base=PERSISTENT, edits=[
        ("            wgmma_wait 1\n            if (k > 0) {\n"
         "              arrive empty[(it - 1) mod 3]\n            }\n",
         "            wgmma_wait 0\n            arrive empty[s]\n"),
        ("          wgmma_wait 0\n          arrive empty[((t / 132) * (K/64) + K/64 - 1) mod 3]\n", ""),
    ]),
    dict(name="persistent-register-a", base=PERSISTENT, edits=REGISTER_A),
    dict(name="persistent-store-waited-right-after-commit", base=PERSISTENT, edits=[
        ("          tma_store_wait 0\n          c_s[wg]", "          c_s[wg]"),
        ("          tma_store_commit\n        }\n        tma_store_wait 0\n",
         "          tma_store_commit\n          tma_store_wait 0\n        }\n"),
    ]),
    dict(name="persistent-ring-counter-as-sum", base=PERSISTENT, edits=[
        ("let it = (t / 132) * (K/64) + k in\n            let s = it mod 3 in\n            wait empty",
         "let it = k + (t / 132) * (K/64) in\n            let s = it mod 3 in\n            wait empty"),
    ]),
]

MUTANTS += [
    # --- the ring across tiles
    dict(name="persistent-dropped-full-wait", base=PERSISTENT, code="K0620",
         edits=[("            wait full[s] round (it / 3)\n", "")], at="acc <- wgmma"),
    dict(name="persistent-ring-restarts-each-tile", base=PERSISTENT, code="K0621",
         edits=[("let it = (t / 132) * (K/64) + k in\n            let s = it mod 3 in\n            wait empty",
                 "let it = k in\n            let s = it mod 3 in\n            wait empty"),
                ("let it = (t / 132) * (K/64) + k in\n            let s = it mod 3 in\n            wait full",
                 "let it = k in\n            let s = it mod 3 in\n            wait full"),
                ("arrive empty[((t / 132) * (K/64) + K/64 - 1) mod 3]",
                 "arrive empty[(K/64 - 1) mod 3]")],
         at="wait empty[s]"),
    dict(name="persistent-consumer-ring-restarts-each-tile", base=PERSISTENT, code="K0621",
         edits=[("let it = (t / 132) * (K/64) + k in\n            let s = it mod 3 in\n            wait full",
                 "let it = k in\n            let s = it mod 3 in\n            wait full"),
                ("arrive empty[((t / 132) * (K/64) + K/64 - 1) mod 3]",
                 "arrive empty[(K/64 - 1) mod 3]")],
         at="wait full[s]"),
    dict(name="persistent-producer-round-from-k", base=PERSISTENT, code="K0621",
         edits=[("wait empty[s] round (it / 3 - 1)", "wait empty[s] round (k / 3 - 1)")]),
    dict(name="persistent-consumer-round-one-early", base=PERSISTENT, code="K0621",
         edits=[("wait full[s] round (it / 3)", "wait full[s] round (it / 3 - 1)")]),
    dict(name="persistent-consumer-tile-stride-halved", base=PERSISTENT, code="K0650",
         edits=[("register]\n        for t in (block_id 0 .. (M/128) * (N/256) step 132) {",
                 "register]\n        for t in (block_id 0 .. (M/128) * (N/256) step 66) {")],
         at="step 66"),
    dict(name="persistent-producer-tiles-from-zero", base=PERSISTENT, code="K0650",
         edits=[("registers 40 {\n        for t in (block_id 0 .. (M/128) * (N/256) step 132) {",
                 "registers 40 {\n        for t in (0 .. (M/128) * (N/256) step 132) {")],
         at="for t in (0 .."),
    # --- one group in flight across the back edge
    dict(name="persistent-wait-2-releases-in-flight-stage", base=PERSISTENT, code="K0626",
         edits=[("wgmma_wait 1", "wgmma_wait 2")], at="arrive empty[(it - 1) mod 3]"),
    dict(name="persistent-guarded-release-of-current-stage", base=PERSISTENT, code="K0626",
         edits=[("arrive empty[(it - 1) mod 3]", "arrive empty[it mod 3]")]),
    dict(name="persistent-release-without-guard", base=PERSISTENT, code="K0629",
         edits=[("            if (k > 0) {\n              arrive empty[(it - 1) mod 3]\n            }\n",
                 "            arrive empty[(it - 1) mod 3]\n")]),
    dict(name="persistent-no-final-wgmma-wait", base=PERSISTENT, code="K0626",
         edits=[("          wgmma_wait 0\n          arrive empty[((t", "          arrive empty[((t")],
         at="arrive empty[((t / 132)"),
    dict(name="persistent-dropped-tile-release", base=PERSISTENT, code="K0625",
         edits=[("          arrive empty[((t / 132) * (K/64) + K/64 - 1) mod 3]\n", "")],
         at="wait empty[s]"),
    dict(name="persistent-tile-release-one-stage-late", base=PERSISTENT, code="K0629",
         edits=[("arrive empty[((t / 132) * (K/64) + K/64 - 1) mod 3]",
                 "arrive empty[((t / 132) * (K/64) + K/64) mod 3]")]),
    dict(name="persistent-store-before-final-wgmma-wait", fix=True, base=PERSISTENT, code="K0627",
         edits=[("          wgmma_wait 0\n          arrive empty[((t / 132) * (K/64) + K/64 - 1) mod 3]\n"
                 "          tma_store_wait 0\n          c_s[wg] <- convert BF16 acc\n",
                 "          tma_store_wait 0\n          c_s[wg] <- convert BF16 acc\n"
                 "          wgmma_wait 0\n          arrive empty[((t / 132) * (K/64) + K/64 - 1) mod 3]\n")],
         at="c_s[wg] <- convert"),
    # --- register A in flight
    dict(name="persistent-register-a-rewritten-in-flight", base=PERSISTENT, code="K0635",
         edits=[REGISTER_A[0], (REGISTER_A[1][0], REGISTER_A[1][1]
                .replace("wgmma_wait 0\n            arrive empty[s]\n",
                         "wgmma_wait 1\n            if (k > 0) {\n"
                         "              arrive empty[(it - 1) mod 3]\n            }\n"))],
         at="a_r <- a_s"),
    # --- TMA store bulk groups
    dict(name="persistent-dropped-store-wait-before-rewrite", fix=True, base=PERSISTENT, code="K0636",
         edits=[("          tma_store_wait 0\n          c_s[wg]", "          c_s[wg]")],
         at="c_s[wg] <- convert"),
    dict(name="persistent-store-wait-1-before-rewrite", fix=True, base=PERSISTENT, code="K0636",
         edits=[("          tma_store_wait 0\n          c_s[wg]", "          tma_store_wait 1\n          c_s[wg]")],
         at="c_s[wg] <- convert"),
    dict(name="persistent-dropped-final-store-wait", fix=True, base=PERSISTENT, code="K0637",
         edits=[("          tma_store_commit\n        }\n        tma_store_wait 0\n",
                 "          tma_store_commit\n        }\n")],
         at="tma_store c["),
    dict(name="persistent-dropped-store-commit", fix=True, base=PERSISTENT, code="K0638",
         edits=[("          tma_store_commit\n        }\n        tma_store_wait 0\n",
                 "        }\n        tma_store_wait 0\n")],
         at="tma_store c["),
    dict(name="persistent-dropped-proxy-fence", fix=True, base=PERSISTENT, code="K0628",
         edits=[("          fence_proxy_async\n", "")], at="tma_store c["),
    dict(name="persistent-proxy-fence-before-the-store", base=PERSISTENT, code="K0628",
         edits=[("          c_s[wg] <- convert BF16 acc\n          fence_proxy_async\n",
                 "          fence_proxy_async\n          c_s[wg] <- convert BF16 acc\n")],
         at="tma_store c["),
    dict(name="persistent-consumers-share-one-store-stage", base=PERSISTENT, code="K0633",
         edits=[("          c_s[wg] <- convert BF16 acc\n", "          c_s[0] <- convert BF16 acc\n"),
                ("<- c_s[wg]\n", "<- c_s[0]\n")],
         at="c_s[0] <- convert"),
]
