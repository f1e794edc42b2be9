-- Starts kina-lsp and attaches it to kina buffers: vim.lsp.start on Neovim
-- 0.10+ (with inlay hints and semantic tokens), vim.lsp.start_client +
-- buf_attach_client on 0.7. Forwards `kina.target` / `kina.backend` /
-- `kina.debounceMs` as
-- initializationOptions and settings, relays $/progress of kina/run to the
-- run buffer, and explains a missing server once instead of failing silently.
local util = require('kina.util')

local M = {}

local clients_by_root = {} -- 0.7 only: root_dir -> client id
local progress_listeners = {} -- work-done token -> function(value)
local warned_missing = false

local function config()
  return require('kina').config
end

--- The server command line, or nil and the places that were tried.
function M.server_cmd(root)
  local cmd = config().cmd
  if type(cmd) == 'string' then
    cmd = { cmd }
  end
  if cmd then
    return cmd
  end
  local tried = {}
  local env = os.getenv('KINA_LSP')
  if env and env ~= '' then
    table.insert(tried, '$KINA_LSP=' .. env)
    if vim.fn.executable(env) == 1 then
      return { env }
    end
  end
  table.insert(tried, 'kina-lsp on PATH')
  if vim.fn.executable('kina-lsp') == 1 then
    return { 'kina-lsp' }
  end
  local built = root .. '/build/lsp-server/kina-lsp'
  table.insert(tried, built)
  if vim.fn.executable(built) == 1 then
    return { built }
  end
  return nil, tried
end

function M.settings()
  local c = config()
  return { kina = { target = c.target, backend = c.backend, debounceMs = c.debounce_ms } }
end

local function init_options()
  local c = config()
  return { target = c.target, backend = c.backend, debounceMs = c.debounce_ms }
end

local function on_progress(err, result, ctx, cfg)
  local listener = result and progress_listeners[result.token]
  if listener then
    listener(result.value or {})
    if result.value and result.value.kind == 'end' then
      progress_listeners[result.token] = nil
    end
    return
  end
  return vim.lsp.handlers['$/progress'](err, result, ctx, cfg)
end

--- Calls fn(value) for each $/progress notification carrying `token`.
function M.on_progress(token, fn)
  progress_listeners[token] = fn
end

local function on_attach(client, buf)
  local c = config()
  if util.has_010() and c.inlay_hints and client.server_capabilities.inlayHintProvider and vim.lsp.inlay_hint then
    pcall(vim.lsp.inlay_hint.enable, true, { bufnr = buf })
  end
  if c.on_attach then
    c.on_attach(client, buf)
  end
end

local function client_config(buf, root, cmd)
  local capabilities = vim.lsp.protocol.make_client_capabilities()
  if config().capabilities then
    capabilities = vim.tbl_deep_extend('force', capabilities, config().capabilities)
  end
  return {
    name = 'kina-lsp',
    cmd = cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = init_options(),
    settings = M.settings(),
    capabilities = capabilities,
    handlers = { ['$/progress'] = on_progress },
    on_attach = on_attach,
    on_init = function(client)
      util.client_call(client, 'notify', 'workspace/didChangeConfiguration', { settings = M.settings() })
    end,
  }
end

--- Starts (or reuses) the server for the buffer's project and attaches it.
function M.attach(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  local root = util.root_dir(name ~= '' and name or vim.fn.getcwd() .. '/x')
  local cmd, tried = M.server_cmd(root)
  if not cmd then
    if not warned_missing then
      warned_missing = true
      vim.notify(
        'kina: the language server kina-lsp was not found (tried: ' .. table.concat(tried, '; ') .. '). '
          .. 'Highlighting works without it; diagnostics, hover, :KinaPTX and :KinaRun need it. '
          .. "Build it (ninja -C build kina-lsp) or pass require('kina').setup({ cmd = { '/path/to/kina-lsp' } }).",
        vim.log.levels.ERROR
      )
    end
    return nil
  end
  if util.has_010() then
    return vim.lsp.start(client_config(buf, root, cmd), { bufnr = buf })
  end
  local id = clients_by_root[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or client.is_stopped() then -- 0.7 only
    id = vim.lsp.start_client(client_config(buf, root, cmd))
    if not id then
      vim.notify('kina: kina-lsp (' .. table.concat(cmd, ' ') .. ') failed to start', vim.log.levels.ERROR)
      return nil
    end
    clients_by_root[root] = id
  end
  vim.lsp.buf_attach_client(buf, id)
  return id
end

--- The kina-lsp client attached to buf, if any.
function M.client(buf)
  local list
  if vim.lsp.get_clients then
    list = vim.lsp.get_clients({ bufnr = buf, name = 'kina-lsp' })
  else
    list = vim.tbl_filter(function(c)
      return c.name == 'kina-lsp'
    end, vim.tbl_values(vim.lsp.buf_get_clients(buf)))
  end
  return list[1]
end

local function all_clients()
  local list = vim.lsp.get_clients and vim.lsp.get_clients({ name = 'kina-lsp' }) or vim.lsp.get_active_clients()
  return vim.tbl_filter(function(c)
    return c.name == 'kina-lsp'
  end, list)
end

--- Sends a request for buf's document; handler(err, result). Explains a missing server.
function M.request(buf, method, params, handler)
  local client = M.client(buf)
  if not client then
    vim.notify('kina: kina-lsp is not attached to this buffer (see :checkhealth kina)', vim.log.levels.ERROR)
    return false
  end
  return util.client_call(client, 'request', method, params, function(err, result)
    handler(err, result)
  end, buf)
end

--- Pushes the current settings to every running kina-lsp.
function M.notify_settings()
  for _, client in ipairs(all_clients()) do
    client.config.settings = M.settings()
    util.client_call(client, 'notify', 'workspace/didChangeConfiguration', { settings = M.settings() })
  end
end

--- Stops every kina-lsp and starts it again for each kina buffer.
function M.restart()
  local clients = all_clients()
  for _, client in ipairs(clients) do
    util.client_call(client, 'stop')
  end
  clients_by_root = {}
  warned_missing = false
  vim.defer_fn(function()
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].filetype == 'kina' then
        M.attach(buf)
      end
    end
  end, 500)
end

return M
