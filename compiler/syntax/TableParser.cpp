//===- TableParser.cpp - Fast LR parse over the generated tables ----------===//
//
// Mirrors what the tree-sitter runtime does on error-free input, minus the
// GLR stack, subtree reference counting and recovery: lex with the state's
// lex mode (keywords through the keyword lexer, as for `word:` grammars),
// shift, reduce with trailing extras handed back to the parent's level,
// accept. The raw tree keeps hidden nodes; flatten() then splices them and
// resolves fields exactly as ts_tree_cursor_current_field_id does.
//
//===----------------------------------------------------------------------===//
#include "syntax/TableParser.h"
#include "syntax/Parser.h"

#include <deque>
#include <tree_sitter/api.h>
#if TREE_SITTER_LANGUAGE_VERSION < 15
// Debian's runtime API (0.20) predates these names; parser.h expects them.
typedef uint16_t TSStateId;
typedef struct TSLanguageMetadata {
  uint8_t major_version, minor_version, patch_version;
} TSLanguageMetadata;
#endif
#include <tree_sitter/parser.h>

namespace kina::syntax {
namespace {

/// Dense action/goto table, decoded once from the generated large and small
/// tables (tree-sitter scans the small table per lookup).
struct Tables {
  const TSLanguage *lang;
  std::vector<uint16_t> dense; ///< [state * symbol_count + symbol]
  std::vector<uint16_t> lexState;
  /// Non-inherited field of each production's structural child (0: none).
  std::vector<TSFieldId> fields;
  uint32_t maxChildren;
  /// +1 for `(`, `[`, `{`; -1 for their closers; 0 for other symbols.
  std::vector<int8_t> bracket;
  TSSymbol comment;

  Tables() : lang(tree_sitter_kina()) {
    const uint32_t symbols = lang->symbol_count, states = lang->state_count;
    dense.assign(size_t(states) * symbols, 0);
    for (uint32_t s = 0; s < lang->large_state_count; ++s)
      for (uint32_t sym = 0; sym < symbols; ++sym)
        dense[size_t(s) * symbols + sym] = lang->parse_table[size_t(s) * symbols + sym];
    for (uint32_t s = lang->large_state_count; s < states; ++s) {
      const uint16_t *data =
          &lang->small_parse_table[lang->small_parse_table_map[s - lang->large_state_count]];
      uint16_t groups = *data++;
      for (uint16_t g = 0; g < groups; ++g) {
        uint16_t value = *data++, count = *data++;
        for (uint16_t i = 0; i < count; ++i)
          dense[size_t(s) * symbols + *data++] = value;
      }
    }
    comment = ts_language_symbol_for_name(lang, "comment", 7, true);
    bracket.assign(symbols, 0);
    for (const char *open : {"(", "[", "{"})
      bracket[ts_language_symbol_for_name(lang, open, 1, false)] = 1;
    for (const char *close : {")", "]", "}"})
      bracket[ts_language_symbol_for_name(lang, close, 1, false)] = -1;
    maxChildren = lang->max_alias_sequence_length; // the longest production
    fields.assign(size_t(lang->production_id_count) * maxChildren, 0);
    for (uint32_t p = 0; p < lang->production_id_count; ++p) {
      const TSMapSlice &slice = lang->field_map_slices[p];
      for (uint32_t i = slice.length; i-- > 0;) { // the first entry wins
        const TSFieldMapEntry &e = lang->field_map_entries[slice.index + i];
        if (!e.inherited && e.child_index < maxChildren)
          fields[size_t(p) * maxChildren + e.child_index] = e.field_id;
      }
    }
    // ABI 14 tables hold TSLexMode (2 fields); ABI 15 adds a third.
    lexState.resize(states);
    for (uint32_t s = 0; s < states; ++s)
      lexState[s] = lang->abi_version >= 15
                        ? lang->lex_modes[s].lex_state
                        : reinterpret_cast<const TSLexMode *>(lang->lex_modes)[s].lex_state;
  }

  uint16_t entry(TSStateId state, TSSymbol symbol) const {
    return dense[size_t(state) * lang->symbol_count + symbol];
  }
  const TSParseActionEntry *actions(TSStateId state, TSSymbol symbol) const {
    return &lang->parse_actions[entry(state, symbol)];
  }
  bool hasActions(TSStateId state, TSSymbol symbol) const {
    return actions(state, symbol)->entry.count > 0;
  }

