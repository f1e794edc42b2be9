"""Writes a Kina file of at least 5 MiB: copies of a valid elementwise kernel
(stdlib/elementwise.kina style, renamed add_0, add_1, ...) and, last, a kernel
whose `let` lacks its `in`. Used by large-5mb.kina."""
import sys

KERNEL = """kernel add_{n}
    [M, N]
    requires (M mod 64 = 0)
    requires (N mod 64 = 0)
    requires capability(sm_80)
    (x : Tensor[F32, [M, N], on=cuda:global])
    (y : Tensor[F32, [M, N], on=cuda:global])
    : (out : Tensor[F32, [M, N], on=cuda:global]) {{
  block_grid [M/64, N/64] {{
    let bm = block_id 0 in
    let bn = block_id 1 in
    warp_grid [4] {{
      let row = bm * 64 + warp_id 0 * 16 in
      register xr : Tile[F32, [16, 64], on=cuda:register]
      register yr : Tile[F32, [16, 64], on=cuda:register]
      xr <- x[row ..+ 16, bn * 64 ..+ 64]
      yr <- y[row ..+ 16, bn * 64 ..+ 64]
      out[row ..+ 16, bn * 64 ..+ 64] <- add xr yr
    }}
  }}
}}
"""

BROKEN = """kernel broken
    [M]
    requires (M mod 64 = 0)
    requires capability(sm_80)
    (x : Tensor[F32, [M, 64], on=cuda:global])
    : (out : Tensor[F32, [M, 64], on=cuda:global]) {
  block_grid [M/64] {
    let a = 3
  }
}
"""

parts, size, n = [], 0, 0
while size < 5 * 1024 * 1024:
    text = KERNEL.format(n=n)
    parts.append(text)
    size += len(text)
    n += 1
parts.append(BROKEN)
with open(sys.argv[1], "w", encoding="utf-8") as out:
    out.write("".join(parts))
