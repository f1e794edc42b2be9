" Kina: .kina files are filetype kina (works on every Neovim; 0.7+ also
" reads the vim.filetype.add() table in plugin/kina.lua).
autocmd BufRead,BufNewFile *.kina setfiletype kina
