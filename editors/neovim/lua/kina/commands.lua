-- The :Kina* commands. Each maps to one kina-lsp request:
--   :KinaRun [kernel] [M=.. N=..]  kina/run, output and $/progress in a split
--   :KinaPTX / :KinaSASS / :KinaTileIR [kernel]  kina/ptx, kina/sass, kina/tileIR
--   :KinaReport [kernel]           kina/registerReport
--   :KinaSource                    (in a PTX/SASS buffer) kina/sourceOf: to the Kina line
--   :KinaTarget [sm_XX]            sets kina.target (vim.ui.select without an argument)
--   :KinaRestart                   restarts kina-lsp
-- Artifact buffers (kina://ptx/<file>/<kernel> ...) are read-only scratch
-- buffers beside the source, refreshed when the source is written.
local lsp = require('kina.lsp')
local util = require('kina.util')

local M = {}

-- Targets offered by :KinaTarget when the server does not advertise its own
-- (initialize result capabilities.experimental.kinaTargets).
local FALLBACK_TARGETS = { 'sm_70', 'sm_75', 'sm_80', 'sm_86', 'sm_89', 'sm_90', 'sm_90a', 'sm_100a', 'sm_120' }

local ARTIFACTS = {
  ptx = { method = 'kina/ptx', filetype = 'kina_ptx', label = 'PTX' },
  sass = { method = 'kina/sass', filetype = 'kina_sass', label = 'SASS' },
  tileir = { method = 'kina/tileIR', filetype = 'kina_tileir', label = 'Tile IR' },
  report = { method = 'kina/registerReport', filetype = 'kina_report', label = 'register report' },
}

-- artifact buffer -> { source = buf, kind = key, kernel = name }
local artifact_buffers = {}

local function result_text(result)
  if type(result) == 'table' and type(result.text) == 'string' then
    return result.text
  end
  return vim.inspect(result)
end

local function set_lines(buf, text)
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { plain = true }))
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
end

--- The scratch buffer named `name`, created once, shown in a window beside the current one.
local function scratch(name, filetype)
  local buf = vim.fn.bufnr(name)
  if buf == -1 or not vim.api.nvim_buf_is_valid(buf) then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.bo[buf].buftype = 'nofile'
    vim.bo[buf].bufhidden = 'hide'
    vim.bo[buf].swapfile = false
    vim.bo[buf].filetype = filetype
  end
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    local src_win = vim.api.nvim_get_current_win()
    vim.cmd('botright vsplit')
    vim.api.nvim_win_set_buf(0, buf)
    vim.api.nvim_set_current_win(src_win)
  end
  return buf
end

local function kernel_arg(src, arg)
  local kernel = (arg and arg ~= '') and arg or util.kernel_at_cursor(src)
  if not kernel then
    vim.notify('kina: no kernel in this buffer', vim.log.levels.WARN)
  end
  return kernel
end

local function fill_artifact(buf)
  local a = artifact_buffers[buf]
  if not a or not vim.api.nvim_buf_is_valid(a.source) then
    return
  end
  local kind = ARTIFACTS[a.kind]
  local target = require('kina').config.target
  set_lines(buf, '// ' .. kind.method .. ' ' .. a.kernel .. ' (' .. target .. '): waiting for kina-lsp...')
  local params = { textDocument = { uri = vim.uri_from_bufnr(a.source) }, kernel = a.kernel, target = target }
  lsp.request(a.source, kind.method, params, function(err, result)
    if not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    if err then
      set_lines(buf, '// ' .. kind.method .. ' failed for ' .. a.kernel .. ' (' .. target .. '):\n// ' .. tostring(err.message or vim.inspect(err)))
      vim.notify('kina: ' .. kind.label .. ' failed: ' .. tostring(err.message or err), vim.log.levels.ERROR)
    else
      set_lines(buf, result_text(result))
    end
  end)
end

--- The artifact buffers: buffer -> { source, kind, kernel } (kina.linesync reads it).
function M.artifact_buffers()
  return artifact_buffers
end

--- Opens (or refreshes) the artifact `kind` of a kernel of buffer `src` beside it.
function M.show_artifact(kind, src, kernel)
  local name = string.format('kina://%s/%s/%s', kind, vim.fn.fnamemodify(vim.api.nvim_buf_get_name(src), ':t'), kernel)
  local buf = scratch(name, ARTIFACTS[kind].filetype)
  artifact_buffers[buf] = { source = src, kind = kind, kernel = kernel }
  fill_artifact(buf)
  return buf
end

local function refresh_artifacts(src)
  for buf, a in pairs(artifact_buffers) do
    if not vim.api.nvim_buf_is_valid(buf) then
      artifact_buffers[buf] = nil
    elseif src == nil or a.source == src then
      fill_artifact(buf)
    end
  end
end

local run_counter = 0

