-- Kina for Neovim: configuration and the per-buffer entry point. The plugin
-- stays thin: kina-lsp provides every language feature; this module decides
-- how to start it (kina.lsp), which commands exist (kina.commands) and whether
-- tree-sitter highlighting is used (kina.treesitter).
local M = {}

local defaults = {
  -- Command that starts the server; nil: $KINA_LSP, `kina-lsp` on PATH, then
  -- build/lsp-server/kina-lsp under the project root.
  cmd = nil,
  -- Target GPU (kina.target); also set with :KinaTarget.
  target = 'sm_90a',
  -- Backend the checker proves for (kina.backend): 'ptx' or 'tileir', as
  -- `kina check --backend`.
  backend = 'ptx',
  -- Diagnostics debounce in ms; nil lets the server adapt it.
  debounce_ms = nil,
  -- Start kina-lsp for kina buffers.
  autostart = true,
  -- Show inlay hints (Neovim 0.10+).
  inlay_hints = true,
  -- Register the tree-sitter parser built from grammar/ and its queries;
  -- highlight with it on Neovim 0.10+ (0.7 keeps syntax/kina.vim).
  treesitter = true,
  -- The tree-sitter-kina folder (grammar.js, src/, queries/); nil: the
  -- repository's grammar/ next to this plugin.
  grammar_dir = nil,
  -- Called as on_attach(client, bufnr) after the server attaches.
  on_attach = nil,
  -- Extra client capabilities merged into the defaults.
  capabilities = nil,
}

M.config = vim.deepcopy(defaults)

--- Overrides the defaults; safe to call more than once.
function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  if M.config.treesitter then
    require('kina.treesitter').register(M.config.grammar_dir)
  end
  -- Buffers opened before setup() get the new configuration too.
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].filetype == 'kina' then
      M.on_filetype(buf)
    end
  end
end

--- Runs for each buffer whose filetype becomes kina.
function M.on_filetype(buf)
  if M.config.treesitter then
    require('kina.treesitter').attach(buf, M.config.grammar_dir)
  end
  if M.config.autostart and vim.g.kina_no_autostart ~= 1 then
    require('kina.lsp').attach(buf)
  end
  require('kina.linesync').attach(buf) -- PTX/SASS views follow the cursor
end

return M
