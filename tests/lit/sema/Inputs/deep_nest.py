#!/usr/bin/env python3
"""Writes a kernel with DEPTH nested `for` loops (tests/lit/sema/deep-nest-*).

Usage: deep_nest.py DEPTH KIND
  KIND plain  -- loops over K/16 around a register load and a result store
  KIND fence  -- every level copies into a shared tile, waits, synchronizes,
                 reads it and synchronizes again, so the fence analysis has
                 work at every level (the shape that made it exponential)
  KIND small  -- loops of two iterations (constant trip counts, which the
                 fence analysis unrolls) around the same fenced body
"""
import sys

depth, kind = int(sys.argv[1]), sys.argv[2]
out = []
out.append("kernel nest [M, K]")
out.append("    requires (M mod 64 = 0)")
out.append("    requires (K mod 64 = 0)")
out.append("    requires capability(sm_80, cp_async)")
out.append("    (a : Tensor[F16, [M, K], on=cuda:global])")
out.append("    : (out : Tensor[F16, [M, 64], on=cuda:global]) {")
out.append("  block_grid [M/64] {")
out.append("    let bm = block_id 0 in")
out.append("    shared s : Tile[F16, [64, 64], on=cuda:shared]")
out.append("    warp_grid [4] {")
out.append("      let w = warp_id 0 in")
out.append("      register r : Tile[F16, [16, 64], on=cuda:register]")
out.append("      r <- a[bm * 64 + w * 16 ..+ 16, 0 ..+ 64]")


def fenced(indent):
    return [
        indent + "cp_async s <- a[bm * 64 ..+ 64, 0 ..+ 64]",
        indent + "cp_async_commit",
        indent + "cp_async_wait_all",
        indent + "block_sync",
        indent + "r <- s[w * 16 ..+ 16, 0 ..+ 64]",
        indent + "block_sync",
    ]


for d in range(depth):
    ind = "      " + "  " * d
    rng = "(0 .. 2)" if kind == "small" else "(0 .. K/64)"
    out.append(f"{ind}for i{d} in {rng} {{")
    if kind != "plain":
        out.extend(fenced(ind + "  "))
inner = "      " + "  " * depth
if kind == "plain":
    out.append(inner + "r <- a[bm * 64 + w * 16 ..+ 16, 0 ..+ 64]")
for d in reversed(range(depth)):
    out.append("      " + "  " * d + "}")
out.append("      out[bm * 64 + w * 16 ..+ 16, 0 ..+ 64] <- r")
out.append("    }")
out.append("  }")
out.append("}")
print("\n".join(out))
