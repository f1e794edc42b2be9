" Regex highlighting for Kina, used when tree-sitter highlighting is off
" (always on Neovim 0.7). The keyword groups mirror grammar/grammar.js;
" tests/editors/syntax-sync.test.js fails when they drift apart.
if exists('b:current_syntax')
  finish
endif

syn keyword kinaStorage kernel tile fn shared register let mut
syn keyword kinaRequires requires capability
syn keyword kinaRequires tune
syn keyword kinaControl for in if else return
syn keyword kinaGrid block_grid warp_grid warpgroup_grid role warpgroup registers cluster step
syn keyword kinaAsync cp_async cp_async_commit cp_async_wait_all cp_async_wait_group block_sync
syn keyword kinaAsync arrive expect_tx wait round tma_load completes multicast masked fill wgmma zero_when wgmma_commit wgmma_wait fence_proxy_async
syn keyword kinaAsync tma_store tma_store_commit tma_store_wait
syn keyword kinaStorage masked
syn keyword kinaOperatorWord mod
syn keyword kinaPlacement on host cuda global layout arrivals Sharded Replicated dim mesh
syn keyword kinaType Tensor Tile Barrier
" Not keywords: identifiers the checker knows (dtypes, primitive ops).
syn keyword kinaDtype F16 BF16 F32 F64 TF32 I8 U8 I16 U16 I32 U32 I64 U64 E4M3 E5M2 FP8_E4M3 FP8_E5M2 Bool
syn keyword kinaBuiltin block_id warp_id warpgroup_id cluster_rank wmma_mma mma_sync ldmatrix copy_to_device copy_to_host matmul relu exp max sum convert all_reduce all_gather reduce_scatter
syn match kinaTarget '\<sm_\d\+[a-z]\?\>'
syn match kinaFloat '\<\d[0-9_]*\.\d[0-9_]*\([eE][+-]\?\d\+\)\?\>'
syn match kinaNumber '\<\(0x[0-9a-fA-F_]\+\|\d[0-9_]*\)\>'
syn match kinaOperator '<-\|\.\.+\|\.\.\|!=\|<=\|>=\|[=<>+*/-]'
syn match kinaItemName '\(\<\(kernel\|tile\|fn\)\s\+\)\@<=\h\w*'
syn keyword kinaTodo TODO FIXME NOTE contained
syn match kinaComment '//.*$' contains=kinaTodo,@Spell

hi def link kinaStorage StorageClass
hi def link kinaRequires PreProc
hi def link kinaControl Conditional
hi def link kinaGrid Repeat
hi def link kinaAsync Statement
hi def link kinaOperatorWord Operator
hi def link kinaPlacement Constant
hi def link kinaType Type
hi def link kinaDtype Type
hi def link kinaBuiltin Function
hi def link kinaTarget Constant
hi def link kinaFloat Float
hi def link kinaNumber Number
hi def link kinaOperator Operator
hi def link kinaItemName Function
hi def link kinaTodo Todo
hi def link kinaComment Comment

let b:current_syntax = 'kina'
