-- :checkhealth kina: the Neovim version, kina-lsp, the tree-sitter parser.
local M = {}

local health = vim.health or require('health')
local ok = health.ok or health.report_ok
local warn = health.warn or health.report_warn
local err = health.error or health.report_error
local start = health.start or health.report_start

function M.check()
  start('kina')
  local v = vim.version()
  local version = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.10') == 1 then
    ok('Neovim ' .. version .. ': vim.lsp.start, inlay hints, semantic tokens')
  elseif vim.fn.has('nvim-0.7') == 1 then
    ok('Neovim ' .. version .. ': vim.lsp.start_client (no inlay hints or semantic tokens before 0.10)')
  else
    err('Neovim ' .. version .. ' is too old: kina needs 0.7 or newer')
  end
  local util = require('kina.util')
  local cmd, tried = require('kina.lsp').server_cmd(util.root_dir(vim.fn.getcwd() .. '/x'))
  if cmd then
    ok('kina-lsp: ' .. table.concat(cmd, ' '))
  else
    err('kina-lsp not found (tried: ' .. table.concat(tried, '; ') .. ')')
  end
  local ts = require('kina.treesitter')
  if ts.register(require('kina').config.grammar_dir) then
    ok('tree-sitter-kina parser and queries registered')
    if ts.last_error then
      warn(ts.last_error)
    end
  else
    warn('tree-sitter-kina not available: ' .. tostring(ts.last_error))
  end
end

return M
