; Indentation for tree-sitter-kina in nvim-treesitter's capture conventions
; (@indent.begin opens an indented region, @indent.branch lines up with its
; opener, @indent.end closes it, @indent.auto keeps the previous indent).
; Owned by the editors; checked against the parser by tests/editors/neovim.

[
  (block)
  (shape)
  (dim_params)
  (index_expression)
  (parenthesized_expression)
  (range)
  (capability_requirement)
  (tensor_type)
  (tile_type)
] @indent.begin

(block "}" @indent.end)

[
  "}"
  "]"
  ")"
] @indent.branch

(comment) @indent.auto
