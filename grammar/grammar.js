/**
 * tree-sitter-kina: the one definition of Kina's syntax.
 *
 * Kina is a GPU kernel language whose types know CUDA (seed 003 §3.3).
 * The compiler links the generated parser (src/parser.c) and lowers the CST
 * to its AST; editors use the same parser and queries/*.scm.
 */

// Precedence table, loosest first.
const PREC = {
  slice: 1, // a ..+ n
  compare: 2, // = != < <= > >=
  additive: 3, // + -
  multiplicative: 4, // * / mod
  unary: 5, // -x
  application: 6, // f x y
  postfix: 7, // x[...]
};

function commaSep1(rule) {
  return seq(rule, repeat(seq(',', rule)), optional(','));
}

function commaSep(rule) {
  return optional(commaSep1(rule));
}

module.exports = grammar({
  name: 'kina',

  extras: $ => [/\s/, $.comment],

  word: $ => $.identifier,

  conflicts: $ => [
    // `f x` then `y[0] <- v` on the next line: `y[0]` is another argument of
    // `f` or the start of the next statement; the token after it decides.
    [$.application],
    [$._atom, $.application],
  ],

  rules: {
    source_file: $ => repeat($._item),

    _item: $ => choice($.kernel_definition, $.tile_function, $.host_function),

    comment: _ => token(seq('//', /[^\n]*/)),

    // ---------------------------------------------------------------- items

    kernel_definition: $ => seq(
      'kernel',
      field('name', $.identifier),
      optional(field('dims', $.dim_params)),
      repeat(field('tune', $.tune_parameter)),
      repeat(field('requires', $.requires_clause)),
      repeat1(field('parameter', $.parameter)),
      ':',
      field('result', choice($._type, $.named_result)),
      field('body', $.block),
    ),

    tile_function: $ => seq(
      'tile',
      field('name', $.identifier),
      optional(field('dims', $.dim_params)),
      repeat(field('requires', $.requires_clause)),
      repeat1(field('parameter', $.parameter)),
      ':',
      field('result', $._type),
      field('body', $.block),
    ),

    host_function: $ => seq(
      'fn',
      field('name', $.identifier),
      optional(field('dims', $.dim_params)),
      repeat(field('requires', $.requires_clause)),
      repeat(field('parameter', $.parameter)),
      ':',
      field('result', $._type),
      field('body', $.block),
    ),

    dim_params: $ => seq('[', commaSep1(field('dim', $.identifier)), ']'),

    // A tunable compile-time integer (issue 15, docs/language.md "Tunable
    // parameters"): `tune BM in {64, 128, 256} = 128`; the kernel is checked
    // and built per point of the lattice, the default point unless asked.
    tune_parameter: $ => seq(
      'tune',
      field('name', $.identifier),
      'in',
      '{',
      commaSep1(field('value', $.integer)),
      '}',
      '=',
      field('default', $.integer),
    ),

    requires_clause: $ => seq(
      'requires',
      choice(
        seq('(', field('condition', $._expression), ')'),
        field('capability', $.capability_requirement),
      ),
    ),

    capability_requirement: $ => seq(
      'capability',
      '(',
      field('target', $.identifier),
      repeat(seq(',', field('capability', $.identifier))),
      optional(','),
      ')',
    ),

    parameter: $ => seq(
      '(',
      field('name', $.identifier),
      ':',
      optional(field('mutable', $.mut)),
      field('type', $._type),
      ')',
    ),

    mut: _ => 'mut',

    named_result: $ => seq(
      '(',
      field('name', $.identifier),
      ':',
      field('type', $._type),
      ')',
    ),

    // ---------------------------------------------------------------- types

    _type: $ => choice($.tensor_type, $.tile_type, $.barrier_type, $.scalar_type),

    tensor_type: $ => seq('Tensor', '[', $._type_arguments, ']'),

    tile_type: $ => seq('Tile', '[', $._type_arguments, ']'),

    _type_arguments: $ => seq(
      field('dtype', $.dtype),
      ',',
      field('shape', $.shape),
      optional(seq(',', field('sharding', choice($.sharded, $.replicated)))),
      optional(seq(',', 'on', '=', field('placement', $.placement))),
      optional(seq(',', 'layout', '=', field('layout', $.identifier))),
      optional(','),
    ),

    // `Barrier[3, arrivals=2]`: one mbarrier per stage, each completing a
    // phase after `arrivals` arrivals (and the expected transaction bytes).
    barrier_type: $ => seq(
      'Barrier',
      '[',
      field('stages', $._expression),
      ',',
      'arrivals',
      '=',
      field('arrivals', $._expression),
      optional(','),
      ']',
    ),

    // Issue 19: the sharding refinement of a tensor over a mesh of devices
    // (docs/language.md "Devices, meshes and sharding"). `Sharded(dim=1,
    // mesh=[0, 1])` splits axis 1 into equal contiguous blocks, block i on
    // device mesh[i]; `Replicated(mesh=[0, 1])` keeps a whole copy on each.
    sharded: $ => seq(
      'Sharded', '(', 'dim', '=', field('dim', $.integer), ',',
      'mesh', '=', field('mesh', $.mesh), optional(','), ')',
    ),
    replicated: $ => seq('Replicated', '(', 'mesh', '=', field('mesh', $.mesh), optional(','), ')'),
    mesh: $ => seq('[', commaSep1(field('device', $.integer)), ']'),

    scalar_type: $ => field('dtype', $.dtype),

    dtype: $ => $.identifier,

    shape: $ => seq('[', commaSep(field('dim', $._expression)), ']'),

    placement: $ => choice(
      $.host_placement,
      seq('cuda', ':', choice(
        $.global_placement,
        $.shared_placement,
        $.register_placement,
      )),
    ),

    host_placement: _ => 'host',
    global_placement: $ => seq('global', optional(seq('(', field('device', $._expression), ')'))),
    shared_placement: _ => 'shared',
    register_placement: _ => 'register',

    // ----------------------------------------------------------- statements

    block: $ => seq('{', repeat($._statement), '}'),

    _statement: $ => choice(
      $.block_grid,
      $.warp_grid,
      $.warpgroup_grid,
      $.role,
      $.let_binding,
      $.shared_declaration,
      $.register_declaration,
      $.for_statement,
      $.if_statement,
      $.cp_async_statement,
      $.cp_async_commit,
      $.cp_async_wait_all,
      $.cp_async_wait_group,
      $.block_sync,
      $.arrive_statement,
      $.wait_statement,
      $.tma_load_statement,
      $.tma_store_statement,
      $.tma_store_commit,
      $.tma_store_wait,
      $.wgmma_statement,
      $.wgmma_commit,
      $.wgmma_wait,
      $.fence_proxy_async,
      $.assignment,
      $.return_statement,
    ),

    // `block_grid [G0, G1] cluster [C0, C1] { ... }`: blocks launched in
    // clusters of C0 * C1 CTAs (the cluster shape is optional).
    block_grid: $ => seq(
      'block_grid',
      field('shape', $.shape),
      optional(seq('cluster', field('cluster', $.shape))),
      field('body', $.block),
    ),

    warp_grid: $ => seq('warp_grid', field('shape', $.shape), field('body', $.block)),

    warpgroup_grid: $ => seq('warpgroup_grid', field('shape', $.shape), field('body', $.block)),

    // `role producer (warpgroup 0) registers 40 { ... }`; `(warpgroup 1 .. 2)`
    // is inclusive.
    role: $ => seq(
      'role',
      field('name', $.identifier),
      '(',
      'warpgroup',
      field('first', $._expression),
      optional(seq('..', field('last', $._expression))),
      ')',
      optional(seq('registers', field('registers', choice($.integer, $.identifier)))),
      field('body', $.block),
    ),

    let_binding: $ => seq(
      'let',
      field('name', $.identifier),
      '=',
      field('value', $._value),
      'in',
    ),

    shared_declaration: $ => seq(
      'shared',
      field('name', $.identifier),
      ':',
      field('type', $._type),
    ),

    register_declaration: $ => seq(
      'register',
      field('name', $.identifier),
      ':',
      field('type', $._type),
    ),

    for_statement: $ => seq(
      'for',
      field('variable', $.identifier),
      'in',
      field('range', $.range),
      field('body', $.block),
    ),

    // `(lo .. hi)` or `(lo .. hi step S)`: lo, lo + S, ... below hi.
    range: $ => seq(
      '(',
      field('start', $._expression),
      '..',
      field('end', $._expression),
      optional(seq('step', field('step', $._expression))),
      ')',
    ),

    if_statement: $ => seq(
      'if',
      field('condition', $._expression),
      field('consequence', $.block),
      optional(seq('else', field('alternative', choice($.block, $.if_statement)))),
    ),

    cp_async_statement: $ => seq(
      'cp_async',
      field('destination', $._place),
      '<-',
      field('source', choice($._expression, $.masked_access)),
    ),

    cp_async_commit: _ => 'cp_async_commit',
    cp_async_wait_all: _ => 'cp_async_wait_all',
    cp_async_wait_group: $ => seq('cp_async_wait_group', field('count', $.integer)),
    block_sync: _ => 'block_sync',

    // ------------------------------------------- Hopper barriers and copies

    // `arrive B[s] cluster`: one arrival on stage s of B in every CTA of the
    // cluster (a remote arrive through mapa); not combined with expect_tx.
    arrive_statement: $ => seq(
      'arrive',
      field('barrier', $._place),
      optional(choice(
        seq('expect_tx', field('bytes', $._expression)),
        field('cluster', 'cluster'),
      )),
    ),

    wait_statement: $ => seq(
      'wait',
      field('barrier', $._place),
      'round',
      field('round', $._expression),
    ),

    // `tma_load dst <- src [multicast] completes B[s]`: with `multicast` the
    // box lands at the same shared offset in every CTA of the cluster and
    // its bytes count on B[s] of every CTA of the cluster.
    tma_load_statement: $ => seq(
      'tma_load',
      field('destination', $._place),
      '<-',
      field('source', $._expression),
      optional(field('multicast', 'multicast')),
      'completes',
      field('barrier', $._place),
    ),

    // `acc <- wgmma acc a b zero_when (k = 0)`: a statement of its own (not an
    // application) so that the accumulator, the operands and the condition
    // have fields; the accumulator is updated in place.
    wgmma_statement: $ => seq(
      field('target', $._place),
      '<-',
      'wgmma',
      field('accumulator', $._atom),
      field('a', $._atom),
      field('b', $._atom),
      optional(seq('zero_when', field('zero_when', $.parenthesized_expression))),
    ),

    // `tma_store c[...] <- c_s[i]`: bulk tensor copy shared -> global, in the
    // warpgroup's open bulk group; commit closes it, wait N retires groups.
    tma_store_statement: $ => seq(
      'tma_store',
      field('destination', $._place),
      '<-',
      field('source', $._expression),
    ),

    tma_store_commit: _ => 'tma_store_commit',
    tma_store_wait: $ => seq('tma_store_wait', field('count', choice($.integer, $.identifier))),

    wgmma_commit: _ => 'wgmma_commit',
    wgmma_wait: $ => seq('wgmma_wait', field('count', choice($.integer, $.identifier))),
    fence_proxy_async: _ => 'fence_proxy_async',

    assignment: $ => seq(
      field('target', choice($._place, $.masked_access)),
      '<-',
      field('value', choice($._value, $.masked_access)),
    ),

    // Masks and ragged edges: `xr <- masked x[r ..+ 16, c ..+ 64] fill 0.0`
    // loads a box that may reach past the tensor's edges (those elements
    // read as the fill value); `masked out[...] <- v` stores only the
    // elements inside. The checker requires `fill` on loads and rejects it
    // on stores. `masked` comes first: as a word that starts a statement or
    // a value it is always read as the keyword, so a statement after an
    // application (`y <- f a` then `masked out[...] <- y`) is never taken
    // for more arguments (a trailing `masked` would be: `f a out[...]
    // masked` parses too).
    masked_access: $ => seq(
      'masked',
      field('access', $.index_expression),
      optional(seq('fill', field('fill', $._atom))),
    ),

    return_statement: $ => seq('return', field('value', $._expression)),

    _place: $ => choice($.identifier, $.index_expression),

    // ---------------------------------------------------------- expressions

    _expression: $ => choice(
      $.binary_expression,
      $.application,
      $._atom,
    ),

    // Negation stands only where no `<-` can precede it: first in parentheses
    // and as a whole right-hand side, so `x <- v` never reads as `x < -v`.
    _value: $ => choice($._expression, $.unary_expression),

    _atom: $ => choice(
      $.identifier,
      $.integer,
      $.float,
      $.parenthesized_expression,
      $.index_expression,
    ),

    parenthesized_expression: $ => seq('(', field('expression', $._value), ')'),

    index_expression: $ => prec(PREC.postfix, seq(
      field('base', $._atom),
      '[',
      commaSep1(field('index', choice($.slice, $._expression))),
      ']',
    )),

    slice: $ => prec.left(PREC.slice, seq(
      field('start', $._expression),
      '..+',
      field('length', $._expression),
    )),

    // Juxtaposition, as in `wmma_mma c a b`; arguments may continue on the
    // next lines (seed 003 §3.3).
    application: $ => prec.dynamic(1, seq(
      field('function', $.identifier),
      repeat1(field('argument', $._atom)),
    )),

    unary_expression: $ => prec(PREC.unary, seq(
      field('operator', '-'),
      field('operand', choice($.binary_expression, $.application, $._atom)),
    )),

    binary_expression: $ => {
      const table = [
        [PREC.compare, choice('=', '!=', '<', '<=', '>', '>=')],
        [PREC.additive, choice('+', '-')],
        [PREC.multiplicative, choice('*', '/', 'mod')],
      ];
      return choice(...table.map(([precedence, operator]) =>
        prec.left(precedence, seq(
          field('left', $._expression),
          field('operator', operator),
          field('right', $._expression),
        )),
      ));
    },

    // -------------------------------------------------------------- tokens

    identifier: _ => /[A-Za-z_][A-Za-z0-9_]*/,

    integer: _ => token(choice(/[0-9][0-9_]*/, /0x[0-9a-fA-F_]+/)),

    float: _ => token(choice(
      /[0-9][0-9_]*\.[0-9][0-9_]*([eE][+-]?[0-9]+)?/,
      /[0-9][0-9_]*[eE][+-]?[0-9]+/,
    )),
  },
});