  static const Tables &get() {
    static const Tables tables;
    return tables;
  }
};

/// The TSLexer the generated lex functions drive, over UTF-8 text.
struct Lexer {
  TSLexer base; // first member: the generated code sees only this
  const unsigned char *text;
  uint32_t size;
  uint32_t pos = 0, charBytes = 0;
  uint32_t tokenStart = 0, tokenEnd = 0;

  explicit Lexer(std::string_view t)
      : text(reinterpret_cast<const unsigned char *>(t.data())),
        size(static_cast<uint32_t>(t.size())) {
    base.lookahead = 0;
    base.result_symbol = 0;
    base.advance = &advance;
    base.mark_end = &markEnd;
    base.get_column = &column;
    base.is_at_included_range_start = &atRangeStart;
    base.eof = &atEof;
    base.log = &log;
  }

  void decode() {
    if (pos >= size) {
      base.lookahead = 0;
      charBytes = 0;
      return;
    }
    unsigned char c = text[pos];
    if (c < 0x80) {
      base.lookahead = c;
      charBytes = 1;
      return;
    }
    // Parser::parse hands over valid UTF-8 only.
    uint32_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    int32_t cp = c & (0x3F >> (n - 1));
    for (uint32_t i = 1; i < n && pos + i < size; ++i)
      cp = (cp << 6) | (text[pos + i] & 0x3F);
    base.lookahead = cp;
    charBytes = std::min(n, size - pos);
  }

  static Lexer &self(const TSLexer *l) {
    return *reinterpret_cast<Lexer *>(const_cast<TSLexer *>(l));
  }
  static void advance(TSLexer *l, bool skip) {
    Lexer &x = self(l);
    if (x.pos >= x.size)
      return;
    x.pos += x.charBytes;
    if (skip)
      x.tokenStart = x.pos;
    x.decode();
  }
  static void markEnd(TSLexer *l) { self(l).tokenEnd = self(l).pos; }
  static uint32_t column(TSLexer *l) {
    Lexer &x = self(l);
    uint32_t begin = x.pos;
    while (begin > 0 && x.text[begin - 1] != '\n')
      --begin;
    return x.pos - begin;
  }
  static bool atRangeStart(const TSLexer *) { return false; }
  static bool atEof(const TSLexer *l) { return self(l).pos >= self(l).size; }
  static void log(const TSLexer *, const char *, ...) {}

  /// Runs `fn` from `at`; false when no token matched.
  bool run(bool (*fn)(TSLexer *, TSStateId), TSStateId state, uint32_t at) {
    pos = tokenStart = tokenEnd = at;
    base.result_symbol = 0;
    decode();
    return fn(&base, state);
  }

  /// Past ASCII whitespace, which every lex state skips as an extra (the
  /// generated lexer would, one callback per character).
  uint32_t skipSpace(uint32_t at) const {
    while (at < size && (text[at] == ' ' || (text[at] >= '\t' && text[at] <= '\r')))
      ++at;
    return at;
  }

};

struct Token {
  TSSymbol symbol = 0;
  uint32_t begin = 0, end = 0;
  bool keyword = false;
  TSStateId state = 0; ///< the state it was read in
};

/// A node on the LR stack. A visible node's children are already a block of
/// Cst nodes; a hidden node keeps the raw nodes it was reduced from, spliced
/// into the first visible ancestor when that one is reduced.
struct RawNode {
  uint32_t begin, end;
  uint32_t firstChild, childCount; ///< Cst block (visible) or hiddenKids_ (hidden)
  TSSymbol symbol;
  uint16_t productionId;
  bool extra, visible;
};

struct StackEntry {
  TSStateId state;
  uint32_t node; ///< RawNode index; unused for the bottom entry
};

class TableParser {
public:
  TableParser(std::string_view text, uint32_t begin, TableParseFailure *failure)
      : t_(Tables::get()), lang_(*t_.lang), text_(text), begin_(begin), lexer_(text),
        failure_(failure) {
    // Measured on the stdlib and generated files: ~1 raw node per 3 bytes.
    size_t bytes = text.size() - begin;
    nodes_.reserve(bytes / 2 + 16);
    hiddenKids_.reserve(bytes / 8 + 16);
    cst_.nodes.reserve(bytes / 3 + 16);
  }

