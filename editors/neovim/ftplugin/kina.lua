-- Buffer settings for kina files: `//` comments, two-space indentation
-- (seed 003's style), brace-based automatic indentation.
if vim.b.did_ftplugin then
  return
end
vim.b.did_ftplugin = 1

vim.bo.commentstring = '// %s'
vim.bo.comments = '://'
vim.bo.expandtab = true
vim.bo.shiftwidth = 2
vim.bo.softtabstop = 2
vim.bo.autoindent = true
vim.bo.smartindent = true
vim.b.undo_ftplugin = 'setlocal commentstring< comments< expandtab< shiftwidth< softtabstop< autoindent< smartindent<'
