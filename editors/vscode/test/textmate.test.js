// Keeps syntaxes/kina.tmLanguage.json in step with grammar/grammar.js: every
// keyword of the tree-sitter grammar must tokenize as a keyword (keyword.*,
// storage.*, support.*) under the real TextMate engine VS Code uses
// (vscode-textmate + Oniguruma), and the TextMate keyword lists must not keep
// words the grammar dropped. Also pins the scopes of the seed gemm_tc.
'use strict';
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const test = require('node:test');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');
const { grammarKeywords } = require('./grammarKeywords');

const ROOT = path.resolve(__dirname, '..');
const TM_FILE = path.join(ROOT, 'syntaxes', 'kina.tmLanguage.json');
const FIXTURE = path.resolve(ROOT, '../../tests/editors/fixtures/gemm_tc.kina');

async function loadGrammar() {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scope) =>
      scope === 'source.kina' ? vsctm.parseRawGrammar(fs.readFileSync(TM_FILE, 'utf8'), TM_FILE) : null,
  });
  return registry.loadGrammar('source.kina');
}

/** The tokens of one line: [{text, scopes}]. */
function tokenize(grammar, line) {
  const r = grammar.tokenizeLine(line, vsctm.INITIAL);
  return r.tokens.map((t) => ({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes }));
}

const KEYWORDISH = /^(keyword|storage|support)\./;

test('every grammar.js keyword is a keyword in the TextMate grammar', async () => {
  const grammar = await loadGrammar();
  const keywords = grammarKeywords();
  assert.ok(keywords.length >= 20, `only ${keywords.length} keywords extracted from grammar.js`);
  const missing = [];
  for (const kw of keywords) {
    const token = tokenize(grammar, kw).find((t) => t.text === kw);
    const scope = token && token.scopes[token.scopes.length - 1];
    if (!scope || !KEYWORDISH.test(scope)) {
      missing.push(`${kw} (${scope ?? 'not a single token'})`);
    }
  }
  assert.deepEqual(missing, [], `keywords without a keyword scope: ${missing.join(', ')}`);
});

test('the TextMate keyword lists hold no word that grammar.js lacks', () => {
  const tm = JSON.parse(fs.readFileSync(TM_FILE, 'utf8'));
  const keywords = new Set(grammarKeywords());
  const words = [];
  const collect = (re) => {
    for (const alt of re.matchAll(/\\b\(([^)]*)\)\\b/g)) {
      words.push(...alt[1].split('|'));
    }
  };
  for (const p of tm.repository.keywords.patterns) {
    collect(p.match);
  }
  collect(tm.repository.types.match);
  const stale = words.filter((w) => !keywords.has(w));
  assert.deepEqual(stale, [], `TextMate keywords not in grammar.js: ${stale.join(', ')}`);
});

test('the seed gemm_tc tokenizes with the expected scopes', async () => {
  const grammar = await loadGrammar();
  const lines = fs.readFileSync(FIXTURE, 'utf8').split('\n');
  let state = vsctm.INITIAL;
  const seen = new Map();
  for (const line of lines) {
    const r = grammar.tokenizeLine(line, state);
    state = r.ruleStack;
    for (const t of r.tokens) {
      const text = line.slice(t.startIndex, t.endIndex).trim();
      if (text && !seen.has(text)) {
        seen.set(text, t.scopes[t.scopes.length - 1]);
      }
    }
  }
  const expect = {
    kernel: 'storage.type.function.kina',
    gemm_tc: 'entity.name.function.kina',
    requires: 'keyword.other.requires.kina',
    capability: 'keyword.other.requires.kina',
    sm_80: 'support.constant.target.kina',
    Tensor: 'support.type.kina',
    F16: 'support.type.dtype.kina',
    block_grid: 'keyword.control.grid.kina',
    cp_async_commit: 'keyword.other.async.kina',
    block_sync: 'keyword.other.async.kina',
    wmma_mma: 'support.function.builtin.kina',
    c_reg: 'variable.other.kina',
    '<-': 'keyword.operator.store.kina',
    '..+': 'keyword.operator.slice.kina',
    '// ---- Shared memory tiles ----': 'comment.line.double-slash.kina',
  };
  for (const [text, scope] of Object.entries(expect)) {
    assert.equal(seen.get(text), scope, `scope of ${JSON.stringify(text)}`);
  }
});