  std::optional<Cst> run() {
    if (lang_.alias_count != 0)
      return std::nullopt; // aliases are not mirrored here; the grammar has none
    stack_.push_back({1, 0}); // tree-sitter's initial parse state
    if (!lex(begin_, token_))
      return std::nullopt;
    // Work bound: backtracking never costs more than a few passes.
    uint64_t budget = 4 * uint64_t(text_.size()) + 4096;
    while (true) {
      if (++steps_ > budget)
        return std::nullopt;
      TSStateId state = stack_.back().state;
      const TSParseActionEntry *entry = t_.actions(state, token_.symbol);
      unsigned count = entry->entry.count;
      if (count == 0 && token_.keyword && t_.hasActions(state, lang_.keyword_capture_token)) {
        // As the runtime does: a keyword not valid here is read as a word.
        token_.symbol = lang_.keyword_capture_token;
        token_.keyword = false;
        continue;
      }
      // Alternatives, shifts first; a repetition shift beside a reduce is
      // what the runtime skips as well. No input is valid on two branches,
      // so the order decides only the cost: the conflict is a juxtaposed
      // argument against the end of the application, and reducing first
      // rebuilt the whole application once per argument (quadratic: a
      // 20,000-argument application took 4.5 s, 333,000 never finished),
      // while shifting first costs one token when the statement ends.
      const TSParseAction *alts[4];
      unsigned n = 0;
      for (int pass = 0; pass < 2; ++pass)
        for (unsigned i = 0; i < count && n < 4; ++i) {
          const TSParseAction &a = entry[1 + i].action;
          if ((a.type == TSParseActionTypeShift) != (pass == 0))
            continue;
          if (count > 1 && a.type == TSParseActionTypeShift && a.shift.repetition)
            continue;
          alts[n++] = &a;
        }
      if (n == 0)
        recordFailure();
      if (n == 0 || (n > 1 && !fork(alts + 1, n - 1))) {
        if (!backtrack())
          return std::nullopt;
        continue;
      }
      if (alts[0]->type == TSParseActionTypeAccept)
        return accept();
      if (!apply(*alts[0]) && !backtrack())
        return std::nullopt;
    }
  }

private:
  /// Forks older than this many shifts are settled: GLR would have dropped
  /// the losing branch long before, and a failure past it is a real error.
  static constexpr uint64_t kForkWindow = 256;
  static constexpr size_t kMaxStack = 8192;

  struct Fork {
    size_t stackAt, stackSize; ///< the saved LR stack, in forkStacks_
    size_t nodes, hiddenKids, cstNodes;
    unsigned depth;
    Span lastShift;
    bool shiftedAny;
    Token token;
    uint64_t shifts;
    const TSParseAction *alts[3];
    unsigned next, count;
  };

  const Tables &t_;
  const TSLanguage &lang_;
  std::string_view text_;
  uint32_t begin_;
  Lexer lexer_;
  TableParseFailure *failure_;
  Span lastShift_{0, 0}; ///< the last token shifted (not an extra)
  bool shiftedAny_ = false;
  Token token_;
  std::vector<StackEntry> stack_;
  std::vector<RawNode> nodes_;
  std::vector<uint32_t> hiddenKids_;
  Cst cst_;
  std::vector<Fork> forks_;
  std::vector<StackEntry> forkStacks_;
  uint64_t shifts_ = 0, steps_ = 0;
  unsigned depth_ = 0; ///< bracket nesting at the lookahead

  bool lex(uint32_t at, Token &out) {
    TSStateId state = stack_.back().state;
    if (!lexer_.run(lang_.lex_fn, t_.lexState[state], lexer_.skipSpace(at)))
      return false;
    out.symbol = lexer_.base.result_symbol;
    out.begin = lexer_.tokenStart;
    out.end = lexer_.tokenEnd;
    out.keyword = false;
    out.state = state;
    if (out.end <= out.begin && out.symbol != ts_builtin_sym_end)
      return false; // an empty token would not advance
    if (out.symbol == lang_.keyword_capture_token && lang_.keyword_lex_fn &&
        lexer_.run(lang_.keyword_lex_fn, 0, out.begin) && lexer_.tokenEnd == out.end &&
        t_.hasActions(state, lexer_.base.result_symbol)) {
      out.symbol = lexer_.base.result_symbol;
      out.keyword = true;
    }
    return true;
  }

