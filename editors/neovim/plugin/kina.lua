-- Kina for Neovim (0.7 and 0.10+): defines the :Kina* commands and starts
-- kina-lsp for every kina buffer. Options come from require('kina').setup();
-- without a setup() call the defaults apply. Set vim.g.kina_no_autostart = 1
-- to start the server only through setup({ autostart = true }) or :KinaRestart.
if vim.g.loaded_kina then
  return
end
vim.g.loaded_kina = 1

if vim.filetype and vim.filetype.add then
  vim.filetype.add({ extension = { kina = 'kina' } })
end

require('kina.commands').define()

local group = vim.api.nvim_create_augroup('kina', { clear = true })
vim.api.nvim_create_autocmd('FileType', {
  group = group,
  pattern = 'kina',
  callback = function(args)
    require('kina').on_filetype(args.buf)
  end,
})
