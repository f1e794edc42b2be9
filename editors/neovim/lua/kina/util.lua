-- Small helpers shared by the Kina modules: version checks, the kernel under
-- the cursor, project roots and executables. No LSP or UI here.
local M = {}

--- True on Neovim 0.10 or newer (vim.lsp.start, inlay hints, semantic tokens).
function M.has_010()
  return vim.fn.has('nvim-0.10') == 1
end

--- Names and 1-based lines of the kernels in a buffer.
function M.kernels(buf)
  local out = {}
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local name = line:match('^%s*kernel%s+([%a_][%w_]*)')
    if name then
      table.insert(out, { name = name, line = i })
    end
  end
  return out
end

--- The kernel whose definition encloses or last precedes the cursor, else the first one.
function M.kernel_at_cursor(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  local kernels = M.kernels(buf)
  if #kernels == 0 then
    return nil
  end
  local row = vim.api.nvim_win_get_cursor(0)[1]
  local best = kernels[1]
  for _, k in ipairs(kernels) do
    if k.line <= row then
      best = k
    end
  end
  return best.name
end

--- The dimension parameters `[M, N, K]` of a kernel's header.
function M.kernel_dims(buf, kernel)
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
  local dims = text:match('kernel%s+' .. kernel .. '%s*%[([^%]]*)%]')
  local out = {}
  for d in (dims or ''):gmatch('[%a_][%w_]*') do
    table.insert(out, d)
  end
  return out
end

local function exists(path)
  return (vim.loop or vim.uv).fs_stat(path) ~= nil
end
M.exists = exists

--- The project root: the nearest folder above `path` holding .git, else path's folder.
function M.root_dir(path)
  local dir = vim.fn.fnamemodify(path, ':p:h')
  local cur = dir
  while cur and cur ~= '' do
    if exists(cur .. '/.git') then
      return cur
    end
    local parent = vim.fn.fnamemodify(cur, ':h')
    if parent == cur then
      break
    end
    cur = parent
  end
  return dir
end

--- The folder of this plugin (editors/neovim).
function M.plugin_dir()
  local src = debug.getinfo(1, 'S').source:sub(2)
  return vim.fn.fnamemodify(src, ':p:h:h:h')
end

--- Calls a client method: `client.name(...)` up to 0.10, `client:name(...)` from 0.11 on.
function M.client_call(client, method, ...)
  if vim.fn.has('nvim-0.11') == 1 then
    return client[method](client, ...)
  end
  return client[method](...)
end

return M
