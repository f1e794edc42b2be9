-- Synchronised PTX/SASS views (issue 17, part 3). When the cursor moves in a
-- Kina buffer, the visible :KinaPTX / :KinaSASS buffers of that source
-- highlight the instructions of the statement under the cursor (extmarks
-- with line_hl_group KinaSyncLine, from kina/linesAt: the server answers
-- from its artifact cache, so a cursor move never compiles). In a PTX/SASS
-- buffer, :KinaSource jumps from the instruction under the cursor to its
-- Kina line (kina/sourceOf). Works on Neovim 0.7 and 0.10.
local lsp = require('kina.lsp')

local M = {}

M.ns = vim.api.nvim_create_namespace('kina_linesync')
vim.cmd('highlight default link KinaSyncLine Visual')

local VIEW_KINDS = { ptx = 'ptx', sass = 'sass' }

--- The visible PTX/SASS buffers of source buffer `src`: list of {buf, win, kind, kernel}.
local function views_of(src)
  local out = {}
  for buf, a in pairs(require('kina.commands').artifact_buffers()) do
    if a.source == src and VIEW_KINDS[a.kind] and vim.api.nvim_buf_is_valid(buf) then
      local win = vim.fn.bufwinid(buf)
      if win ~= -1 then
        table.insert(out, { buf = buf, win = win, kind = a.kind, kernel = a.kernel })
      end
    end
  end
  return out
end

--- Highlights the statement under the cursor of `src` in its views; calls
--- done(result) (tests) with the kina/linesAt result.
function M.sync(src, done)
  src = src or vim.api.nvim_get_current_buf()
  local views = views_of(src)
  if #views == 0 then
    return false
  end
  local params = vim.lsp.util.make_position_params()
  lsp.request(src, 'kina/linesAt', params, function(err, r)
    if err or type(r) ~= 'table' then
      return
    end
    for _, v in ipairs(views) do
      if vim.api.nvim_buf_is_valid(v.buf) then
        vim.api.nvim_buf_clear_namespace(v.buf, M.ns, 0, -1)
        local lines = (v.kernel == r.kernel) and r[v.kind] or {}
        local count = vim.api.nvim_buf_line_count(v.buf)
        for _, l in ipairs(lines) do
          if l < count then
            vim.api.nvim_buf_set_extmark(v.buf, M.ns, l, 0, { line_hl_group = 'KinaSyncLine' })
          end
        end
        local focus = (v.kernel == r.kernel) and r[v.kind .. 'Focus'] or nil
        if type(focus) == 'number' and focus < count and vim.api.nvim_win_is_valid(v.win) then
          vim.api.nvim_win_set_cursor(v.win, { focus + 1, 0 })
        end
      end
    end
    if done then
      done(r)
    end
  end)
  return true
end

--- Buffer-local autocommand: sync on cursor moves in a Kina buffer.
function M.attach(buf)
  local group = vim.api.nvim_create_augroup('kina_linesync_' .. buf, { clear = true })
  vim.api.nvim_create_autocmd({ 'CursorMoved', 'CursorHold' }, {
    group = group,
    buffer = buf,
    callback = function()
      M.sync(buf)
    end,
  })
end

--- :KinaSource in a PTX/SASS buffer: to the Kina line of the instruction under the cursor.
function M.goto_source(done)
  local buf = vim.api.nvim_get_current_buf()
  local a = require('kina.commands').artifact_buffers()[buf]
  if not a or not VIEW_KINDS[a.kind] then
    vim.notify('kina: :KinaSource works in a :KinaPTX or :KinaSASS buffer', vim.log.levels.WARN)
    return false
  end
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  local params = { textDocument = { uri = vim.uri_from_bufnr(a.source) }, kernel = a.kernel, kind = a.kind, line = line }
  lsp.request(a.source, 'kina/sourceOf', params, function(err, r)
    if err or type(r) ~= 'table' or r.line == nil or r.line == vim.NIL then
      vim.notify('kina: this instruction has no Kina line (compiler-made code)', vim.log.levels.INFO)
      return
    end
    local win = vim.fn.bufwinid(a.source)
    if win == -1 then
      vim.cmd('split')
      win = vim.api.nvim_get_current_win()
      vim.api.nvim_win_set_buf(win, a.source)
    end
    vim.api.nvim_set_current_win(win)
    vim.api.nvim_win_set_cursor(win, { r.line + 1, 0 })
    if done then
      done(r)
    end
  end)
  return true
end

return M
