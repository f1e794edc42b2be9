// Keeps editors/neovim/syntax/kina.vim (the regex highlighting Neovim 0.7 and
// plain Vim use) in step with grammar/grammar.js: every keyword of the
// tree-sitter grammar is in one of its keyword groups, and the keyword groups
// hold no word the grammar lacks (dtypes and builtins are identifiers there and
// sit in their own groups).
'use strict';
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const test = require('node:test');
const { grammarKeywords } = require('../../editors/vscode/test/grammarKeywords');

const SYNTAX = path.resolve(__dirname, '../../editors/neovim/syntax/kina.vim');
const IDENTIFIER_GROUPS = new Set(['kinaDtype', 'kinaBuiltin', 'kinaTodo']);

function syntaxKeywords() {
  const groups = new Map();
  for (const line of fs.readFileSync(SYNTAX, 'utf8').split('\n')) {
    const m = /^syn keyword (\w+) (.*)$/.exec(line.trim());
    if (m) {
      const words = m[2].split(/\s+/).filter((w) => w && !w.includes('='));
      groups.set(m[1], [...(groups.get(m[1]) ?? []), ...words]);
    }
  }
  return groups;
}

test('every grammar.js keyword is highlighted by syntax/kina.vim', () => {
  const groups = syntaxKeywords();
  const all = new Set([...groups.entries()].filter(([g]) => !IDENTIFIER_GROUPS.has(g)).flatMap(([, w]) => w));
  const missing = grammarKeywords().filter((k) => !all.has(k));
  assert.deepEqual(missing, [], `missing from syntax/kina.vim: ${missing.join(', ')}`);
});

test('syntax/kina.vim keyword groups hold no word grammar.js lacks', () => {
  const keywords = new Set(grammarKeywords());
  const stale = [...syntaxKeywords().entries()]
    .filter(([g]) => !IDENTIFIER_GROUPS.has(g))
    .flatMap(([, words]) => words)
    .filter((w) => !keywords.has(w));
  assert.deepEqual(stale, [], `not keywords in grammar.js: ${stale.join(', ')}`);
});
