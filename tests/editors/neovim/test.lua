-- Real-editor test of the Neovim plugin (editors/neovim) against the real
-- kina-lsp, run headless on Neovim 0.7 and 0.10 by tests/editors/run-suite.sh:
--   nvim --headless --clean --cmd 'set rtp^=editors/neovim' -c 'luafile tests/editors/neovim/test.lua'
-- Checks what a user sees: filetype and tree-sitter registration, the server
-- attaching, diagnostics on the store into `a`, the hover float on `c_reg`,
-- :KinaPTX opening a buffer with PTX, the `requires` quick fix applying and
-- clearing its error, and on 0.10 the `[64, 16]` inlay hint.
-- Writes `PASS name` / `FAIL name: why` lines to $KINA_RESULTS and exits with
-- :cquit (0 when all passed). A check after a broken step still runs or FAILs.
local LSP = os.getenv('KINA_LSP')
local FIXTURES = os.getenv('KINA_FIXTURES')
local RESULTS = os.getenv('KINA_RESULTS')
local SCRATCH = os.getenv('KINA_SCRATCH')
-- The first answers (attach, first diagnostics) may wait for a cold server;
-- later checks talk to a warm one and wait less.
local TIMEOUT = tonumber(os.getenv('KINA_EDITOR_TIMEOUT_MS') or '30000')
local FOLLOW_TIMEOUT = tonumber(os.getenv('KINA_EDITOR_FOLLOW_TIMEOUT_MS') or '15000')
local HAS_010 = vim.fn.has('nvim-0.10') == 1
local LABEL = HAS_010 and 'nvim-0.10' or 'nvim-0.7'

local out = assert(io.open(RESULTS, 'a'))
local failures = 0

local function record(ok, name, why)
  local line
  if ok then
    line = 'PASS ' .. LABEL .. ': ' .. name
  else
    failures = failures + 1
    line = 'FAIL ' .. LABEL .. ': ' .. name .. ': ' .. tostring(why):gsub('\n', ' | ')
  end
  out:write(line .. '\n')
  out:flush()
end

local function check(name, fn)
  local ok, err = pcall(fn)
  record(ok, name, err)
  return ok
end

local function wait_for(what, pred, ms)
  local ok = vim.wait(ms or TIMEOUT, function()
    local good, v = pcall(pred)
    return good and v
  end, 50)
  if not ok then
    error('timed out after ' .. (ms or TIMEOUT) .. ' ms waiting for ' .. what, 0)
  end
end

local function buffer_text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
end

--- 1-based line and 0-based byte column of the first `needle` in buf.
local function find(buf, needle)
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local c = l:find(needle, 1, true)
    if c then
      return i, c - 1
    end
  end
  error('no ' .. needle .. ' in buffer', 0)
end

local function copy_fixture(name)
  local dst = SCRATCH .. '/' .. name
  local src = assert(io.open(FIXTURES .. '/' .. name, 'rb'))
  local f = assert(io.open(dst, 'wb'))
  f:write(src:read('*a'))
  src:close()
  f:close()
  return dst
end

local function kina_client(buf)
  return require('kina.lsp').client(buf)
end

local function errors(buf)
  return vim.diagnostic.get(buf, { severity = vim.diagnostic.severity.ERROR })
end

