; Foldable regions.
[
  (kernel_definition)
  (tile_function)
  (host_function)
  (block)
] @fold
