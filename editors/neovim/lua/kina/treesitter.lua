-- Registers tree-sitter-kina with Neovim: compiles grammar/src/parser.c (with
-- the system C compiler, once per parser.c content, into stdpath('cache')),
-- loads it as language `kina`, and installs the query files from
-- grammar/queries (highlights, locals, folds, indents; nvim-treesitter capture
-- names). On 0.10+ it also starts tree-sitter highlighting for kina buffers;
-- 0.7 keeps syntax/kina.vim, whose highlighter lacks the capture hierarchy.
local util = require('kina.util')

local M = {}

M.QUERIES = { 'highlights', 'locals', 'folds', 'indents' }

local registered = nil -- nil: not tried; false: failed; string: the parser path
M.last_error = nil

function M.grammar_dir(dir)
  return dir or (util.plugin_dir() .. '/../../grammar')
end

local function read(path)
  local f = io.open(path, 'rb')
  if not f then
    return nil
  end
  local s = f:read('*a')
  f:close()
  return s
end

--- Builds (if needed) the parser library for grammar_dir; returns its path or nil, error.
function M.build_parser(grammar_dir)
  local src = grammar_dir .. '/src'
  local parser_c = read(src .. '/parser.c')
  if not parser_c then
    return nil, 'no ' .. src .. '/parser.c'
  end
  local scanner = util.exists(src .. '/scanner.c') and (src .. '/scanner.c') or nil
  local key = vim.fn.sha256(parser_c .. (scanner and read(scanner) or '')):sub(1, 16)
  local out_dir = vim.fn.stdpath('cache') .. '/kina/parser'
  local out = out_dir .. '/kina-' .. key .. '.so'
  if util.exists(out) then
    return out
  end
  vim.fn.mkdir(out_dir, 'p')
  local cc = os.getenv('CC') or 'cc'
  if vim.fn.executable(cc) ~= 1 then
    return nil, 'no C compiler (' .. cc .. ') to build the kina parser'
  end
  local tmp = out .. '.tmp' .. vim.fn.getpid()
  local cmd = { cc, '-o', tmp, '-shared', '-fPIC', '-O2', '-I', src, src .. '/parser.c' }
  if scanner then
    table.insert(cmd, scanner)
  end
  local output = vim.fn.system(cmd)
  if vim.v.shell_error ~= 0 then
    return nil, 'building the kina parser failed: ' .. output
  end
  os.rename(tmp, out)
  return out
end

local function add_language(path)
  if vim.treesitter.language and vim.treesitter.language.add then
    vim.treesitter.language.add('kina', { path = path })
  else
    vim.treesitter.require_language('kina', path)
  end
end

local function set_query(name, text)
  if vim.treesitter.query.set then
    vim.treesitter.query.set('kina', name, text)
  else
    vim.treesitter.query.set_query('kina', name, text)
  end
end

--- Loads the parser and queries once; returns true when tree-sitter-kina is usable.
function M.register(grammar_dir)
  if registered ~= nil then
    return registered ~= false
  end
  local dir = M.grammar_dir(grammar_dir)
  local path, err = M.build_parser(dir)
  if not path then
    registered, M.last_error = false, err
    return false
  end
  local ok, load_err = pcall(add_language, path)
  if not ok then
    registered, M.last_error = false, 'loading ' .. path .. ' failed: ' .. tostring(load_err)
    return false
  end
  for _, name in ipairs(M.QUERIES) do
    local text = read(dir .. '/queries/' .. name .. '.scm')
    if text then
      local qok, qerr = pcall(set_query, name, text)
      if not qok then
        M.last_error = 'query ' .. name .. '.scm: ' .. tostring(qerr)
      end
    end
  end
  registered = path
  return true
end

--- Per buffer: tree-sitter highlighting on 0.10+ when the parser is registered.
function M.attach(buf, grammar_dir)
  if not util.has_010() or not M.register(grammar_dir) then
    return
  end
  pcall(vim.treesitter.start, buf, 'kina')
end

return M
