" Highlighting for the PTX buffers opened by :KinaPTX.
if exists('b:current_syntax')
  finish
endif
syn match kinaPtxComment '//.*$'
syn region kinaPtxComment start='/\*' end='\*/'
syn match kinaPtxDirective '\.\(version\|target\|address_size\|visible\|entry\|func\|extern\|param\|reg\|shared\|global\|local\|const\|align\|maxntid\|reqntid\|pragma\)\>'
syn match kinaPtxType '\.\([busf]\(8\|16\|32\|64\)\|f16x2\|bf16\|pred\|v2\|v4\)\>'
syn match kinaPtxRegister '%\h[a-zA-Z0-9_.]*'
syn match kinaPtxLabel '^\s*\$\?\h[a-zA-Z0-9_$]*:'
syn match kinaPtxNumber '\<\(0[xXfFdD]\x\+\|\d\+\)\>'
hi def link kinaPtxComment Comment
hi def link kinaPtxDirective PreProc
hi def link kinaPtxType Type
hi def link kinaPtxRegister Identifier
hi def link kinaPtxLabel Label
hi def link kinaPtxNumber Number
let b:current_syntax = 'kina_ptx'