--- :KinaRun: kernel and NAME=VALUE dims from fargs; dims asked for when missing.
function M.run(fargs)
  local src = vim.api.nvim_get_current_buf()
  local kernel_name, dims = nil, {}
  for _, a in ipairs(fargs or {}) do
    local k, v = a:match('^([%a_][%w_]*)=(%d+)$')
    if k then
      dims[k] = tonumber(v)
    elseif not kernel_name then
      kernel_name = a
    else
      vim.notify('kina: KinaRun [kernel] [NAME=VALUE ...]: bad argument ' .. a, vim.log.levels.ERROR)
      return
    end
  end
  local kernel = kernel_arg(src, kernel_name)
  if not kernel then
    return
  end
  local function go()
    if vim.bo[src].modified then
      vim.api.nvim_buf_call(src, function()
        vim.cmd('silent write')
      end)
    end
    run_counter = run_counter + 1
    local token = 'kina-run-' .. vim.fn.getpid() .. '-' .. run_counter
    local target = require('kina').config.target
    local out = scratch('kina://run/' .. kernel, 'kina_run')
    local lines = { '$ kina run --kernel ' .. kernel .. ' --target ' .. target }
    local function show()
      if vim.api.nvim_buf_is_valid(out) then
        set_lines(out, table.concat(lines, '\n'))
      end
    end
    show()
    lsp.on_progress(token, function(value)
      if value.message then
        table.insert(lines, '  ' .. value.message)
        vim.schedule(show)
      end
    end)
    local params = { textDocument = { uri = vim.uri_from_bufnr(src) }, kernel = kernel, target = target, workDoneToken = token }
    if next(dims) then
      params.dims = dims
    end
    lsp.request(src, 'kina/run', params, function(err, result)
      if err then
        table.insert(lines, '[kina/run failed: ' .. tostring(err.message or vim.inspect(err)) .. ']')
      else
        for _, l in ipairs(vim.split(result.output or '', '\n', { plain = true })) do
          table.insert(lines, l)
        end
        if result.exitCode ~= nil then
          table.insert(lines, '[exit code ' .. tostring(result.exitCode) .. ']')
        end
      end
      show()
    end)
  end
  local names = util.kernel_dims(src, kernel)
  local missing = vim.tbl_filter(function(n)
    return dims[n] == nil
  end, names)
  if #missing == 0 then
    return go()
  end
  local default = table.concat(vim.tbl_map(function(n)
    return n .. '=1024'
  end, missing), ' ')
  vim.ui.input({ prompt = 'Dimensions of ' .. kernel .. ': ', default = default }, function(answer)
    if not answer then
      return
    end
    for k, v in answer:gmatch('([%a_][%w_]*)=(%d+)') do
      dims[k] = tonumber(v)
    end
    go()
  end)
end

function M.targets()
  local client = lsp.client(vim.api.nvim_get_current_buf())
  local caps = client and client.server_capabilities
  local list = caps and caps.experimental and caps.experimental.kinaTargets
  if type(list) == 'table' and #list > 0 then
    return vim.tbl_map(function(t)
      return type(t) == 'table' and t.name or t
    end, list)
  end
  return FALLBACK_TARGETS
end

function M.set_target(target)
  require('kina').config.target = target
  lsp.notify_settings()
  refresh_artifacts(nil)
  vim.notify('kina: target ' .. target)
end

function M.define()
  local cmd = vim.api.nvim_create_user_command
  local function artifact_command(kind)
    return function(opts)
      local src = vim.api.nvim_get_current_buf()
      local kernel = kernel_arg(src, opts.args)
      if kernel then
        M.show_artifact(kind, src, kernel)
      end
    end
  end
  cmd('KinaPTX', artifact_command('ptx'), { nargs = '?', desc = 'Kina: show the PTX of the kernel under the cursor' })
  cmd('KinaSASS', artifact_command('sass'), { nargs = '?', desc = 'Kina: show the SASS of the kernel under the cursor' })
  cmd('KinaTileIR', artifact_command('tileir'), { nargs = '?', desc = 'Kina: show the tile IR of the kernel under the cursor' })
  cmd('KinaReport', artifact_command('report'), { nargs = '?', desc = 'Kina: register/spill/occupancy report of the kernel' })
  cmd('KinaSource', function()
    require('kina.linesync').goto_source()
  end, { desc = 'Kina: from the PTX/SASS instruction under the cursor to its Kina line' })
  cmd('KinaRun', function(opts)
    M.run(opts.fargs)
  end, { nargs = '*', desc = 'Kina: compile and run the kernel under the cursor' })
  cmd('KinaTarget', function(opts)
    if opts.args ~= '' then
      return M.set_target(opts.args)
    end
    vim.ui.select(M.targets(), { prompt = 'Kina target GPU (now ' .. require('kina').config.target .. ')' }, function(choice)
      if choice then
        M.set_target(choice)
      end
    end)
  end, {
    nargs = '?',
    complete = function()
      return M.targets()
    end,
    desc = 'Kina: select the target GPU',
  })
  -- The code lenses' commands (docs/lsp-extensions.md): arguments {uri, kernel}.
  local function lens(handler)
    return function(command)
      local arg = (command.arguments or {})[1] or {}
      local src = arg.uri and vim.uri_to_bufnr(arg.uri) or vim.api.nvim_get_current_buf()
      handler(src, arg.kernel or util.kernel_at_cursor(src))
    end
  end
  vim.lsp.commands['kina.run'] = lens(function(src, kernel)
    vim.api.nvim_buf_call(src, function()
      M.run({ kernel })
    end)
  end)
  vim.lsp.commands['kina.runKernel'] = vim.lsp.commands['kina.run']
  vim.lsp.commands['kina.showPtx'] = lens(function(src, kernel)
    M.show_artifact('ptx', src, kernel)
  end)
  vim.lsp.commands['kina.registerReport'] = lens(function(src, kernel)
    M.show_artifact('report', src, kernel)
  end)
  vim.lsp.commands['kina.showRegisterReport'] = vim.lsp.commands['kina.registerReport']

  cmd('KinaRestart', function()
    lsp.restart()
  end, { desc = 'Kina: restart kina-lsp' })

  vim.api.nvim_create_autocmd('BufWritePost', {
    group = vim.api.nvim_create_augroup('kina_artifacts', { clear = true }),
    pattern = '*.kina',
    callback = function(args)
      refresh_artifacts(args.buf)
    end,
  })
end

return M