  /// Keeps the failure that got furthest into the text (the usual choice:
  /// alternatives that died earlier were the wrong reading).
  void recordFailure() {
    if (!failure_ || (failure_->valid && failure_->token.begin > token_.begin))
      return;
    TableParseFailure &f = *failure_;
    f.valid = true;
    f.token = {token_.begin, token_.end};
    f.tokenSymbol = token_.symbol;
    f.expected.clear();
    for (TSSymbol sym = 1; sym < lang_.token_count; ++sym)
      if (t_.hasActions(token_.state, sym)) {
        const TSParseAction &first = (t_.actions(token_.state, sym) + 1)->action;
        if (first.type != TSParseActionTypeShift || !first.shift.extra) // not a comment
          f.expected.push_back(sym);
      }
    f.hasPrevious = shiftedAny_;
    f.previous = lastShift_;
    f.stack.clear();
    for (size_t k = 1; k < stack_.size(); ++k) {
      const RawNode &n = nodes_[stack_[k].node];
      if (!n.extra)
        f.stack.push_back({lang_.public_symbol_map[n.symbol], {n.begin, n.end},
                           n.symbol < lang_.token_count});
    }
  }

  /// The state's lex mode has no token at `at`: find what is there with the
  /// lex mode that knows every token (tree-sitter's error mode), skipping
  /// comments, and record the failure at it (at a character no token
  /// starts with, the failure is that character).
  void failAtUnlexable(uint32_t at) {
    TSStateId state = stack_.back().state;
    while (lexer_.run(lang_.lex_fn, t_.lexState[0], lexer_.skipSpace(at)) &&
           lexer_.tokenEnd > lexer_.tokenStart) {
      if (lexer_.base.result_symbol != t_.comment) {
        token_ = Token{lexer_.base.result_symbol, lexer_.tokenStart, lexer_.tokenEnd, false, state};
        recordFailure();
        return;
      }
      at = lexer_.tokenEnd;
    }
    uint32_t bad = lexer_.skipSpace(at);
    token_ = Token{0, bad, bad + 1, false, state};
    recordFailure();
  }

  bool apply(const TSParseAction &a) {
    if (a.type == TSParseActionTypeShift)
      return shift(a); // a token the next state cannot lex ends the branch
    if (a.type == TSParseActionTypeReduce)
      return reduce(a.reduce.symbol, a.reduce.child_count, a.reduce.production_id);
    return false;
  }

  bool fork(const TSParseAction *const *alts, unsigned n) {
    if (n > 3)
      return false;
    // Every older fork is past the window once the newest one is.
    if (!forks_.empty() && shifts_ - forks_.back().shifts > kForkWindow) {
      forks_.clear();
      forkStacks_.clear();
    }
    Fork f{forkStacks_.size(), stack_.size(), nodes_.size(), hiddenKids_.size(),
           cst_.nodes.size(), depth_, lastShift_, shiftedAny_, token_, shifts_, {}, 0, n};
    for (unsigned i = 0; i < n; ++i)
      f.alts[i] = alts[i];
    forkStacks_.insert(forkStacks_.end(), stack_.begin(), stack_.end());
    forks_.push_back(f);
    return true;
  }

  /// Resumes the most recent fork with its next alternative.
  bool backtrack() {
    while (!forks_.empty()) {
      Fork f = forks_.back();
      if (shifts_ - f.shifts > kForkWindow)
        return false;
      stack_.assign(forkStacks_.begin() + f.stackAt,
                    forkStacks_.begin() + f.stackAt + f.stackSize);
      nodes_.resize(f.nodes);
      hiddenKids_.resize(f.hiddenKids);
      cst_.nodes.resize(f.cstNodes);
      token_ = f.token;
      shifts_ = f.shifts;
      depth_ = f.depth;
      lastShift_ = f.lastShift;
      shiftedAny_ = f.shiftedAny;
      const TSParseAction &a = *f.alts[f.next++];
      if (f.next == f.count) {
        forks_.pop_back();
        forkStacks_.resize(f.stackAt);
      } else {
        forks_.back().next = f.next;
      }
      if (apply(a))
        return true;
    }
    return false;
  }

