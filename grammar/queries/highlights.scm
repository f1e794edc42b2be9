; Kina highlights (nvim-treesitter capture names).

(comment) @comment
(mut) @keyword.modifier

[
  "kernel" "tile" "fn"
] @keyword.function

[
  "requires" "capability" "let" "in" "shared" "register"
] @keyword

[ "tune" ] @keyword
(tune_parameter name: (identifier) @constant)

[ "for" ] @keyword.repeat
[ "if" "else" ] @keyword.conditional
[ "return" ] @keyword.return

[
  "block_grid" "warp_grid" "warpgroup_grid" "role" "warpgroup" "registers" "cluster" "step"
] @keyword

[
  "arrive" "expect_tx" "wait" "round" "tma_load" "completes" "multicast" "wgmma" "zero_when" "wgmma_wait"
  "tma_store" "tma_store_wait"
] @function.builtin
(tma_store_commit) @function.builtin
(wgmma_commit) @function.builtin
(wgmma_wait) @function.builtin
(fence_proxy_async) @function.builtin
(role name: (identifier) @label)
((identifier) @variable.builtin (#eq? @variable.builtin "warpgroup_id"))
((identifier) @variable.builtin (#eq? @variable.builtin "cluster_rank"))

[ "cp_async" "cp_async_wait_group" ] @function.builtin

; Masks and ragged edges: `x[...] masked fill 0.0`, `out[...] masked <- v`.
(masked_access "masked" @keyword.modifier)
(masked_access "fill" @function.builtin)
((identifier) @variable.builtin (#eq? @variable.builtin "row_index"))
((identifier) @variable.builtin (#eq? @variable.builtin "col_index"))

(cp_async_commit) @function.builtin
(cp_async_wait_all) @function.builtin
(block_sync) @function.builtin

[ "Tensor" "Tile" "Barrier" ] @type.builtin
(dtype (identifier) @type.builtin)
(scalar_type (dtype (identifier) @type.builtin))

[ "on" "cuda" "global" "layout" "arrivals" "Sharded" "Replicated" "dim" "mesh" ] @attribute
(host_placement) @attribute
(shared_placement) @attribute
(register_placement) @attribute

(kernel_definition name: (identifier) @function)
(tile_function name: (identifier) @function)
(host_function name: (identifier) @function)

(application
  function: (identifier) @function.builtin
  (#any-of? @function.builtin
    "wmma_mma" "dp4a_mma" "fill" "block_id" "warp_id" "convert" "relu" "exp" "exp2" "neg" "abs"
    "sqrt" "rsqrt" "recip" "add" "sub" "mul" "div" "max" "min" "row_sum" "row_max"
    "transpose" "matmul" "copy_to_device" "copy_to_host" "floor_div" "ceil_div"
    "col_sum" "col_max" "block_sum" "block_max" "all_reduce" "all_gather" "reduce_scatter"))
(application function: (identifier) @function.call)

(dim_params dim: (identifier) @constant)
(parameter name: (identifier) @variable.parameter)
(named_result name: (identifier) @variable.parameter)
(capability_requirement target: (identifier) @constant.builtin)
(capability_requirement capability: (identifier) @constant.builtin)

(integer) @number
(float) @number.float

[ "<-" ] @operator
[ "=" "!=" "<" "<=" ">" ">=" "+" "-" "*" "/" "mod" ".." "..+" ] @operator
[ "(" ")" "[" "]" "{" "}" ] @punctuation.bracket
[ "," ":" ] @punctuation.delimiter

(identifier) @variable