local function run()
  require('kina').setup({ cmd = { LSP }, debounce_ms = 0, target = 'sm_90a' })

  check('help file: :help kina opens doc/kina.txt', function()
    local plugin = os.getenv('KINA_PLUGIN')
    local rt = SCRATCH .. '/rt'
    vim.fn.mkdir(rt .. '/doc', 'p')
    local src = assert(io.open(plugin .. '/doc/kina.txt', 'rb'))
    local f = assert(io.open(rt .. '/doc/kina.txt', 'wb'))
    f:write(src:read('*a'))
    src:close()
    f:close()
    vim.cmd('helptags ' .. vim.fn.fnameescape(rt .. '/doc'))
    vim.opt.runtimepath:append(rt)
    for _, tag in ipairs({ 'kina', ':KinaPTX', ':KinaRun', ':KinaTarget', ':KinaReport' }) do
      vim.cmd('help ' .. tag)
      assert(vim.bo.buftype == 'help' and vim.api.nvim_buf_get_name(0):match('kina%.txt$'), 'no help for ' .. tag)
      vim.cmd('close')
    end
  end)

  local path = copy_fixture('gemm_tc.kina')
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()

  check('filetype kina is detected', function()
    assert(vim.bo[buf].filetype == 'kina', 'filetype is ' .. vim.bo[buf].filetype)
  end)

  check('tree-sitter parser and queries are registered and parse the seed', function()
    local ts = require('kina.treesitter')
    assert(ts.register(), tostring(ts.last_error))
    assert(not ts.last_error, ts.last_error)
    local parser = vim.treesitter.get_parser(buf, 'kina')
    local root = parser:parse()[1]:root()
    assert(not root:has_error(), 'the seed gemm_tc parses with errors')
    local get = vim.treesitter.query.get or vim.treesitter.query.get_query
    for _, name in ipairs(ts.QUERIES) do
      assert(get('kina', name), 'no ' .. name .. ' query for kina (grammar/queries/' .. name .. '.scm): ' .. tostring(ts.last_error))
    end
    local keyword_captures = 0
    for id, node in get('kina', 'highlights'):iter_captures(root, buf, 0, -1) do
      local capture = get('kina', 'highlights').captures[id]
      if vim.treesitter.get_node_text then
        if capture:match('^keyword') and vim.treesitter.get_node_text(node, buf) == 'kernel' then
          keyword_captures = keyword_captures + 1
        end
      elseif capture:match('^keyword') then
        keyword_captures = keyword_captures + 1
      end
    end
    assert(keyword_captures > 0, 'highlights.scm captures no keyword in the seed')
  end)

  local attached = check('kina-lsp attaches to the buffer', function()
    wait_for('kina-lsp to attach', function()
      local c = kina_client(buf)
      return c and c.server_capabilities ~= nil and next(c.server_capabilities) ~= nil
    end)
  end)

  local store_line = find(buf, 'a[block_m * 128 + warp_m')
  check('diagnostics: an error on the store into `a`', function()
    assert(attached, 'kina-lsp did not attach')
    local ok = vim.wait(TIMEOUT, function()
      for _, d in ipairs(errors(buf)) do
        if d.lnum + 1 == store_line or d.lnum + 1 == store_line + 1 then
          return true
        end
      end
    end, 50)
    if not ok then
      local seen = vim.tbl_map(function(d)
        return (d.lnum + 1) .. ':' .. (d.col + 1) .. ' ' .. tostring(d.code) .. ' ' .. d.message:sub(1, 80)
      end, vim.diagnostic.get(buf))
      error('no error on line ' .. store_line .. ' within ' .. TIMEOUT .. ' ms; diagnostics: ' .. vim.inspect(seen), 0)
    end
  end)

  check('hover on c_reg shows Tile[F32, [64, 64], on=cuda:register]', function()
    assert(attached, 'kina-lsp did not attach')
    local line, col = find(buf, 'c_reg : Tile')
    vim.api.nvim_win_set_cursor(0, { line, col + 1 })
    local expected = 'Tile[F32, [64, 64], on=cuda:register]'
    local seen = ''
    local function float_text()
      for _, win in ipairs(vim.api.nvim_list_wins()) do
        if vim.api.nvim_win_get_config(win).relative ~= '' then
          seen = buffer_text(vim.api.nvim_win_get_buf(win))
          if seen:find(expected, 1, true) then
            return true
          end
        end
      end
    end
    local ok = vim.wait(FOLLOW_TIMEOUT, function()
      if float_text() then
        return true
      end
      vim.lsp.buf.hover()
      return vim.wait(1000, float_text, 50)
    end, 200)
    assert(ok, 'no hover float with ' .. expected .. '; last float: ' .. vim.inspect(seen))
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(win).relative ~= '' then
        vim.api.nvim_win_close(win, true)
      end
    end
  end)

  if HAS_010 then
    check('inlay hint [64, 16] on the a_smem slice', function()
      assert(attached, 'kina-lsp did not attach')
      local line = find(buf, 'a_smem[warp_m * 64 ..+ 64, 0 ..+ 16]')
      -- Neovim asks for the hints of the visible lines: bring the slice into view.
      vim.api.nvim_win_set_cursor(0, { line, 0 })
      vim.cmd('normal! zz')
      assert(vim.lsp.inlay_hint.is_enabled({ bufnr = buf }), 'inlay hints are not enabled by the plugin')
      local labels = {}
      wait_for('an inlay hint on line ' .. line, function()
        labels = {}
        for _, h in ipairs(vim.lsp.inlay_hint.get({ bufnr = buf })) do
          local label = h.inlay_hint.label
          if type(label) == 'table' then
            label = table.concat(vim.tbl_map(function(p)
              return p.value
            end, label))
          end
          if h.inlay_hint.position.line + 1 == line then
            table.insert(labels, label)
            if label:find('[64, 16]', 1, true) then
              return true
            end
          end
        end
        -- Hints are requested on redraw; headless has none, so ask again.
        vim.lsp.inlay_hint.enable(false, { bufnr = buf })
        vim.lsp.inlay_hint.enable(true, { bufnr = buf })
      end, FOLLOW_TIMEOUT)
    end)
  end

  check(':KinaPTX opens a buffer with .visible .entry', function()
    assert(attached, 'kina-lsp did not attach')
    -- The seed has type errors by design; PTX is shown for the corrected seed.
    local fixed = copy_fixture('gemm_tc_fixed.kina')
    vim.cmd('edit ' .. vim.fn.fnameescape(fixed))
    local fbuf = vim.api.nvim_get_current_buf()
    wait_for('kina-lsp to attach to the corrected seed', function()
      return next(vim.lsp.buf_get_clients(fbuf)) ~= nil
    end, 10000)
    local line = find(fbuf, 'block_sync')
    vim.api.nvim_win_set_cursor(0, { line, 0 })
    vim.cmd('KinaPTX')
    local ptx
    wait_for('the PTX buffer', function()
      ptx = vim.fn.bufnr('kina://ptx/gemm_tc_fixed.kina/gemm_tc')
      return ptx ~= -1 and vim.fn.bufwinid(ptx) ~= -1
    end, 5000)
    local ok = vim.wait(2 * FOLLOW_TIMEOUT, function()
      return buffer_text(ptx):find('.visible .entry', 1, true) ~= nil
    end, 50)
    assert(ok, 'PTX buffer shows: ' .. buffer_text(ptx):sub(1, 300))
    vim.cmd('buffer ' .. buf)
  end)

  -- Issue 17: with the PTX cached (:KinaPTX above), hover on the wmma_mma line
  -- lists its mma.sync instructions; the PTX buffer highlights them as the
  -- cursor moves; :KinaSource goes back from an instruction to its line.
  local fixed_buf = function()
    local b = vim.fn.bufnr(SCRATCH .. '/gemm_tc_fixed.kina')
    assert(b ~= -1, 'the corrected seed is not loaded')
    return b
  end
  check('hover on the wmma_mma line lists its mma.sync instructions', function()
    assert(attached, 'kina-lsp did not attach')
    local fbuf = fixed_buf()
    vim.cmd('buffer ' .. fbuf)
    local line, col = find(fbuf, 'wmma_mma')
    vim.api.nvim_win_set_cursor(0, { line, col + 2 })
    local text = ''
    wait_for('a hover with mma.sync', function()
      local res = vim.lsp.buf_request_sync(fbuf, 'textDocument/hover', vim.lsp.util.make_position_params(), 5000) or {}
      for _, r in pairs(res) do
        local c = r.result and r.result.contents
        text = type(c) == 'table' and (c.value or '') or tostring(c or '')
        if text:find('mma.sync', 1, true) and text:find('mma 32', 1, true) then
          return true
        end
      end
    end, FOLLOW_TIMEOUT)
  end)
  check(':KinaPTX buffer highlights the statement; :KinaSource jumps back', function()
    assert(attached, 'kina-lsp did not attach')
    local fbuf = fixed_buf()
    vim.cmd('buffer ' .. fbuf)
    local line, col = find(fbuf, 'wmma_mma')
    vim.api.nvim_win_set_cursor(0, { line, col })
    local ptx = vim.fn.bufnr('kina://ptx/gemm_tc_fixed.kina/gemm_tc')
    assert(ptx ~= -1 and vim.fn.bufwinid(ptx) ~= -1, 'the :KinaPTX buffer is not shown')
    local ls = require('kina.linesync')
    local got
    assert(ls.sync(fbuf, function(r)
      got = r
    end), 'no visible PTX buffer for the corrected seed')
    wait_for('kina/linesAt', function()
      return got
    end, FOLLOW_TIMEOUT)
    local marks = vim.api.nvim_buf_get_extmarks(ptx, ls.ns, 0, -1, {})
    assert(#marks > 0, 'no highlighted line (linesAt: ' .. vim.inspect(got):gsub('\n', ' '):sub(1, 200) .. ')')
    local first = vim.api.nvim_buf_get_lines(ptx, marks[1][2], marks[1][2] + 1, false)[1] or ''
    local all = {}
    for _, m in ipairs(marks) do
      table.insert(all, vim.api.nvim_buf_get_lines(ptx, m[2], m[2] + 1, false)[1] or '')
    end
    assert(table.concat(all, '\n'):find('mma.sync', 1, true), 'highlighted lines: ' .. first)
    -- Back: from the first highlighted instruction to its Kina line.
    vim.api.nvim_set_current_win(vim.fn.bufwinid(ptx))
    vim.api.nvim_win_set_cursor(0, { marks[1][2] + 1, 0 })
    local back
    assert(ls.goto_source(function(r)
      back = r
    end), ':KinaSource refused the PTX buffer')
    wait_for('kina/sourceOf', function()
      return back
    end, FOLLOW_TIMEOUT)
    assert(vim.api.nvim_get_current_buf() == fbuf, ':KinaSource did not go to the source')
    local at = vim.api.nvim_win_get_cursor(0)[1]
    assert(at == line, ':KinaSource went to line ' .. at .. ', the wmma_mma is on ' .. line)
  end)

  -- Issue 17 part 4: hover inside the global slice of A shows the bounds
  -- proof, with the requires clause (checked at launch) and the loop bound.
  check('hover on a slice shows its bounds proof', function()
    assert(attached, 'kina-lsp did not attach')
    local fbuf = fixed_buf()
    vim.cmd('buffer ' .. fbuf)
    local line, col = find(fbuf, '..+ 128, k * 16')
    vim.api.nvim_win_set_cursor(0, { line, col + 1 })
    local text = ''
    wait_for('a hover with the bounds proof', function()
      local res = vim.lsp.buf_request_sync(fbuf, 'textDocument/hover', vim.lsp.util.make_position_params(), 5000) or {}
      for _, r in pairs(res) do
        local c = r.result and r.result.contents
        text = type(c) == 'table' and (c.value or '') or tostring(c or '')
        if text:find('in bounds', 1, true) and text:find('k * 16 + 16 <= K', 1, true)
            and text:find('requires (K mod 16 = 0)', 1, true) and text:find('checked at launch', 1, true)
            and text:find('0 <= k < K / 16', 1, true) then
          return true
        end
      end
    end, FOLLOW_TIMEOUT)
  end)

  -- Issue 17 part 5: :KinaReport builds the cubin; the file is published
  -- again with the spill warning K0850 on the k loop's line (22).
  check(':KinaReport on a kernel written to spill: K0850 on line 22', function()
    assert(attached, 'kina-lsp did not attach')
    vim.cmd('edit ' .. copy_fixture('gemm_spill.kina'))
    local sbuf = vim.api.nvim_get_current_buf()
    wait_for('kina-lsp on gemm_spill.kina', function()
      return next(vim.lsp.buf_get_clients(sbuf)) ~= nil
    end, TIMEOUT)
    vim.api.nvim_win_set_cursor(0, { 22, 6 })
    vim.cmd('KinaReport gemm_spill')
    local seen = {}
    wait_for('K0850 on line 22', function()
      seen = vim.diagnostic.get(sbuf)
      for _, d in ipairs(seen) do
        local spill = d.code == 'K0850' or (d.message or ''):find('spills', 1, true)
        if spill and d.lnum == 21 and d.severity == vim.diagnostic.severity.WARN then
          return true
        end
      end
    end, 2 * TIMEOUT)
  end)

  check('quick fix adds `requires (K mod 16 = 0)` and clears its error', function()
    assert(attached, 'kina-lsp did not attach')
    local qpath = copy_fixture('gemm_tc_missing_requires.kina')
    vim.cmd('edit ' .. vim.fn.fnameescape(qpath))
    local qbuf = vim.api.nvim_get_current_buf()
    local function missing_fact()
      for _, d in ipairs(errors(qbuf)) do
        if d.message:find('K mod 16', 1, true) then
          return d
        end
      end
    end
    wait_for('kina-lsp to attach to the second file', function()
      return kina_client(qbuf)
    end)
    local diag
    wait_for('the error naming `K mod 16 = 0`', function()
      diag = missing_fact()
      return diag
    end, FOLLOW_TIMEOUT)
    vim.api.nvim_win_set_cursor(0, { diag.lnum + 1, diag.col })
    -- The user picks the action that adds the fact from the code action menu.
    local offered = {}
    local chose = false
    local real_select = vim.ui.select
    vim.ui.select = function(items, opts, on_choice)
      for i, item in ipairs(items) do
        local action = item.action or item[2] or item
        local title = action.title or ''
        table.insert(offered, title)
        if title:find('requires', 1, true) and title:find('K mod 16', 1, true) then
          chose = true
          return on_choice(item, i)
        end
      end
      on_choice(nil, nil)
    end
    local ok = pcall(vim.lsp.buf.code_action)
    wait_for('a code action adding the requires', function()
      return chose
    end, FOLLOW_TIMEOUT)
    vim.ui.select = real_select
    assert(ok, 'vim.lsp.buf.code_action failed')
    wait_for('the edit to apply', function()
      return buffer_text(qbuf):find('requires (K mod 16 = 0)', 1, true)
    end, 5000)
    wait_for('the `K mod 16` error to clear (actions offered: ' .. table.concat(offered, '; ') .. ')', function()
      return not missing_fact()
    end, FOLLOW_TIMEOUT)
  end)
end

local ok, err = pcall(run)
if not ok then
  record(false, 'suite aborted', err)
end
out:close()
for _, c in ipairs(vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()) do
  pcall(require('kina.util').client_call, c, 'stop')
end
vim.wait(500)
vim.cmd('cquit ' .. (failures == 0 and 0 or 1))