  bool shift(const TSParseAction &a) {
    if (stack_.size() >= kMaxStack || token_.symbol == ts_builtin_sym_end)
      return false;
    TSStateId next = a.shift.extra ? stack_.back().state : a.shift.state;
    if (int8_t b = t_.bracket[token_.symbol]; b > 0 && ++depth_ > cst_.maxBracketDepth) {
      cst_.maxBracketDepth = depth_;
      cst_.deepestBracket = token_.begin;
    } else if (b < 0) {
      --depth_;
    }
    nodes_.push_back({token_.begin, token_.end, 0, 0, token_.symbol, 0,
                      static_cast<bool>(a.shift.extra),
                      lang_.symbol_metadata[token_.symbol].visible});
    stack_.push_back({next, static_cast<uint32_t>(nodes_.size() - 1)});
    ++shifts_;
    if (!a.shift.extra) {
      lastShift_ = {token_.begin, token_.end};
      shiftedAny_ = true;
    }
    if (!lex(token_.end, token_)) {
      failAtUnlexable(token_.end);
      return false;
    }
    return true;
  }

  bool reduce(TSSymbol symbol, unsigned childCount, uint16_t productionId) {
    size_t top = stack_.size(), i = top;
    for (unsigned counted = 0; counted < childCount;) {
      if (i <= 1)
        return false;
      --i;
      counted += !nodes_[stack_[i].node].extra;
    }
    size_t last = top; // trailing extras stay at the parent's level
    while (last > i && nodes_[stack_[last - 1].node].extra)
      --last;
    bool visible = lang_.symbol_metadata[symbol].visible;
    if (!visible && last - i == 1 && top - i == 1 && fieldOf(productionId, 0) == 0) {
      // A hidden node over one child with no field of its own (`_atom` over
      // an identifier) splices to that child: no node is needed for it.
      stack_.back().state = t_.entry(stack_[i - 1].state, symbol);
      return stack_.back().state != 0;
    }
    RawNode parent{token_.begin, token_.begin, 0, 0, symbol, productionId, false, visible};
    if (last > i) {
      parent.begin = nodes_[stack_[i].node].begin;
      parent.end = nodes_[stack_[last - 1].node].end;
    }
    if (parent.visible) {
      parent.firstChild = static_cast<uint32_t>(cst_.nodes.size());
      appendVisible(productionId, &stack_[i], last - i, 0);
      parent.childCount = static_cast<uint32_t>(cst_.nodes.size() - parent.firstChild);
    } else {
      parent.firstChild = static_cast<uint32_t>(hiddenKids_.size());
      parent.childCount = static_cast<uint32_t>(last - i);
      for (size_t k = i; k < last; ++k)
        hiddenKids_.push_back(stack_[k].node);
    }
    StackEntry trailing[64];
    size_t trailingCount = top - last;
    if (trailingCount > 64)
      return false;
    std::copy(stack_.begin() + last, stack_.end(), trailing);
    stack_.resize(i);
    TSStateId next = t_.entry(stack_.back().state, symbol);
    if (next == 0)
      return false;
    nodes_.push_back(parent);
    stack_.push_back({next, static_cast<uint32_t>(nodes_.size() - 1)});
    for (size_t k = 0; k < trailingCount; ++k)
      stack_.push_back({next, trailing[k].node});
    return true;
  }

  // ------------------------------------------------------------- Cst blocks

  TSFieldId fieldOf(uint16_t productionId, uint32_t structuralIndex) const {
    return structuralIndex < t_.maxChildren
               ? t_.fields[size_t(productionId) * t_.maxChildren + structuralIndex]
               : 0;
  }

