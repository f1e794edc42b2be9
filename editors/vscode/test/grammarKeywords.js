// Reads grammar/grammar.js (the one definition of Kina's syntax) with a
// minimal stand-in for tree-sitter's DSL and returns every word-like string
// token: the language's keywords. Used by the tests that keep the TextMate
// grammar and the Vim syntax file in step with the tree-sitter grammar.
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const GRAMMAR_JS = path.resolve(__dirname, '../../../grammar/grammar.js');

function grammarKeywords(file = GRAMMAR_JS) {
  const strings = new Set();
  const walk = (v) => {
    if (typeof v === 'string') {
      strings.add(v);
    } else if (Array.isArray(v)) {
      v.forEach(walk);
    } else if (v && typeof v === 'object' && !(v instanceof RegExp)) {
      Object.values(v).forEach(walk);
    }
  };
  const node = () => (...args) => ({ args });
  const prec = (...args) => ({ args: args.filter((a) => typeof a !== 'number') });
  Object.assign(prec, { left: prec, right: prec, dynamic: prec });
  const token = (...args) => ({ args });
  token.immediate = token;
  // `$.name` yields a symbol object, never a string, so only literals are collected.
  const $ = new Proxy({}, { get: () => ({}) });
  const sandbox = {
    module: { exports: {} },
    exports: {},
    require: () => ({}),
    seq: node('seq'),
    choice: node('choice'),
    repeat: node('repeat'),
    repeat1: node('repeat1'),
    optional: node('optional'),
    field: (_name, rule) => ({ args: [rule] }),
    alias: (rule) => ({ args: [rule] }),
    blank: node('blank'),
    prec,
    token,
    grammar: (spec) => spec,
  };
  sandbox.exports = sandbox.module.exports;
  vm.runInNewContext(fs.readFileSync(file, 'utf8'), sandbox, { filename: file });
  const spec = sandbox.module.exports;
  for (const rule of Object.values(spec.rules)) {
    walk(typeof rule === 'function' ? rule($, undefined) : rule);
  }
  return [...strings].filter((s) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(s)).sort();
}

module.exports = { grammarKeywords, GRAMMAR_JS };

if (require.main === module) {
  console.log(grammarKeywords().join('\n'));
}