  void appendCstNode(const RawNode &r, TSFieldId field) {
    CstNode c;
    c.begin = r.begin;
    c.end = r.end;
    c.firstChild = r.firstChild;
    c.childCount = r.childCount;
    c.symbol = lang_.public_symbol_map[r.symbol];
    c.field = field;
    c.named = lang_.symbol_metadata[r.symbol].named;
    c.extra = r.extra;
    cst_.nodes.push_back(c);
  }

  struct Frame {
    uint32_t node, next, structural;
    TSFieldId inherited;
  };
  std::vector<Frame> frames_;

  /// Appends the visible nodes among `entries` (children of a node of
  /// production `productionId`) to the Cst, hidden ones replaced by their
  /// visible descendants. A child without a field of its own takes its
  /// hidden parent's, as ts_tree_cursor_current_field_id does.
  void appendVisible(uint16_t productionId, const StackEntry *entries, size_t count,
                     TSFieldId inherited) {
    uint32_t structural = 0;
    for (size_t k = 0; k < count; ++k) {
      const RawNode &c = nodes_[entries[k].node];
      if (c.extra) {
        appendCstNode(c, 0);
        continue;
      }
      TSFieldId own = fieldOf(productionId, structural++);
      TSFieldId field = own ? own : inherited;
      if (c.visible)
        appendCstNode(c, field);
      else if (c.childCount)
        appendHidden(entries[k].node, field);
    }
  }

  /// appendVisible for the children of hidden node `id`, without recursion:
  /// repetitions make left-deep chains of hidden nodes.
  void appendHidden(uint32_t id, TSFieldId inherited) {
    frames_.clear();
    frames_.push_back({id, 0, 0, inherited});
    while (!frames_.empty()) {
      Frame &f = frames_.back();
      const RawNode &n = nodes_[f.node];
      if (f.next == n.childCount) {
        frames_.pop_back();
        continue;
      }
      uint32_t childId = hiddenKids_[n.firstChild + f.next++];
      const RawNode &c = nodes_[childId];
      if (c.extra) {
        appendCstNode(c, 0);
        continue;
      }
      TSFieldId own = fieldOf(n.productionId, f.structural++);
      TSFieldId field = own ? own : f.inherited;
      if (c.visible)
        appendCstNode(c, field);
      else if (c.childCount)
        frames_.push_back({childId, 0, 0, field}); // invalidates f
    }
  }

  /// The root: the last non-extra node with the extras around it spliced in.
  std::optional<Cst> accept() {
    size_t rootAt = stack_.size() - 1;
    while (rootAt > 1 && nodes_[stack_[rootAt].node].extra)
      --rootAt;
    RawNode root = nodes_[stack_[rootAt].node];
    if (!root.visible || root.extra)
      return std::nullopt;
    if (stack_.size() > 2) {
      auto first = static_cast<uint32_t>(cst_.nodes.size());
      for (size_t k = 1; k < stack_.size(); ++k) {
        if (k != rootAt) {
          appendCstNode(nodes_[stack_[k].node], 0);
          continue;
        }
        for (uint32_t c = 0; c < root.childCount; ++c)
          cst_.nodes.push_back(cst_.nodes[root.firstChild + c]);
      }
      root.firstChild = first;
      root.childCount = static_cast<uint32_t>(cst_.nodes.size() - first);
    }
    // As the runtime's root: from the first token (or extra) to the end of
    // the text, trailing whitespace included.
    root.begin = root.childCount ? cst_.nodes[root.firstChild].begin
                                 : static_cast<uint32_t>(text_.size());
    root.begin = std::max(root.begin, begin_);
    root.end = static_cast<uint32_t>(text_.size());
    appendCstNode(root, 0);
    cst_.root = static_cast<CstNodeId>(cst_.nodes.size() - 1);
    return std::move(cst_);
  }
};

} // namespace

std::optional<Cst> parseWithTables(std::string_view text, uint32_t begin,
                                   TableParseFailure *failure) {
  if (text.size() >= UINT32_MAX / 2 || begin > text.size())
    return std::nullopt;
  // Recording failures costs a copy of the stack at every abandoned
  // alternative; only a text that fails is parsed again to record them.
  if (std::optional<Cst> cst = TableParser(text, begin, nullptr).run())
    return cst;
  if (failure)
    TableParser(text, begin, failure).run();
  return std::nullopt;
}

} // namespace kina::syntax
