//===- ProtocolEngine.cpp - Proofs of the Hopper barrier protocol ---------===//
//
// Proves a protocol::Program (Protocol.h; docs/checks.md "Hopper protocol
// proofs"). For each trip count n of the sample n_min .. n_min + span:
//  1. unroll every warpgroup's role program into a trace of concrete events
//     (stage, round and region indices evaluated);
//  2. attribute arrivals to phases: a warpgroup's m-th arrive on stage s of B
//     counts toward round m of that stage; a tma_load's bytes count toward
//     the round of the issuing warpgroup's `arrive ... expect_tx` on that
//     stage in the same iteration (before or after the copy), else its last
//     arrive on that stage;
//  3. simulate: a warpgroup runs until a wait whose round is not complete;
//     a round completes when all its arrivals and copies were issued and the
//     previous round completed. Every event gets a vector clock (what
//     happens before it: per warpgroup an event count, per barrier stage the
//     highest round known complete). Warpgroups left blocked = deadlock;
//  4. check the rules on the clocks: phase exactness of waits, arrival
//     counts, expect_tx bytes, the order of arrivals and copies between
//     phases, every pair of accesses to a shared stage ordered (read after
//     the copy's phase was waited, refill after the readers' release, the
//     wgmma's read ending at the wgmma_wait that retires its group), the
//     proxy fence, and the wgmma groups of each warpgroup.
// Each finding is reported once per (code, span), with the first trip count
// and iteration that shows it. Unordered writes of a stage (K0633) are left
// out when a missing wait is already reported (K0620, K0624).
//
// Cost: the sample has at most kMaxSpan + 1 trip counts and each trace at
// most kMaxEvents events; the checks are linear in the events except the
// region pairs, quadratic in the accesses of one stage (tens).
//
//===----------------------------------------------------------------------===//
#include "sema/Protocol.h"

#include <algorithm>
#include <array>
#include <list>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <span>

namespace kina::sema::protocol {
namespace {

constexpr size_t kMaxEvents = 20000; ///< per warpgroup trace
constexpr int64_t kMaxSpan = 48;

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}
int64_t floorMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }

/// A failed evaluation: the node that is outside the model.
struct EvalError {
  XId at = kNoX;
  std::string why;
};

struct Evaluator {
  const Program &p;
  std::vector<int64_t> slots;
  std::vector<bool> set;
  int64_t n = 0;
  int64_t m = 0; ///< the block's tile count (persistent tile loop)
  std::optional<EvalError> error;

  /// Values computed since the slots last changed (a let or a loop
  /// variable is read by many events of one iteration).
  std::vector<int64_t> memo;
  std::vector<uint32_t> memoAt;
  uint32_t epoch = 1;
  void assign(int slot, int64_t v) {
    slots[slot] = v;
    set[slot] = true;
    ++epoch;
  }
  void unset(int slot) {
    set[slot] = false;
    ++epoch;
  }

  std::optional<int64_t> eval(XId id) {
    if (id == kNoX) {
      fail(id, "a missing index");
      return std::nullopt;
    }
    if (memo.size() != p.exprs.size()) {
      memo.assign(p.exprs.size(), 0);
      memoAt.assign(p.exprs.size(), 0);
    }
    if (memoAt[id] == epoch)
      return memo[id];
    auto v = evalNode(id);
    if (v) {
      memo[id] = *v;
      memoAt[id] = epoch;
    }
    return v;
  }
  std::optional<int64_t> evalNode(XId id) {
    const XNode &x = p.exprs[id];
    auto bin = [&](auto f) -> std::optional<int64_t> {
      auto a = eval(x.a);
      if (!a)
        return std::nullopt;
      auto b = eval(x.b);
      if (!b)
        return std::nullopt;
      return f(*a, *b);
    };
    switch (x.op) {
    case XOp::Const:
      return x.value;
    case XOp::Var:
      if (x.value < 0 || size_t(x.value) >= slots.size() || !set[x.value]) {
        fail(id, "a value the protocol model does not track");
        return std::nullopt;
      }
      return slots[x.value];
    case XOp::Param:
      return n + x.value;
    case XOp::Tiles:
      return m + x.value;
    case XOp::Add:
      return bin([](int64_t a, int64_t b) { return a + b; });
    case XOp::Sub:
      return bin([](int64_t a, int64_t b) { return a - b; });
    case XOp::Mul:
      return bin([](int64_t a, int64_t b) { return a * b; });
    case XOp::Div:
    case XOp::Mod: {
      auto a = eval(x.a);
      auto b = a ? eval(x.b) : std::nullopt;
      if (!a || !b)
        return std::nullopt;
      if (*b <= 0) {
        fail(id, "a division by a value that is not positive");
        return std::nullopt;
      }
      return x.op == XOp::Div ? floorDiv(*a, *b) : floorMod(*a, *b);
    }
    case XOp::Neg: {
      auto a = eval(x.a);
      if (!a)
        return std::nullopt;
      return -*a;
    }
    case XOp::Eq:
      return bin([](int64_t a, int64_t b) { return int64_t(a == b); });
    case XOp::Ne:
      return bin([](int64_t a, int64_t b) { return int64_t(a != b); });
    case XOp::Lt:
      return bin([](int64_t a, int64_t b) { return int64_t(a < b); });
    case XOp::Le:
      return bin([](int64_t a, int64_t b) { return int64_t(a <= b); });
    case XOp::Gt:
      return bin([](int64_t a, int64_t b) { return int64_t(a > b); });
    case XOp::Ge:
      return bin([](int64_t a, int64_t b) { return int64_t(a >= b); });
    case XOp::Unknown:
      fail(id, x.why);
      return std::nullopt;
    }
    return std::nullopt;
  }
  void fail(XId id, std::string why) {
    if (!error)
      error = EvalError{id, std::move(why)};
  }
};

/// A concrete region: tile and stage (-1: the whole tile).
struct CRegion {
  int tile = -1;
  int64_t stage = -1;
  bool overlaps(const CRegion &o) const {
    return tile == o.tile && (stage < 0 || o.stage < 0 || stage == o.stage);
  }
};

struct CEvent {
  const Event *ev = nullptr;
  int64_t iter = 0;                      ///< the innermost loop variable's value
  uint32_t serial = 0;                   ///< which loop iteration of the trace (0: outside loops)
  const std::string *iterName = nullptr; ///< its name (Node::varName); null outside loops
  int bs = -1;                           ///< barrier stage (index into the flat stage list)
  int64_t stage = 0;
  int64_t round = 0; ///< Wait: the round waited; Arrive/TmaLoad: attributed
  CRegion dst;
  /// The regions an event reads: at most kMaxReads (a statement reading
  /// more shared regions is outside the model), kept inline.
  struct Reads {
    std::array<CRegion, 4> r{};
    uint8_t n = 0;
    const CRegion *begin() const { return r.data(); }
    const CRegion *end() const { return r.data() + n; }
    size_t size() const { return n; }
  } reads;
};

struct Trace {
  int wg = 0;
  int role = 0;
  std::vector<CEvent> events;
};

/// Happens-before knowledge: per warpgroup the number of its events known
/// done, per barrier stage the highest round known complete.
struct Clock {
  std::vector<int32_t> done;
  std::vector<int32_t> complete;
  void join(const Clock &o) {
    for (size_t i = 0; i < done.size(); ++i)
      done[i] = std::max(done[i], o.done[i]);
    for (size_t i = 0; i < complete.size(); ++i)
      complete[i] = std::max(complete[i], o.complete[i]);
  }
  /// `o`: a flat clock, done then complete.
  void join(const int32_t *o) {
    for (size_t i = 0; i < done.size(); ++i)
      done[i] = std::max(done[i], o[i]);
    o += done.size();
    for (size_t i = 0; i < complete.size(); ++i)
      complete[i] = std::max(complete[i], o[i]);
  }
  void appendTo(std::vector<int32_t> &flat) const {
    flat.insert(flat.end(), done.begin(), done.end());
    flat.insert(flat.end(), complete.begin(), complete.end());
  }
};

struct EventRef {
  int trace = -1;
  int index = -1;
};

struct Round {
  std::vector<EventRef> arrivals, loads;
  int64_t txExpected = 0, txBytes = 0;
  /// Arrivals counted toward the phase: one per local arrive, the cluster
  /// size per `arrive ... cluster` (every peer runs it too).
  int64_t arrivalCount = 0;
  bool clusterArrivals = false; ///< some arrival of the phase is `cluster`
  bool multicastLoads = false;  ///< some copy of the phase is `multicast`
  size_t arrivalsDone = 0, loadsDone = 0;
  bool complete = false;
  Clock clock;
};

struct Finding {
  DiagId id;
  Span span;
  std::string message;
  std::vector<SpanLabel> labels;
  std::vector<std::string> notes;
  std::vector<FixIt> fixits;
};

class Engine {
public:
  Engine(const Program &p, DiagnosticSink &sink) : p_(p), sink_(sink) {
    for (const BarrierInfo &b : p.barriers) {
      base_.push_back(int(stageCount_));
      stageCount_ += size_t(std::max<int64_t>(b.stages, 1));
    }
  }

  void run();

private:
  /// Obligation 3: multicast stages are released by cluster arrivals only.
  void checkClusterReleases();
  const Program &p_;
  DiagnosticSink &sink_;
  std::vector<int> base_;
  size_t stageCount_ = 0;
  std::set<std::pair<DiagId, uint32_t>> reported_;
  std::vector<Finding> findings_;
  bool stop_ = false; ///< a cannot-prove error ended the proof

  // Per trip count.
  int64_t n_ = 0;
  int64_t m_ = 0; ///< the tile count of the sample point (hasTiles)
  std::vector<Trace> traces_;
  /// The clock after each executed event, flat per trace (width_ entries:
  /// done per trace, then complete per barrier stage).
  std::vector<std::vector<int32_t>> clocks_;
  size_t width_ = 0;
  const int32_t *clockAt(EventRef e) const {
    return clocks_[e.trace].data() + size_t(e.index) * width_;
  }
  int32_t completeAt(EventRef e, int bs) const { return clockAt(e)[traces_.size() + size_t(bs)]; }
  std::vector<std::vector<bool>> waitPhaseOk_; ///< W1 per wait event
  std::vector<int> pc_;
  std::vector<std::vector<Round>> rounds_; ///< by barrier stage
  std::set<int> badCountStages_;           ///< barrier stages with K0623

  Finding &report(DiagId id, Span span, std::string message) {
    findings_.push_back(Finding{id, span, std::move(message), {}, {}, {}});
    return findings_.back();
  }
  bool seen(DiagId id, Span span) const {
    if (reported_.count({id, span.begin}))
      return true;
    for (const Finding &f : findings_)
      if (f.id == id && f.span.begin == span.begin)
        return true;
    return false;
  }
  void flush() {
    // Two unordered writes of a stage are a consequence of the missing wait
    // a K0620 or K0624 already names: report them only on their own.
    bool racy = false;
    for (const Finding &f : findings_)
      racy =
          racy || f.id == DiagId::ProtocolStageRefilled || f.id == DiagId::ProtocolReadNotCovered;
    for (const auto &[id, at] : reported_)
      racy = racy || id == DiagId::ProtocolStageRefilled || id == DiagId::ProtocolReadNotCovered;
    for (Finding &f : findings_) {
      if (f.id == DiagId::ProtocolWritesUnordered && racy)
        continue;
      if (!reported_.insert({f.id, f.span.begin}).second)
        continue;
      Diagnostic &d = sink_.report(f.id, f.span, std::move(f.message));
      d.labels = std::move(f.labels);
      d.notes = std::move(f.notes);
      d.fixits = std::move(f.fixits);
    }
    findings_.clear();
  }
  /// `expression`: the construct is an index expression outside the model.
  void cannotProve(Span span, std::string what, bool expression = false) {
    stop_ = true;
    if (seen(DiagId::ProtocolCannotProve, span))
      return;
    Finding &f =
        report(DiagId::ProtocolCannotProve, span, "cannot prove the barrier protocol: " + what);
    if (expression)
      f.notes.push_back("the protocol proofs cover stage, round and loop expressions built from "
                        "constants, loop variables, `warpgroup_id`, one symbolic trip count and "
                        "the tile ordinal `t / G` of a persistent tile loop, with +, -, * by a "
                        "constant, / and mod by a constant, and the ring counter's "
                        "`(t / G) * n` (docs/checks.md)");
    else
      f.notes.push_back("docs/checks.md, \"Hopper protocol proofs\", lists what the model "
                        "covers");
  }

  std::string when(const CEvent &e, int trace) const {
    std::string s;
    if (p_.hasTiles)
      s += "with " + std::to_string(m_) + " tile" + (m_ == 1 ? "" : "s") + " for the block, ";
    if (p_.hasParam)
      s += "with " + p_.paramText + " = " + std::to_string(n_) + ", ";
    s += "warpgroup " + std::to_string(traces_[trace].wg);
    if (e.iterName)
      s += " in iteration " + *e.iterName + " = " + std::to_string(e.iter);
    return s;
  }
  std::string barrierStage(int barrier, int64_t stage) const {
    return "`" + p_.barriers[barrier].name + "` stage " + std::to_string(stage);
  }
  std::string regionText(const CRegion &r) const {
    std::string s = "`" + p_.tiles[r.tile].name + "`";
    if (r.stage >= 0)
      s += " stage " + std::to_string(r.stage);
    return s;
  }

  bool unroll();
  bool unrollBlock(const std::vector<uint32_t> &body, Evaluator &ev, Trace &t, int64_t iter,
                   const std::string *iterName, uint32_t serial);
  uint32_t serials_ = 0;
  std::optional<int64_t> evalAt(Evaluator &ev, XId id, Span where);
  void attribute();
  /// Execution order: an arrival counts toward the first round of its stage
  /// that still lacks arrivals when the simulation runs it (ping-pong
  /// consumers, where a warpgroup skips the rounds its peer takes); a copy
  /// toward its warpgroup's last `arrive ... expect_tx` on the stage. The
  /// phase-order check (K0627) then proves that no schedule attributes
  /// differently: each arrival of round r happens after round r - 1
  /// completed, so it cannot count toward an earlier round, and a later
  /// round's arrivals happen after it.
  bool byExecution_ = false;
  /// A failed retry decides the verdict (the point's first findings are
  /// reported): later points skip the retry, which would only double the
  /// cost of checking a broken kernel (a fuzzer's slow unit found it).
  bool retryFailed_ = false;
  bool attributeByExecution(size_t t, CEvent &c);
  void simulate();
  bool hb(EventRef a, EventRef b) const {
    if (a.trace < 0 || b.trace < 0 || b.index >= pc_[b.trace])
      return false;
    return clockAt(b)[a.trace] >= a.index + 1;
  }
  bool executed(EventRef r) const { return r.index >= 0 && r.index < pc_[r.trace]; }
  const CEvent &at(EventRef r) const { return traces_[r.trace].events[r.index]; }
  void checkCounts();
  void checkWaits();
  void checkPhaseOrder();
  void checkRegions();
  void checkGroups();
  void checkDeadlock();
  void checkStores();
  void checkCopiesWaited();
  void proveOne();
  void retryByExecution();
};

std::optional<int64_t> Engine::evalAt(Evaluator &ev, XId id, Span where) {
  ev.error.reset();
  auto v = ev.eval(id);
  if (!v) {
    Span s = where;
    std::string why = ev.error ? ev.error->why : "an expression outside the model";
    if (ev.error && ev.error->at != kNoX && p_.exprs[ev.error->at].span.end > 0)
      s = p_.exprs[ev.error->at].span;
    cannotProve(s, "it depends on " + why, true);
  }
  return v;
}

bool Engine::unrollBlock(const std::vector<uint32_t> &body, Evaluator &ev, Trace &t, int64_t iter,
                         const std::string *iterName, uint32_t serial) {
  for (uint32_t id : body) {
    if (stop_)
      return false;
    const Node &node = p_.nodes[id];
    switch (node.kind) {
    case NodeKind::Let: {
      ev.error.reset();
      auto v = ev.eval(node.value);
      // A let the protocol does not read may be anything (`block_id 0`).
      if (v) {
        ev.assign(node.slot, *v);
      } else {
        ev.unset(node.slot);
      }
      break;
    }
    case NodeKind::For: {
      auto lo = evalAt(ev, node.start, node.span);
      auto hi = lo ? evalAt(ev, node.end, node.span) : std::nullopt;
      if (!lo || !hi)
        return false;
      int64_t step = 1;
      if (node.step != kNoX) {
        auto st = evalAt(ev, node.step, node.span);
        if (!st)
          return false;
        if (*st <= 0) {
          cannotProve(node.span, "the loop's step is not positive");
          return false;
        }
        step = *st;
      }
      for (int64_t k = *lo; k < *hi; k += step) {
        ev.assign(node.slot, k);
        if (!unrollBlock(node.body, ev, t, k, &node.varName, ++serials_))
          return false;
      }
      ev.unset(node.slot);
      break;
    }
    case NodeKind::If: {
      auto c = evalAt(ev, node.cond, node.span);
      if (!c)
        return false;
      if (!unrollBlock(*c ? node.body : node.elseBody, ev, t, iter, iterName, serial))
        return false;
      break;
    }
    case NodeKind::Event: {
      if (t.events.size() >= kMaxEvents) {
        cannotProve(node.span, "the role runs more than " + std::to_string(kMaxEvents) +
                                   " protocol events for a trip count of the sample");
        return false;
      }
      const Event &e = node.event;
      CEvent c;
      c.ev = &e;
      c.iter = iter;
      c.iterName = iterName;
      c.serial = serial;
      if (e.barrier >= 0) {
        auto s = evalAt(ev, e.stage, e.span);
        if (!s)
          return false;
        const BarrierInfo &b = p_.barriers[e.barrier];
        if (*s < 0 || *s >= b.stages) {
          if (!seen(DiagId::ProtocolStageOutOfRange, e.span))
            report(DiagId::ProtocolStageOutOfRange, e.span,
                   "stage " + std::to_string(*s) + " of `" + b.name + "` is out of range 0 .. " +
                       std::to_string(b.stages - 1) + " (" + when(c, int(&t - traces_.data())) +
                       ")");
          stop_ = true;
          return false;
        }
        c.stage = *s;
        c.bs = base_[e.barrier] + int(*s);
      }
      if (e.kind == EvKind::Wait) {
        auto r = evalAt(ev, e.round, e.span);
        if (!r)
          return false;
        c.round = *r;
      }
      auto region = [&](const RegionRef &r) -> std::optional<CRegion> {
        CRegion cr{r.tile, -1};
        if (r.stage != kNoX) {
          auto s = evalAt(ev, r.stage, e.span);
          if (!s)
            return std::nullopt;
          cr.stage = *s;
        }
        return cr;
      };
      if (e.dst.tile >= 0) {
        auto d = region(e.dst);
        if (!d)
          return false;
        c.dst = *d;
      }
      if (e.reads.size() > c.reads.r.size()) {
        cannotProve(e.span, "the statement reads more than " + std::to_string(c.reads.r.size()) +
                                " shared regions");
        return false;
      }
      for (const RegionRef &r : e.reads) {
        auto d = region(r);
        if (!d)
          return false;
        c.reads.r[c.reads.n++] = *d;
      }
      t.events.push_back(std::move(c));
      break;
    }
    }
  }
  return true;
}

bool Engine::unroll() {
  traces_.clear();
  for (size_t r = 0; r < p_.roles.size(); ++r) {
    const RoleInfo &role = p_.roles[r];
    for (int64_t wg = role.first; wg <= role.last; ++wg) {
      Trace t;
      t.wg = int(wg);
      t.role = int(r);
      traces_.push_back(std::move(t));
      Evaluator ev{p_,
                   std::vector<int64_t>(size_t(p_.slots), 0),
                   std::vector<bool>(size_t(p_.slots), false),
                   n_,
                   m_,
                   std::nullopt};
      if (p_.warpgroupSlot >= 0) {
        ev.assign(p_.warpgroupSlot, wg);
      }
      if (!unrollBlock(role.body, ev, traces_.back(), 0, nullptr, 0))
        return false;
    }
  }
  return true;
}

void Engine::attribute() {
  rounds_.assign(stageCount_, {});
  auto roundOf = [&](int bs, int64_t r) -> Round & {
    auto &v = rounds_[bs];
    if (v.size() <= size_t(r))
      v.resize(size_t(r) + 1);
    return v[size_t(r)];
  };
  for (size_t ti = 0; ti < traces_.size(); ++ti) {
    std::vector<int64_t> arrives(stageCount_, 0);
    // The warpgroup's waits before its last arrive on each stage, and that
    // arrive's loop iteration.
    std::vector<int64_t> waitsAtArrive(stageCount_, -1);
    std::vector<uint32_t> serialAtArrive(stageCount_, 0);
    int64_t waits = 0;
    for (size_t i = 0; i < traces_[ti].events.size(); ++i) {
      CEvent &c = traces_[ti].events[i];
      EventRef ref{int(ti), int(i)};
      if (c.ev->kind == EvKind::Wait)
        ++waits;
      if (c.ev->kind == EvKind::Arrive) {
        if (waitsAtArrive[c.bs] == waits && serialAtArrive[c.bs] == c.serial) {
          cannotProve(c.ev->span,
                      "warpgroup " + std::to_string(traces_[ti].wg) + " arrives twice on " +
                          barrierStage(c.ev->barrier, c.stage) +
                          " with no wait in between; the model counts a warpgroup's m-th "
                          "arrive on a stage toward round m, so it covers one arrival per "
                          "warpgroup and phase (announce all the phase's bytes in one `arrive "
                          "... expect_tx`)");
          return;
        }
        waitsAtArrive[c.bs] = waits;
        serialAtArrive[c.bs] = c.serial;
        c.round = arrives[c.bs]++;
        Round &r = roundOf(c.bs, c.round);
        r.arrivals.push_back(ref);
        r.txExpected += c.ev->hasTx ? c.ev->txBytes : 0;
        r.arrivalCount += c.ev->cluster ? p_.clusterSize : 1;
        r.clusterArrivals = r.clusterArrivals || c.ev->cluster;
      }
    }
    // A copy counts toward the phase of its warpgroup's `arrive ...
    // expect_tx` on that stage in the same iteration (the last one before
    // it, else the first one after it: the pending arrival keeps the phase
    // open), else toward the phase of the warpgroup's last arrive on the
    // stage before it.
    auto &evs = traces_[ti].events;
    for (size_t i = 0; i < evs.size(); ++i) {
      CEvent &c = evs[i];
      if (c.ev->kind != EvKind::TmaLoad)
        continue;
      const CEvent *owner = nullptr;
      for (size_t j = i; j-- > 0 && evs[j].serial == c.serial;)
        if (evs[j].ev->kind == EvKind::Arrive && evs[j].bs == c.bs && evs[j].ev->hasTx) {
          owner = &evs[j];
          break;
        }
      for (size_t j = i + 1; !owner && j < evs.size() && evs[j].serial == c.serial; ++j)
        if (evs[j].ev->kind == EvKind::Arrive && evs[j].bs == c.bs && evs[j].ev->hasTx)
          owner = &evs[j];
      for (size_t j = i; !owner && j-- > 0;)
        if (evs[j].ev->kind == EvKind::Arrive && evs[j].bs == c.bs)
          owner = &evs[j];
      if (!owner) {
        bool announces = false;
        for (const CEvent &a : evs)
          announces = announces || (a.ev->kind == EvKind::Arrive && a.ev->hasTx && a.bs == c.bs);
        if (!announces) {
          const BarrierInfo &bar = p_.barriers[c.ev->barrier];
          report(DiagId::ProtocolExpectTxMismatch, c.ev->span,
                 "this copy completes on " + barrierStage(c.ev->barrier, c.stage) +
                     ", but no `arrive " + bar.name +
                     "[...] expect_tx` on that stage by warpgroup " +
                     std::to_string(traces_[ti].wg) + " announces its " +
                     std::to_string(c.ev->bytes) + " bytes (" + when(c, int(ti)) + ")")
              .notes.push_back("a phase completes when its arrivals are in and the announced "
                               "transaction bytes landed; unannounced bytes count toward "
                               "whatever phase is current");
          stop_ = true;
          return;
        }
        cannotProve(c.ev->span,
                    "this `tma_load` completes on " + barrierStage(c.ev->barrier, c.stage) +
                        ", but its warpgroup's `arrive ... expect_tx` on that stage is in "
                        "another iteration, so the phase its bytes count toward is not known");
        return;
      }
      c.round = owner->round;
      Round &r = roundOf(c.bs, c.round);
      r.loads.push_back(EventRef{int(ti), int(i)});
      // A multicast box lands here once per CTA of the cluster (obligation 1).
      r.txBytes += c.ev->multicast ? c.ev->bytes * p_.clusterSize : c.ev->bytes;
      r.multicastLoads = r.multicastLoads || c.ev->multicast;
    }
  }
}

bool Engine::attributeByExecution(size_t t, CEvent &c) {
  if (c.ev->kind != EvKind::Arrive && c.ev->kind != EvKind::TmaLoad)
    return true;
  auto &v = rounds_[c.bs];
  EventRef self{int(t), pc_[t]};
  if (c.ev->kind == EvKind::Arrive) {
    int64_t need = p_.barriers[c.ev->barrier].arrivals;
    size_t r = 0;
    while (r < v.size() && (v[r].arrivalCount >= need || v[r].complete))
      ++r;
    if (r == v.size())
      v.emplace_back();
    c.round = int64_t(r);
    Round &R = v[r];
    R.arrivals.push_back(self);
    R.txExpected += c.ev->hasTx ? c.ev->txBytes : 0;
    R.arrivalCount += c.ev->cluster ? p_.clusterSize : 1;
    R.clusterArrivals = R.clusterArrivals || c.ev->cluster;
    return true;
  }
  // A copy: the warpgroup's last `arrive ... expect_tx` on the stage in this
  // iteration, else its last arrive on the stage, both already run.
  const auto &evs = traces_[t].events;
  const CEvent *owner = nullptr;
  for (int j = pc_[t]; j-- > 0 && evs[size_t(j)].serial == c.serial;)
    if (evs[size_t(j)].ev->kind == EvKind::Arrive && evs[size_t(j)].bs == c.bs &&
        evs[size_t(j)].ev->hasTx) {
      owner = &evs[size_t(j)];
      break;
    }
  for (int j = pc_[t]; !owner && j-- > 0;)
    if (evs[size_t(j)].ev->kind == EvKind::Arrive && evs[size_t(j)].bs == c.bs)
      owner = &evs[size_t(j)];
  if (!owner) {
    cannotProve(c.ev->span, "this `tma_load` completes on " + barrierStage(c.ev->barrier, c.stage) +
                                " before its warpgroup announced the phase's bytes there");
    return false;
  }
  c.round = owner->round;
  Round &R = v[size_t(c.round)];
  R.loads.push_back(self);
  R.txBytes += c.ev->multicast ? c.ev->bytes * p_.clusterSize : c.ev->bytes;
  R.multicastLoads = R.multicastLoads || c.ev->multicast;
  return true;
}

void Engine::simulate() {
  size_t g = traces_.size();
  Clock zero;
  zero.done.assign(g, 0);
  zero.complete.assign(stageCount_, -1);
  std::vector<Clock> cur(g, zero);
  clocks_.assign(g, {});
  width_ = g + stageCount_;
  for (size_t t = 0; t < g; ++t)
    clocks_[t].reserve(traces_[t].events.size() * width_);
  waitPhaseOk_.assign(g, {});
  pc_.assign(g, 0);
  // Rounds complete in order; a round completes when its arrivals and copies
  // were all issued (counts are checked separately, K0623/K0622).
  // Rounds [0, firstOpen[bs]) of each stage are complete.
  std::vector<size_t> firstOpen(stageCount_, 0);
  auto tryComplete = [&](int bs) {
    auto &v = rounds_[bs];
    for (size_t r = firstOpen[bs]; r < v.size(); ++r) {
      Round &R = v[r];
      if (R.complete)
        continue;
      if (R.arrivals.empty() || R.arrivalsDone < R.arrivals.size() || R.loadsDone < R.loads.size())
        return;
      // By execution order a round holds only what ran so far: it completes
      // with its barrier's arrival count and its announced bytes landed.
      if (byExecution_ &&
          (R.arrivalCount < p_.barriers[at(R.arrivals.front()).ev->barrier].arrivals ||
           R.txBytes < R.txExpected))
        return;
      R.complete = true;
      R.clock = zero;
      if (r > 0)
        R.clock.join(v[r - 1].clock);
      for (EventRef e : R.arrivals)
        R.clock.join(clockAt(e));
      for (EventRef e : R.loads)
        R.clock.join(clockAt(e));
      R.clock.complete[bs] = std::max<int32_t>(R.clock.complete[bs], int32_t(r));
      firstOpen[bs] = r + 1;
    }
  };
  bool progress = true;
  while (progress) {
    progress = false;
    for (size_t t = 0; t < g; ++t) {
      auto &evs = traces_[t].events;
      while (pc_[t] < int(evs.size())) {
        CEvent &c = evs[pc_[t]];
        if (byExecution_ && !attributeByExecution(t, c))
          return;
        bool phaseOk = true;
        if (c.ev->kind == EvKind::Wait && c.round >= 0) {
          auto &v = rounds_[c.bs];
          if (size_t(c.round) >= v.size() || !v[c.round].complete)
            break;
          phaseOk = c.round == 0 || cur[t].complete[c.bs] >= c.round - 1;
          cur[t].join(v[c.round].clock);
        }
        cur[t].done[t] = pc_[t] + 1;
        cur[t].appendTo(clocks_[t]);
        waitPhaseOk_[t].push_back(phaseOk);
        ++pc_[t];
        progress = true;
        if (c.ev->kind == EvKind::Arrive) {
          ++rounds_[c.bs][c.round].arrivalsDone;
          tryComplete(c.bs);
        } else if (c.ev->kind == EvKind::TmaLoad) {
          ++rounds_[c.bs][c.round].loadsDone;
          tryComplete(c.bs);
        }
      }
    }
  }
}

void Engine::checkCounts() {
  badCountStages_.clear();
  for (size_t b = 0; b < p_.barriers.size(); ++b) {
    const BarrierInfo &bar = p_.barriers[b];
    // Rounds someone waits for, per stage: a short last round nobody waits
    // for is harmless.
    for (int64_t s = 0; s < bar.stages; ++s) {
      int bs = base_[b] + int(s);
      int64_t maxWaited = -1;
      for (const Trace &t : traces_)
        for (const CEvent &c : t.events)
          if (c.ev->kind == EvKind::Wait && c.bs == bs)
            maxWaited = std::max(maxWaited, c.round);
      auto &v = rounds_[bs];
      for (size_t r = 0; r < v.size(); ++r) {
        const Round &R = v[r];
        int64_t count = R.arrivalCount;
        bool bad = count > bar.arrivals || (count < bar.arrivals && int64_t(r) <= maxWaited);
        if (bad && R.clusterArrivals && !seen(DiagId::ProtocolClusterArrivalCount, bar.span)) {
          // Obligation 3: cluster arrivals count once per CTA of the cluster.
          badCountStages_.insert(bs);
          int64_t local = 0, clustered = 0;
          for (EventRef e : R.arrivals)
            (at(e).ev->cluster ? clustered : local) += 1;
          Finding &f = report(
              DiagId::ProtocolClusterArrivalCount,
              bar.arrivalsSpan.end ? bar.arrivalsSpan : bar.span,
              "round " + std::to_string(r) + " of " + barrierStage(int(b), s) + " gets " +
                  std::to_string(count) + " arrivals (" + std::to_string(clustered) + " warpgroup" +
                  (clustered == 1 ? "" : "s") + " arriving `cluster` x " +
                  std::to_string(p_.clusterSize) + " CTAs" +
                  (local ? " + " + std::to_string(local) + " local" : std::string()) + "), but `" +
                  bar.name + "` completes a phase after " + std::to_string(bar.arrivals));
          f.notes.push_back("`arrive " + bar.name +
                            "[s] cluster` arrives on the stage in every CTA of the cluster, and "
                            "every CTA runs it, so each CTA's barrier gets one arrival per "
                            "warpgroup per CTA");
          if (!R.arrivals.empty())
            f.labels.push_back({at(R.arrivals.front()).ev->span, "arrives here"});
          if (bar.arrivalsSpan.end && count > 0)
            f.fixits.push_back({bar.arrivalsSpan, std::to_string(count),
                                "count " + std::to_string(count) + " arrivals per phase"});
        } else if (bad && !R.clusterArrivals && !seen(DiagId::ProtocolArrivalCount, bar.span)) {
          badCountStages_.insert(bs);
          std::string who;
          for (EventRef e : R.arrivals)
            who += (who.empty() ? "" : ", ") + std::to_string(traces_[e.trace].wg);
          Finding &f = report(
              DiagId::ProtocolArrivalCount, bar.arrivalsSpan.end ? bar.arrivalsSpan : bar.span,
              "round " + std::to_string(r) + " of " + barrierStage(int(b), s) + " gets " +
                  std::to_string(count) + " arrival" + (count == 1 ? "" : "s") +
                  (who.empty() ? ""
                               : " (warpgroup" + std::string(count == 1 ? " " : "s ") + who + ")") +
                  ", but `" + bar.name + "` completes a phase after " +
                  std::to_string(bar.arrivals));
          if (p_.hasParam || p_.hasTiles)
            f.notes.push_back(
                (p_.hasTiles ? "with " + std::to_string(m_) + " tiles for the block" : "") +
                std::string(p_.hasTiles && p_.hasParam ? ", " : "") +
                (p_.hasParam ? "with " + p_.paramText + " = " + std::to_string(n_) : ""));
          f.notes.push_back("each warpgroup executing `arrive` arrives once; a role of "
                            "warpgroups i .. j arrives j - i + 1 times per phase");
          if (!R.arrivals.empty())
            f.labels.push_back({at(R.arrivals.front()).ev->span, "arrives here"});
          // The fix-it when every round that gets arrivals gets the same count.
          bool uniform = count > 0;
          for (int64_t s2 = 0; s2 < bar.stages && uniform; ++s2)
            for (const Round &R2 : rounds_[base_[b] + int(s2)])
              if (!R2.arrivals.empty() && R2.arrivalCount != count && &R2 != &v.back())
                uniform = false;
          if (uniform && bar.arrivalsSpan.end)
            f.fixits.push_back({bar.arrivalsSpan, std::to_string(count),
                                "count " + std::to_string(count) + " arrivals per phase"});
        }
        if (bad)
          badCountStages_.insert(bs);
        // expect_tx against the copies of the phase.
        if ((R.txExpected != 0 || !R.loads.empty()) && R.txExpected != R.txBytes) {
          const CEvent *txArrive = nullptr;
          int txCount = 0;
          for (EventRef e : R.arrivals)
            if (at(e).ev->hasTx) {
              ++txCount;
              if (!txArrive)
                txArrive = &at(e);
            }
          Span where = txArrive ? txArrive->ev->span
                                : (!R.arrivals.empty() ? at(R.arrivals.front()).ev->span
                                                       : at(R.loads.front()).ev->span);
          if (seen(DiagId::ProtocolExpectTxMismatch, where) ||
              seen(DiagId::ProtocolMulticastExpectTx, where))
            continue;
          EventRef first = !R.arrivals.empty() ? R.arrivals.front() : R.loads.front();
          if (R.multicastLoads) {
            // Obligation 1: the peers' multicast boxes land here too.
            std::string sum;
            for (EventRef e : R.loads) {
              const Event &ld = *at(e).ev;
              sum += (sum.empty() ? "" : " + ") +
                     (ld.multicast ? std::to_string(p_.clusterSize) + " x " : std::string()) +
                     std::to_string(ld.bytes);
            }
            Finding &f =
                report(DiagId::ProtocolMulticastExpectTx, where,
                       "round " + std::to_string(r) + " of " + barrierStage(int(b), s) +
                           " expects " + std::to_string(R.txExpected) + " transaction bytes, but " +
                           sum + " = " + std::to_string(R.txBytes) + " land in this CTA's stage (" +
                           when(at(first), first.trace) + ")");
            for (EventRef e : R.loads)
              f.labels.push_back(
                  {at(e).ev->span, at(e).ev->multicast
                                       ? std::to_string(at(e).ev->bytes) + " bytes from each of " +
                                             std::to_string(p_.clusterSize) + " CTAs"
                                       : std::to_string(at(e).ev->bytes) + " bytes"});
            f.notes.push_back("every CTA of the cluster runs the multicast copy with its own "
                              "`cluster_rank`, and each box lands in all of them: a stage "
                              "receives its own copies plus cluster size x each multicast box");
            if (txCount == 1 && txArrive->ev->txSpan.end)
              f.fixits.push_back({txArrive->ev->txSpan, std::to_string(R.txBytes),
                                  "expect " + std::to_string(R.txBytes) + " bytes"});
            continue;
          }
          Finding &f =
              report(DiagId::ProtocolExpectTxMismatch, where,
                     "round " + std::to_string(r) + " of " + barrierStage(int(b), s) + " expects " +
                         std::to_string(R.txExpected) +
                         " transaction bytes, but the copies that complete on it " + "bring " +
                         std::to_string(R.txBytes) + " (" + when(at(first), first.trace) + ")");
          for (EventRef e : R.loads)
            f.labels.push_back({at(e).ev->span, std::to_string(at(e).ev->bytes) + " bytes"});
          if (R.txBytes == 0)
            f.notes.push_back("no `tma_load ... completes " + bar.name +
                              "[...]` counts toward this phase, so it never completes");
          else if (R.txExpected < R.txBytes)
            f.notes.push_back("the phase can complete before all copies landed; the rest "
                              "counts toward the next phase");
          if (txCount == 1 && R.txBytes > 0 && txArrive->ev->txSpan.end)
            f.fixits.push_back({txArrive->ev->txSpan, std::to_string(R.txBytes),
                                "expect " + std::to_string(R.txBytes) + " bytes"});
        }
      }
    }
  }
}

void Engine::checkWaits() {
  for (size_t t = 0; t < traces_.size(); ++t) {
    for (int i = 0; i < pc_[t]; ++i) {
      const CEvent &c = traces_[t].events[i];
      if (c.ev->kind != EvKind::Wait || badCountStages_.count(c.bs))
        continue;
      const BarrierInfo &bar = p_.barriers[c.ev->barrier];
      if (!waitPhaseOk_[t][i] && !seen(DiagId::ProtocolWaitWrongPhase, c.ev->span)) {
        Finding &f = report(DiagId::ProtocolWaitWrongPhase, c.ev->span,
                            "`" + c.ev->what + "` waits for round " + std::to_string(c.round) +
                                " of " + barrierStage(c.ev->barrier, c.stage) + " before round " +
                                std::to_string(c.round - 1) + " is known complete (" +
                                when(c, int(t)) + ")");
        f.notes.push_back("the wait tests the phase parity (round mod 2), so it can also pass "
                          "when round " +
                          std::to_string(c.round - 2) +
                          " completes: it may return one or more rounds early");
      }
      // Round r + 1 (round 0 for a negative round) must not be able to
      // complete before the wait: one of its arrivals happens after it.
      int64_t next = c.round < 0 ? 0 : c.round + 1;
      auto &v = rounds_[c.bs];
      if (size_t(next) >= v.size() || !v[next].complete)
        continue;
      const Round &R = v[next];
      EventRef self{int(t), i};
      bool after = false;
      for (EventRef e : R.arrivals)
        after = after || hb(self, e);
      for (EventRef e : R.loads)
        after = after || hb(self, e);
      if (!after && !seen(DiagId::ProtocolWaitWrongPhase, c.ev->span)) {
        Finding &f = report(DiagId::ProtocolWaitWrongPhase, c.ev->span,
                            "`" + c.ev->what + "` waits for round " + std::to_string(c.round) +
                                " of " + barrierStage(c.ev->barrier, c.stage) + ", but round " +
                                std::to_string(next) + " may complete before the wait runs (" +
                                when(c, int(t)) + ")");
        f.notes.push_back(c.round < 0
                              ? "a negative round passes only while the stage's first phase is "
                                "incomplete; here it may already be complete"
                              : "the wait tests the phase parity (round mod 2): once round " +
                                    std::to_string(next) + " completed it waits for round " +
                                    std::to_string(next + 1) + " instead");
        f.labels.push_back(
            {at(R.arrivals.front()).ev->span, "round " + std::to_string(next) + " of `" + bar.name +
                                                  "` arrives here, not ordered after the wait"});
      }
    }
  }
}

void Engine::checkPhaseOrder() {
  for (size_t bs = 0; bs < rounds_.size(); ++bs) {
    if (badCountStages_.count(int(bs)))
      continue;
    auto &v = rounds_[bs];
    for (size_t r = 1; r < v.size(); ++r) {
      auto check = [&](EventRef e, bool copy) {
        if (!executed(e))
          return;
        if (completeAt(e, int(bs)) >= int32_t(r) - 1)
          return;
        const CEvent &ce = at(e);
        if (seen(DiagId::ProtocolStageRefilled, ce.ev->span) ||
            seen(DiagId::ProtocolWritesUnordered, ce.ev->span) ||
            seen(DiagId::ProtocolArrivalWrongPhase, ce.ev->span))
          return;
        Finding &f = report(DiagId::ProtocolArrivalWrongPhase, ce.ev->span,
                            std::string(copy ? "the copy's bytes are" : "this arrival is") +
                                " meant for round " + std::to_string(r) + " of " +
                                barrierStage(ce.ev->barrier, ce.stage) + ", but round " +
                                std::to_string(r - 1) + " is not known complete when it " +
                                "happens (" + when(ce, e.trace) + ")");
        f.notes.push_back("it may count toward round " + std::to_string(r - 1) +
                          " instead; order it after a wait that implies round " +
                          std::to_string(r - 1) + " completed");
      };
      for (EventRef e : v[r].arrivals)
        check(e, false);
      for (EventRef e : v[r].loads)
        check(e, true);
    }
  }
}

struct Access {
  EventRef ref;
  CRegion region;
  bool write = false;
  bool copy = false;  ///< tma_load: completes on a barrier phase
  bool async = false; ///< wgmma operand or tma_store source: the read ends at endIndex
  bool store = false; ///< tma_store source
  int endIndex = -1;  ///< async read: the retiring wgmma_wait / tma_store_wait (-1: never)
  int bs = -1;
  int64_t round = 0;
};

void Engine::checkRegions() {
  std::vector<Access> acc;
  // Which wgmma_wait retires each wgmma (per trace, FIFO groups).
  for (size_t t = 0; t < traces_.size(); ++t) {
    auto &evs = traces_[t].events;
    // wgmma groups and tma_store bulk groups: committed, oldest first.
    std::vector<std::vector<int>> groups, storeGroups;
    std::vector<int> open, openStores;
    std::vector<int> retiredAt(evs.size(), -1);
    auto retire = [&](std::vector<std::vector<int>> &gs, int64_t pending, int at) {
      while (int64_t(gs.size()) > pending) {
        for (int w : gs.front())
          retiredAt[w] = at;
        gs.erase(gs.begin());
      }
    };
    for (size_t i = 0; i < evs.size(); ++i) {
      EvKind k = evs[i].ev->kind;
      if (k == EvKind::Wgmma)
        open.push_back(int(i));
      else if (k == EvKind::Commit) {
        groups.push_back(open);
        open.clear();
      } else if (k == EvKind::WgmmaWait) {
        retire(groups, evs[i].ev->pending, int(i));
      } else if (k == EvKind::TmaStore) {
        openStores.push_back(int(i));
      } else if (k == EvKind::StoreCommit) {
        storeGroups.push_back(openStores);
        openStores.clear();
      } else if (k == EvKind::StoreWait) {
        retire(storeGroups, evs[i].ev->pending, int(i));
      }
    }
    for (int i = 0; i < pc_[t]; ++i) {
      const CEvent &c = evs[i];
      EventRef ref{int(t), i};
      switch (c.ev->kind) {
      case EvKind::TmaLoad:
        acc.push_back({ref, c.dst, true, true, false, false, i, c.bs, c.round});
        break;
      case EvKind::SharedWrite:
        acc.push_back({ref, c.dst, true, false, false, false, i, -1, 0});
        break;
      case EvKind::SharedRead:
        for (const CRegion &r : c.reads)
          acc.push_back({ref, r, false, false, false, false, i, -1, 0});
        break;
      case EvKind::Wgmma:
      case EvKind::TmaStore: {
        int end = retiredAt[i] >= 0 && retiredAt[i] < pc_[t] ? retiredAt[i] : -1;
        bool store = c.ev->kind == EvKind::TmaStore;
        for (const CRegion &r : c.reads)
          acc.push_back({ref, r, false, false, true, store, end, -1, 0});
        break;
      }
      default:
        break;
      }
    }
  }
  // Accesses grouped by tile and stage (the whole tile first): only those
  // of one tile and stage, or of the whole tile, can overlap.
  std::stable_sort(acc.begin(), acc.end(), [](const Access &a, const Access &b) {
    return std::pair(a.region.tile, a.region.stage) < std::pair(b.region.tile, b.region.stage);
  });
  std::map<std::pair<int, int64_t>, std::pair<size_t, size_t>> groups;
  for (size_t i = 0; i < acc.size();) {
    size_t j = i;
    while (j < acc.size() && acc[j].region.tile == acc[i].region.tile &&
           acc[j].region.stage == acc[i].region.stage)
      ++j;
    groups[{acc[i].region.tile, acc[i].region.stage}] = {i, j};
    i = j;
  }
  /// The index ranges of the accesses that may overlap `a`.
  auto overlapping = [&](const Access &a) {
    std::vector<std::pair<size_t, size_t>> out;
    if (a.region.stage < 0) {
      for (auto it = groups.lower_bound({a.region.tile, INT64_MIN});
           it != groups.end() && it->first.first == a.region.tile; ++it)
        out.push_back(it->second);
      return out;
    }
    for (int64_t st : {int64_t(-1), a.region.stage}) {
      auto it = groups.find({a.region.tile, st});
      if (it != groups.end())
        out.push_back(it->second);
    }
    return out;
  };
  auto anyWrite = [&](const Access &x, auto pred) {
    for (auto [b, e] : overlapping(x))
      for (size_t i = b; i < e; ++i)
        if (acc[i].write && pred(acc[i]))
          return static_cast<const Access *>(&acc[i]);
    return static_cast<const Access *>(nullptr);
  };
  // Tiles only read in the protocol are written outside it: not proved.
  std::set<int> written;
  for (const Access &a : acc)
    if (a.write)
      written.insert(a.region.tile);
  for (const Access &a : acc)
    if (!a.write && !written.count(a.region.tile)) {
      cannotProve(at(a.ref).ev->span,
                  "`" + p_.tiles[a.region.tile].name +
                      "` is read here but written only outside the roles; the model covers "
                      "shared tiles the roles write");
      return;
    }
  auto knownAt = [&](const Access &w, EventRef e) {
    // A copy's data is known landed at e when its phase is known complete.
    return !w.copy || completeAt(e, w.bs) >= w.round;
  };
  auto ends = [&](const Access &x) { return EventRef{x.ref.trace, x.endIndex}; };
  auto before = [&](const Access &x, const Access &y) {
    // x's access is over before y's begins.
    if (x.async && x.endIndex < 0)
      return false;
    EventRef xe = x.async ? ends(x) : x.ref;
    return hb(xe, y.ref) && knownAt(x, y.ref);
  };
  // Every read follows a write of its stage whose data is known landed
  // (copies: their phase known complete), or it reads what nothing filled.
  for (const Access &x : acc) {
    if (x.write)
      continue;
    bool covered = anyWrite(x, [&](const Access &w) { return before(w, x); }) != nullptr;
    const CEvent &xe = at(x.ref);
    if (!covered && !seen(DiagId::ProtocolReadNotCovered, xe.ev->span)) {
      const Access *pending = nullptr;
      for (auto [b, e] : overlapping(x))
        for (size_t i = b; i < e; ++i)
          if (acc[i].write && hb(acc[i].ref, x.ref))
            pending = &acc[i];
      // Filled by plain stores (`c_s[s] <- v` before a tma_store), not
      // copies: the message says store, not copy.
      bool copies = false;
      for (auto [b, e] : overlapping(x))
        for (size_t i = b; i < e; ++i)
          copies = copies || (acc[i].write && acc[i].copy);
      std::string why =
          pending  ? " is not covered by a wait on the phase its copy completes"
          : copies ? " happens before any copy into it is known complete: no wait covers a copy "
                     "that fills it"
                   : " is not ordered after any store into it: no store of that stage happens "
                     "before the read (order them with a barrier the reader waits on)";
      Finding &f =
          report(DiagId::ProtocolReadNotCovered, xe.ev->span,
                 "this read of " + regionText(x.region) + why + " (" + when(xe, x.ref.trace) + ")");
      if (pending && pending->copy)
        f.labels.push_back({at(pending->ref).ev->span,
                            "the copy completes on " +
                                barrierStage(at(pending->ref).ev->barrier, at(pending->ref).stage) +
                                " round " + std::to_string(pending->round)});
      // The fix-it when the copy of this iteration's data is the ring's
      // natural one: stage k mod S, round k / S of the read's loop variable.
      if (xe.iterName && xe.ev->insertAt.end && xe.ev->loopDepth <= 1)
        for (auto [b, e] : overlapping(x))
          for (size_t i = b; i < e && f.fixits.empty(); ++i) {
            const Access &w = acc[i];
            if (!w.write || !w.copy)
              continue;
            const CEvent &we = at(w.ref);
            int64_t S = p_.barriers[we.ev->barrier].stages;
            if (S <= 0 || we.stage != xe.iter % S || w.round != xe.iter / S || xe.iter < 0)
              continue;
            const std::string &k = *xe.iterName;
            std::string wait = "wait " + p_.barriers[we.ev->barrier].name + "[" +
                               (S == 1 ? "0" : k + " mod " + std::to_string(S)) + "] round (" +
                               (S == 1 ? k : k + " / " + std::to_string(S)) + ")";
            f.fixits.push_back(
                {xe.ev->insertAt, wait + "\n" + xe.ev->indent, "insert `" + wait + "`"});
          }
    }
  }
  // Pruning by transitivity: in a group (one tile and stage, no access of
  // the whole tile) whose writes form a chain w_0 before w_1 before ..., an
  // access x after w_{k+1} is after every w_k' with k' <= k, and one before
  // w_{k-1} is before every later write. Only the writes from lo(x) (the
  // last write before x) to hi(x) (the first write after x) can be unordered
  // with x; the others are proved ordered and skipped. (`before` is
  // transitive: hb is, and clocks only grow along it.)
  std::vector<int> chainPos(acc.size(), -1), lo(acc.size(), -1), hi(acc.size(), INT32_MAX);
  std::vector<std::vector<size_t>> bucket(acc.size()); ///< chained write -> accesses to pair
  for (const auto &[key, range] : groups) {
    if (key.second < 0 || groups.count({key.first, -1}))
      continue;
    std::vector<size_t> writes;
    for (size_t i = range.first; i < range.second; ++i)
      if (acc[i].write)
        writes.push_back(i);
    bool chain = true;
    for (size_t k = 0; k + 1 < writes.size() && chain; ++k)
      chain = before(acc[writes[k]], acc[writes[k + 1]]);
    if (!chain)
      continue;
    for (size_t k = 0; k < writes.size(); ++k)
      chainPos[writes[k]] = int(k);
    for (size_t j = range.first; j < range.second; ++j) {
      const Access &x = acc[j];
      // Largest k with w_k before x (monotone along the chain).
      int a = -1, b = int(writes.size()) - 1;
      while (a < b) {
        int mid = (a + b + 1) / 2;
        if (before(acc[writes[mid]], x))
          a = mid;
        else
          b = mid - 1;
      }
      lo[j] = a;
      // Smallest k with x before w_k.
      int c = 0, d = int(writes.size());
      while (c < d) {
        int mid = (c + d) / 2;
        if (before(x, acc[writes[mid]]))
          d = mid;
        else
          c = mid + 1;
      }
      hi[j] = c;
      for (int k = std::max(a, 0); k <= std::min(c, int(writes.size()) - 1); ++k)
        bucket[writes[k]].push_back(j);
    }
  }
  auto pairCheck = [&](size_t i, size_t j) {
    const Access &w = acc[i];
    const Access &x = acc[j];
    if (i == j || !w.region.overlaps(x.region) || (x.write && j < i))
      return;
    if (chainPos[i] >= 0 && lo[j] >= -1 && (chainPos[i] < lo[j] || chainPos[i] > hi[j]) &&
        acc[i].region.stage == x.region.stage)
      return;
    if (x.ref.trace == w.ref.trace && x.ref.index == w.ref.index)
      return;
    bool wFirst = before(w, x), xFirst = before(x, w);
    if (wFirst && !w.copy && !x.write && x.async) {
      // Generic write, then an async-proxy read: the writer's fence_proxy_async
      // after the write must happen before the read.
      bool fenced = false;
      auto &evs = traces_[w.ref.trace].events;
      for (int f = w.ref.index + 1; f < pc_[w.ref.trace] && !fenced; ++f)
        fenced = evs[f].ev->kind == EvKind::FenceProxy && hb({w.ref.trace, f}, x.ref);
      const CEvent &r = at(x.ref);
      if (!fenced && !seen(DiagId::ProtocolMissingProxyFence, r.ev->span)) {
        std::string reader = x.store ? "tma_store" : "wgmma";
        Finding &f =
            report(DiagId::ProtocolMissingProxyFence, r.ev->span,
                   "`" + reader + "` reads " + regionText(x.region) +
                       " through the async proxy after a generic store into it, " +
                       "with no `fence_proxy_async` between (" + when(r, x.ref.trace) + ")");
        f.labels.push_back({at(w.ref).ev->span, "the generic store"});
        f.notes.push_back("`fence_proxy_async` orders this thread's generic shared writes "
                          "before later async-proxy reads: it goes after the generic store and "
                          "before the read");
        if (w.ref.trace == x.ref.trace && r.ev->insertAt.end)
          f.fixits.push_back({r.ev->insertAt, "fence_proxy_async\n" + r.ev->indent,
                              "insert `fence_proxy_async` before the " + reader});
      }
    }
    if (wFirst || xFirst)
      return;
    const CEvent &we = at(w.ref);
    const CEvent &xe = at(x.ref);
    if (x.write) {
      const Access &later =
          (x.ref.trace == w.ref.trace && x.ref.index > w.ref.index) || xe.iter > we.iter ? x : w;
      const Access &other = &later == &x ? w : x;
      const CEvent &le = at(later.ref);
      if (!seen(DiagId::ProtocolWritesUnordered, le.ev->span)) {
        Finding &f = report(DiagId::ProtocolWritesUnordered, le.ev->span,
                            "this write of " + regionText(later.region) +
                                " is not ordered after the earlier write of it (" +
                                when(le, later.ref.trace) + ")");
        f.labels.push_back({at(other.ref).ev->span, "the other write"});
        if (other.copy)
          f.notes.push_back("the earlier copy completes on " +
                            barrierStage(at(other.ref).ev->barrier, at(other.ref).stage) +
                            " round " + std::to_string(other.round) +
                            ", which is not waited for before this write");
      }
      return;
    }
    // A read x and a write w, unordered.
    bool wIssuedBefore = hb(w.ref, x.ref);
    bool xStartedBefore = hb(x.ref, w.ref);
    if (wIssuedBefore) {
      if (!seen(DiagId::ProtocolReadNotCovered, xe.ev->span)) {
        Finding &f = report(DiagId::ProtocolReadNotCovered, xe.ev->span,
                            "this read of " + regionText(x.region) + " is not covered by a " +
                                "wait on " + barrierStage(we.ev->barrier, we.stage) + " round " +
                                std::to_string(w.round) + ", the phase its copy " + "completes (" +
                                when(xe, x.ref.trace) + ")");
        f.labels.push_back({we.ev->span, "the copy (" + when(we, w.ref.trace) + ")"});
      }
      return;
    }
    if (xStartedBefore && x.store) {
      // The write changes the source of a bulk store still reading it.
      if (!seen(DiagId::ProtocolStoreSourceRewritten, we.ev->span)) {
        Finding &f = report(DiagId::ProtocolStoreSourceRewritten, we.ev->span,
                            "this write of " + regionText(w.region) + " may change it while " +
                                "the `tma_store` reading it is still in flight (" +
                                when(we, w.ref.trace) + ")");
        f.labels.push_back({xe.ev->span, "the store (" + when(xe, x.ref.trace) + ")"});
        if (w.ref.trace == x.ref.trace) {
          // The groups committed after the store's own, before the write.
          auto &evs = traces_[x.ref.trace].events;
          int64_t commits = 0;
          for (int k = x.ref.index + 1; k < w.ref.index; ++k)
            commits += evs[k].ev->kind == EvKind::StoreCommit;
          if (commits == 0)
            f.notes.push_back("the store's bulk group is not committed before the write");
          else if (we.ev->insertAt.end)
            f.fixits.push_back(
                {we.ev->insertAt,
                 "tma_store_wait " + std::to_string(commits - 1) + "\n" + we.ev->indent,
                 "retire the store first: insert `tma_store_wait " + std::to_string(commits - 1) +
                     "`"});
        } else {
          f.notes.push_back("the store is another warpgroup's: order the write after a "
                            "barrier that warpgroup arrives on after its `tma_store_wait`");
        }
      }
      return;
    }
    if (xStartedBefore && x.async) {
      // The read began before the write; it was still in flight. Blame the
      // reader's arrive that released the stage before the retiring wait.
      const CEvent *release = nullptr;
      int64_t pendingNewer = 0;
      auto &evs = traces_[x.ref.trace].events;
      int stop = x.endIndex >= 0 ? x.endIndex : pc_[x.ref.trace];
      int64_t groups = 0;
      for (int k = x.ref.index + 1; k < stop; ++k) {
        if (evs[k].ev->kind == EvKind::Commit)
          ++groups;
        if (evs[k].ev->kind == EvKind::Arrive && hb({x.ref.trace, k}, w.ref)) {
          release = &evs[k];
          pendingNewer = std::max<int64_t>(groups - 1, 0);
          break;
        }
      }
      if (release) {
        if (!seen(DiagId::ProtocolReleaseInFlight, release->ev->span)) {
          Finding &f = report(DiagId::ProtocolReleaseInFlight, release->ev->span,
                              "`" + release->ev->what + "` releases " + regionText(x.region) +
                                  " while the `wgmma` reading it " + "is still in flight (" +
                                  when(*release, x.ref.trace) + ")");
          f.labels.push_back({xe.ev->span, "the wgmma reading it"});
          f.labels.push_back({we.ev->span, "refilled here"});
          if (release->ev->insertAt.end)
            f.fixits.push_back(
                {release->ev->insertAt,
                 "wgmma_wait " + std::to_string(pendingNewer) + "\n" + release->ev->indent,
                 "retire the group first: insert `wgmma_wait " + std::to_string(pendingNewer) +
                     "`"});
        }
        return;
      }
    }
    // Otherwise: the write overruns a read it is not ordered with.
    bool covered = anyWrite(x, [&](const Access &w2) { return before(w2, x); }) != nullptr;
    if (!covered) {
      if (!seen(DiagId::ProtocolReadNotCovered, xe.ev->span)) {
        Finding &f = report(DiagId::ProtocolReadNotCovered, xe.ev->span,
                            "this read of " + regionText(x.region) +
                                " is not ordered after any write of it: no wait covers the " +
                                "copy that fills it (" + when(xe, x.ref.trace) + ")");
        f.labels.push_back({we.ev->span, "a write it may race with"});
        if (w.copy)
          f.notes.push_back("wait on " + barrierStage(we.ev->barrier, we.stage) +
                            " in the round of that copy before the read");
      }
    } else if (!seen(DiagId::ProtocolStageRefilled, we.ev->span)) {
      Finding &f =
          report(DiagId::ProtocolStageRefilled, we.ev->span,
                 "this write of " + regionText(w.region) + " may overwrite data warpgroup " +
                     std::to_string(traces_[x.ref.trace].wg) + " still reads (" +
                     when(we, w.ref.trace) + ")");
      f.labels.push_back({xe.ev->span, "the read (" + when(xe, x.ref.trace) + ")"});
      f.notes.push_back("the writer must first wait on a barrier the readers arrive on after "
                        "their read of the previous round (write-after-read across roles)");
    }
  };
  for (size_t i = 0; i < acc.size(); ++i) {
    if (!acc[i].write)
      continue;
    if (chainPos[i] >= 0) {
      for (size_t j : bucket[i])
        pairCheck(i, j);
      continue;
    }
    for (auto [jBegin, jEnd] : overlapping(acc[i]))
      for (size_t j = jBegin; j < jEnd; ++j)
        pairCheck(i, j);
  }
}

void Engine::checkGroups() {
  for (size_t t = 0; t < traces_.size(); ++t) {
    auto &evs = traces_[t].events;
    std::vector<std::vector<int>> groups;
    std::vector<int> open;
    for (size_t i = 0; i < evs.size(); ++i) {
      const CEvent &c = evs[i];
      switch (c.ev->kind) {
      case EvKind::Wgmma:
        open.push_back(int(i));
        break;
      case EvKind::Commit:
        groups.push_back(open);
        open.clear();
        break;
      case EvKind::WgmmaWait:
        if (!open.empty() && !seen(DiagId::ProtocolWaitUncommitted, c.ev->span)) {
          Finding &f = report(DiagId::ProtocolWaitUncommitted, c.ev->span,
                              "`" + c.ev->what + "` does not retire the `wgmma` issued since " +
                                  "the last `wgmma_commit` (" + when(c, int(t)) + ")");
          f.labels.push_back({evs[open.front()].ev->span, "uncommitted"});
          if (c.ev->insertAt.end)
            f.fixits.push_back(
                {c.ev->insertAt, "wgmma_commit\n" + c.ev->indent, "insert `wgmma_commit`"});
        }
        while (int64_t(groups.size()) > c.ev->pending)
          groups.erase(groups.begin());
        break;
      case EvKind::AccAccess: {
        const CEvent *inFlight = nullptr, *readsA = nullptr;
        auto look = [&](int w) {
          if (evs[w].ev->acc == c.ev->acc)
            inFlight = &evs[w];
          if (c.ev->accWrite && evs[w].ev->regA == c.ev->acc)
            readsA = &evs[w];
        };
        for (int w : open)
          look(w);
        for (auto &g : groups)
          for (int w : g)
            look(w);
        if (readsA && !inFlight && !seen(DiagId::ProtocolRegisterAInFlight, c.ev->span)) {
          // The pending count that retires the reading group: the groups
          // committed after it stay in flight.
          int64_t newer = -1;
          for (size_t g = groups.size(); g-- > 0 && newer < 0;)
            for (int w : groups[g])
              if (&evs[w] == readsA)
                newer = int64_t(groups.size() - 1 - g);
          Finding &f = report(DiagId::ProtocolRegisterAInFlight, c.ev->span,
                              "write of `" + p_.accs[c.ev->acc] +
                                  "` while a `wgmma` group reading it as its A operand is in "
                                  "flight (" +
                                  when(c, int(t)) + ")");
          f.labels.push_back({readsA->ev->span, "reads it, in flight"});
          if (newer >= 0 && c.ev->insertAt.end)
            f.fixits.push_back(
                {c.ev->insertAt, "wgmma_wait " + std::to_string(newer) + "\n" + c.ev->indent,
                 "retire the group first: insert `wgmma_wait " + std::to_string(newer) + "`"});
          f.notes.push_back("wgmma reads register operands asynchronously until its group is "
                            "retired; ptxas serialises a wgmma whose A registers are written "
                            "in flight (warnings C7510-C7515)");
        }
        if (inFlight && !seen(DiagId::ProtocolAccumulatorInFlight, c.ev->span)) {
          Finding &f =
              report(DiagId::ProtocolAccumulatorInFlight, c.ev->span,
                     std::string(c.ev->accWrite ? "write of" : "read of") + " accumulator `" +
                         p_.accs[c.ev->acc] + "` while a `wgmma` group writing it is in flight (" +
                         when(c, int(t)) + ")");
          f.labels.push_back({inFlight->ev->span, "in flight"});
          if (open.empty() && c.ev->insertAt.end)
            f.fixits.push_back(
                {c.ev->insertAt, "wgmma_wait 0\n" + c.ev->indent, "insert `wgmma_wait 0`"});
          f.notes.push_back("ptxas serialises a wgmma whose accumulator is touched in flight "
                            "(warnings C7510-C7515)");
        }
        break;
      }
      default:
        break;
      }
    }
    const CEvent *left = !open.empty()                                ? &evs[open.front()]
                         : !groups.empty() && !groups.front().empty() ? &evs[groups.front().front()]
                                                                      : nullptr;
    if (left && !seen(DiagId::ProtocolGroupNotRetired, left->ev->span)) {
      Finding &f = report(DiagId::ProtocolGroupNotRetired, left->ev->span,
                          std::string("this `wgmma` is ") +
                              (open.empty() ? "still in flight" : "never committed") +
                              " when its role ends (" + when(*left, int(t)) + ")");
      f.notes.push_back("add `wgmma_commit` and `wgmma_wait 0` after the last wgmma");
    }
  }
}

void Engine::checkStores() {
  for (size_t t = 0; t < traces_.size(); ++t) {
    auto &evs = traces_[t].events;
    std::vector<std::vector<int>> groups;
    std::vector<int> open;
    auto uncommitted = [&](int i) {
      const CEvent &c = evs[i];
      if (seen(DiagId::ProtocolStoreUncommitted, c.ev->span))
        return;
      Finding &f = report(DiagId::ProtocolStoreUncommitted, c.ev->span,
                          "this `tma_store` is never committed: no `tma_store_commit` follows "
                          "it before the next `tma_store_wait` or the end of its role (" +
                              when(c, int(t)) + ")");
      f.notes.push_back("`tma_store_wait` retires committed bulk groups only");
      if (c.ev->insertAfter.end)
        f.fixits.push_back({c.ev->insertAfter, "\n" + c.ev->indent + "tma_store_commit",
                            "insert `tma_store_commit` after the store"});
    };
    for (size_t i = 0; i < evs.size(); ++i) {
      switch (evs[i].ev->kind) {
      case EvKind::TmaStore:
        open.push_back(int(i));
        break;
      case EvKind::StoreCommit:
        if (!open.empty())
          groups.push_back(open);
        open.clear();
        break;
      case EvKind::StoreWait:
        for (int s : open)
          uncommitted(s);
        while (int64_t(groups.size()) > evs[i].ev->pending)
          groups.erase(groups.begin());
        break;
      default:
        break;
      }
    }
    for (int s : open)
      uncommitted(s);
    if (groups.empty())
      continue;
    const CEvent &c = evs[groups.front().front()];
    if (seen(DiagId::ProtocolStoreNotWaited, c.ev->span))
      continue;
    const RoleInfo &role = p_.roles[traces_[t].role];
    Finding &f =
        report(DiagId::ProtocolStoreNotWaited, c.ev->span,
               "this `tma_store` may still read shared memory when role `" + role.name +
                   "` ends: no `tma_store_wait` retires its group (" + when(c, int(t)) + ")");
    f.notes.push_back("retire every committed store group before the role ends");
    if (role.endInsert.end)
      f.fixits.push_back({role.endInsert, "\n" + role.endIndent + "tma_store_wait 0",
                          "insert `tma_store_wait 0` at the end of role `" + role.name + "`"});
  }
}

void Engine::checkDeadlock() {
  for (size_t t = 0; t < traces_.size(); ++t) {
    if (pc_[t] >= int(traces_[t].events.size()))
      continue;
    const CEvent &c = traces_[t].events[pc_[t]];
    if (c.ev->kind != EvKind::Wait || badCountStages_.count(c.bs) ||
        seen(DiagId::ProtocolDeadlock, c.ev->span))
      continue;
    Finding &f =
        report(DiagId::ProtocolDeadlock, c.ev->span,
               "`" + c.ev->what + "` can never complete: round " + std::to_string(c.round) +
                   " of " + barrierStage(c.ev->barrier, c.stage) +
                   " needs arrivals that come only after waits which themselves wait " +
                   "for this one (" + when(c, int(t)) + ")");
    auto &v = rounds_[c.bs];
    if (size_t(c.round) >= v.size() || v[c.round].arrivals.empty()) {
      f.message = "`" + c.ev->what + "` can never complete: nothing arrives on round " +
                  std::to_string(c.round) + " of " + barrierStage(c.ev->barrier, c.stage) + " (" +
                  when(c, int(t)) + ")";
    } else {
      for (EventRef e : v[c.round].arrivals)
        if (!executed(e)) {
          f.labels.push_back(
              {at(e).ev->span, "the arrival it needs (" + when(at(e), e.trace) + ")"});
          break;
        }
    }
    for (size_t u = 0; u < traces_.size(); ++u)
      if (u != t && pc_[u] < int(traces_[u].events.size())) {
        const CEvent &b = traces_[u].events[pc_[u]];
        f.notes.push_back(
            "warpgroup " + std::to_string(traces_[u].wg) + " is blocked at `" + b.ev->what +
            "` (round " + std::to_string(b.round) + " of " + barrierStage(b.ev->barrier, b.stage) +
            (b.iterName ? ", " + *b.iterName + " = " + std::to_string(b.iter) : "") + ")");
      }
  }
}

void Engine::checkCopiesWaited() {
  // The highest round anyone waits for, per barrier stage.
  std::vector<int64_t> maxWaited(stageCount_, INT64_MIN);
  for (const Trace &u : traces_)
    for (const CEvent &w : u.events)
      if (w.ev->kind == EvKind::Wait)
        maxWaited[w.bs] = std::max(maxWaited[w.bs], w.round);
  for (size_t t = 0; t < traces_.size(); ++t)
    for (int i = 0; i < pc_[t]; ++i) {
      const CEvent &c = traces_[t].events[i];
      if (c.ev->kind != EvKind::TmaLoad)
        continue;
      if (maxWaited[c.bs] < c.round && !seen(DiagId::ProtocolCopyNeverWaited, c.ev->span))
        report(DiagId::ProtocolCopyNeverWaited, c.ev->span,
               "no wait covers round " + std::to_string(c.round) + " of " +
                   barrierStage(c.ev->barrier, c.stage) + ", which this copy completes (" +
                   when(c, int(t)) + ")")
            .notes.push_back("the block may exit or reuse the stage while the copy still "
                             "writes it");
    }
}

void Engine::proveOne() {
  simulate();
  checkCounts();
  checkWaits();
  checkRegions();
  checkPhaseOrder();
  checkGroups();
  checkStores();
  checkDeadlock();
  checkCopiesWaited();
}

void Engine::retryByExecution() {
  // The warpgroup-order attribution failed; the execution-order one proves
  // the sample point if it finds nothing, else the first one's findings
  // stand (they name the mistakes of the common, cooperative case).
  std::vector<Finding> primary = std::move(findings_);
  findings_.clear();
  std::set<int> primaryBad = badCountStages_;
  // A barrier whose every round got the same wrong count (the cooperative
  // mistake `arrivals=1` with two consumers) keeps the warpgroup order's
  // K0623 and its fix-it; uneven counts are a consumer skipping rounds.
  bool unevenCounts = false;
  for (size_t b = 0; b < p_.barriers.size(); ++b)
    for (int64_t st = 0; st < p_.barriers[b].stages; ++st) {
      const auto &v = rounds_[size_t(base_[b] + int(st))];
      for (size_t r = 0; r + 1 < v.size(); ++r)
        if (!v[r].arrivals.empty() && v[r].arrivalCount != v[0].arrivalCount)
          unevenCounts = true;
    }
  bool proved = unroll();
  if (proved) {
    for (Trace &t : traces_)
      for (CEvent &c : t.events)
        if (c.ev->kind == EvKind::Arrive || c.ev->kind == EvKind::TmaLoad)
          c.round = -1;
    rounds_.assign(stageCount_, {});
    byExecution_ = true;
    proveOne();
    byExecution_ = false;
    proved = findings_.empty() && !stop_;
    // The warpgroup order miscounted the stage's arrivals where execution
    // order counts them right (a ping-pong kernel): the execution order's
    // findings name the real mistake.
    auto counts = [](const std::vector<Finding> &v) {
      return std::any_of(v.begin(), v.end(),
                         [](const Finding &f) { return f.id == DiagId::ProtocolArrivalCount; });
    };
    if (!proved && !stop_ && unevenCounts && counts(primary) && !counts(findings_)) {
      retryFailed_ = true;
      return;
    }
  }
  if (!proved) {
    retryFailed_ = true;
    findings_ = std::move(primary);
    badCountStages_ = std::move(primaryBad);
    stop_ = false;
  }
}

void Engine::checkClusterReleases() {
  // Obligation 3 (docs/architecture.md "Cluster multicast proofs"): the
  // barriers a multicast producer waits on before refilling (its release
  // barriers) are arrived on only by `arrive ... cluster`, so a peer's
  // producer refills a stage of this CTA only after this CTA's consumers
  // released it; and a cluster arrive is only such a release.
  std::vector<std::vector<const Event *>> events(p_.roles.size());
  auto collect = [&](auto &&self, const std::vector<uint32_t> &body,
                     std::vector<const Event *> &out) -> void {
    for (uint32_t id : body) {
      const Node &n = p_.nodes[id];
      if (n.kind == NodeKind::Event)
        out.push_back(&n.event);
      self(self, n.body, out);
      self(self, n.elseBody, out);
    }
  };
  for (size_t r = 0; r < p_.roles.size(); ++r)
    collect(collect, p_.roles[r].body, events[r]);
  std::set<int> filled, released;
  for (const auto &role : events)
    for (const Event *e : role)
      if (e->kind == EvKind::TmaLoad && e->multicast)
        filled.insert(e->barrier);
  for (const auto &role : events) {
    bool multicasts = false;
    for (const Event *e : role)
      multicasts = multicasts || (e->kind == EvKind::TmaLoad && e->multicast);
    if (multicasts)
      for (const Event *e : role)
        if (e->kind == EvKind::Wait && !filled.count(e->barrier))
          released.insert(e->barrier);
  }
  for (const auto &role : events)
    for (const Event *e : role) {
      if (e->kind != EvKind::Arrive || e->barrier < 0)
        continue;
      const BarrierInfo &bar = p_.barriers[size_t(e->barrier)];
      if (released.count(e->barrier) && !e->cluster) {
        Finding &f = report(DiagId::ProtocolMulticastLocalRelease, e->span,
                            "`" + e->what + "` releases a stage of `" + bar.name +
                                "`, which a multicast producer waits on before refilling, but "
                                "it arrives only in this CTA: the peers' producers could "
                                "overwrite the stage while this CTA's consumers still read it");
        f.notes.push_back("a multicast copy writes the stage in every CTA of the cluster; "
                          "write `arrive " +
                          bar.name +
                          "[...] cluster` so that every producer waits for every CTA's "
                          "consumers");
        if (e->span.end)
          f.fixits.push_back(
              {Span{e->span.end, e->span.end}, " cluster", "arrive in every CTA of the cluster"});
      } else if (e->cluster && !released.empty() && !released.count(e->barrier)) {
        // (With no release barrier at all the producer refills without
        // waiting: the refill rule, K0624, names that.)
        report(DiagId::ProtocolMulticastLocalRelease, e->clauseSpan.end ? e->clauseSpan : e->span,
               "`" + e->what +
                   "` arrives in every CTA of the cluster, but no multicast producer "
                   "waits on `" +
                   bar.name +
                   "` before refilling a stage: this version proves cluster arrivals only as "
                   "the release of stages filled by `tma_load ... multicast`")
            .notes.push_back("drop `cluster` for a local arrive");
      }
    }
}

void Engine::run() {
  for (const Outside &o : p_.outside)
    cannotProve(o.span, o.what);
  if (stop_) {
    flush();
    return;
  }
  if (p_.clusterSize > 1) {
    checkClusterReleases();
    if (!findings_.empty()) {
      flush();
      return;
    }
  }
  // The sample of trip counts: one period of every ring plus a window on
  // each side for the constants of the stage and round expressions. Only
  // what the proofs read counts: the expressions of events, loops and
  // branches (a `let` of addresses the protocol never reads does not widen
  // the window), and a ring only when a stage expression of it varies with
  // a loop.
  std::vector<bool> relevant(p_.exprs.size(), false);
  auto mark = [&](auto &&self, XId id) -> void {
    if (id == kNoX || id >= relevant.size() || relevant[id])
      return;
    relevant[id] = true;
    self(self, p_.exprs[id].a);
    self(self, p_.exprs[id].b);
  };
  auto loopVarying = [&](auto &&self, XId id) -> bool {
    if (id == kNoX)
      return false;
    const XNode &x = p_.exprs[id];
    if (x.op == XOp::Var)
      return x.value != p_.warpgroupSlot;
    if (x.op == XOp::Param || x.op == XOp::Tiles || x.op == XOp::Unknown)
      return true;
    return self(self, x.a) || self(self, x.b);
  };
  std::vector<bool> ringVaries(p_.barriers.size(), false), tileVaries(p_.tiles.size(), false);
  for (const Node &node : p_.nodes) {
    for (XId id : {node.value, node.start, node.end, node.step, node.cond})
      mark(mark, id);
    if (node.kind != NodeKind::Event)
      continue;
    const Event &e = node.event;
    for (XId id : {e.stage, e.round})
      mark(mark, id);
    if (e.barrier >= 0 && loopVarying(loopVarying, e.stage))
      ringVaries[e.barrier] = true;
    std::vector<RegionRef> regions = e.reads;
    regions.push_back(e.dst);
    for (const RegionRef &r : regions) {
      mark(mark, r.stage);
      if (r.tile >= 0 && loopVarying(loopVarying, r.stage))
        tileVaries[r.tile] = true;
    }
  }
  int64_t period = 1;
  for (size_t b = 0; b < p_.barriers.size(); ++b)
    if (ringVaries[b])
      period = std::lcm(period, std::max<int64_t>(p_.barriers[b].stages, 1));
  for (size_t t = 0; t < p_.tiles.size(); ++t)
    if (p_.tiles[t].stages > 0 && tileVaries[t])
      period = std::lcm(period, p_.tiles[t].stages);
  // A constant divisor or modulus d makes its expression periodic with
  // period d: it joins P (the period), not c (the offsets).
  std::vector<bool> divisor(p_.exprs.size(), false);
  for (size_t i = 0; i < p_.exprs.size(); ++i) {
    const XNode &x = p_.exprs[i];
    if (relevant[i] && (x.op == XOp::Div || x.op == XOp::Mod) && x.b != kNoX &&
        p_.exprs[x.b].op == XOp::Const && p_.exprs[x.b].value > 0) {
      divisor[x.b] = true;
      period = std::lcm(period, p_.exprs[x.b].value);
    }
  }
  int64_t maxConst = 0;
  for (size_t i = 0; i < p_.exprs.size(); ++i) {
    const XNode &x = p_.exprs[i];
    if (relevant[i] && !divisor[i] &&
        (x.op == XOp::Const || x.op == XOp::Param || x.op == XOp::Tiles))
      maxConst = std::max(maxConst, x.value < 0 ? -x.value : x.value);
  }
  int64_t c = std::min<int64_t>(maxConst, 8);
  int64_t span = p_.hasParam ? 3 * period + 2 * c + 4 : 0;
  if (span > kMaxSpan) {
    cannotProve(p_.gridSpan, "the rings' period (" + std::to_string(period) +
                                 " iterations) needs more trip counts than the checker samples");
    flush();
    return;
  }
  // The block's tile count m of a persistent tile loop (docs/checks.md, "Why
  // a sample of tile counts suffices"). D bounds how many flattened
  // iterations apart two related events are (a ring, the constants, the
  // groups kept in flight); the tile-level state (groups of earlier tiles
  // still pending) is steady after `warm` tiles. For n up to nT + P (nT the
  // n beyond which a window sees no k that a condition tells from the
  // middle of a tile near a tile boundary), every m from 0 to
  // P + warm + ceil(D / n) (+ the conditions' constant when a condition
  // reads the tile ordinal); a larger n shows the windows of the
  // n' = n - qP in (nT, nT + P], so m <= 1 there (the single-loop sample).
  int64_t maxPending = 0;
  bool tileCond = false;
  auto readsTiles = [&](auto &&self, XId id) -> bool {
    if (id == kNoX)
      return false;
    const XNode &x = p_.exprs[id];
    if (x.op == XOp::Tiles || (x.op == XOp::Var && p_.slotIsTileOrdinal(x.value)))
      return true;
    return self(self, x.a) || self(self, x.b);
  };
  // The constants conditions compare with (`k > 0`): how far from a tile's
  // ends a condition can tell iterations apart.
  int64_t condConst = 0;
  auto constsOf = [&](auto &&self, XId id) -> void {
    if (id == kNoX)
      return;
    const XNode &x = p_.exprs[id];
    if (x.op == XOp::Const || x.op == XOp::Param || x.op == XOp::Tiles)
      condConst = std::max(condConst, std::min<int64_t>(x.value < 0 ? -x.value : x.value, 8));
    self(self, x.a);
    self(self, x.b);
  };
  for (const Node &node : p_.nodes) {
    if (node.kind == NodeKind::Event &&
        (node.event.kind == EvKind::WgmmaWait || node.event.kind == EvKind::StoreWait))
      maxPending = std::max(maxPending, node.event.pending);
    if (node.kind == NodeKind::If) {
      constsOf(constsOf, node.cond);
      tileCond = tileCond || readsTiles(readsTiles, node.cond);
    }
  }
  int64_t D = period + c + 2 + maxPending;
  int64_t warm = maxPending + 2;
  int64_t nT = D + condConst + 1;
  auto tilesMax = [&](int64_t n) -> int64_t {
    if (!p_.hasTiles)
      return 0;
    if (p_.hasParam && n > nT + period)
      return 1;
    int64_t inner = p_.hasParam ? std::max<int64_t>(n, 1) : 1;
    return period + warm + (tileCond ? condConst : 0) + (D + inner - 1) / inner;
  };
  for (int64_t n = p_.paramMin; n <= p_.paramMin + span && !stop_; ++n) {
    for (int64_t m = 0; m <= tilesMax(n) && !stop_; ++m) {
      n_ = n;
      m_ = m;
      if (!unroll()) {
        flush();
        return;
      }
      attribute();
      if (stop_)
        break;
      proveOne();
      if (!findings_.empty() && !stop_ && !retryFailed_)
        retryByExecution();
      flush();
    }
  }
  flush();
}

} // namespace

namespace {

/// The model as the proofs see it, without spans, names or texts, and only
/// what the roles reach (an unused `let` typed in the editor leaves it
/// unchanged). Two programs with equal fingerprints have equal findings up
/// to spans and wording, so a proved-clean fingerprint needs no new proof.
class Fingerprint {
public:
  explicit Fingerprint(const Program &p) : p_(p) {
    put('P');
    put(p.slots);
    put(p.warpgroupSlot);
    put(p.hasParam);
    put(p.paramMin);
    put(p.hasTiles);
    for (int s : p.tileOrdinalSlots)
      put(s);
    put(p.clusterSize);
    put('B');
    for (const BarrierInfo &b : p.barriers) {
      put(b.stages);
      put(b.arrivals);
    }
    put('T');
    for (const SharedTileInfo &t : p.tiles)
      put(t.stages);
    put(int64_t(p.accs.size()));
    for (const RoleInfo &r : p.roles) {
      put('R');
      put(r.first);
      put(r.last);
      put(r.endInsert.end != 0);
      block(r.body);
    }
  }
  std::string key;

private:
  const Program &p_;
  void put(int64_t v) { key.append(reinterpret_cast<const char *>(&v), sizeof v); }
  void expr(XId id) {
    if (id == kNoX) {
      put('-');
      return;
    }
    const XNode &x = p_.exprs[id];
    put(int64_t(x.op) << 8 | 'x');
    put(x.value);
    expr(x.a);
    expr(x.b);
  }
  void region(const RegionRef &r) {
    put(r.tile);
    expr(r.stage);
  }
  void block(const std::vector<uint32_t> &body) {
    put('{');
    for (uint32_t id : body) {
      const Node &n = p_.nodes[id];
      put(int64_t(n.kind));
      put(n.slot);
      expr(n.value);
      expr(n.start);
      expr(n.end);
      expr(n.step);
      expr(n.cond);
      if (n.kind == NodeKind::Event) {
        const Event &e = n.event;
        put(int64_t(e.kind));
        put(e.barrier);
        expr(e.stage);
        expr(e.round);
        put(e.hasTx);
        put(e.txBytes);
        region(e.dst);
        put(e.bytes);
        put(int64_t(e.reads.size()));
        for (const RegionRef &r : e.reads)
          region(r);
        put(e.acc);
        put(e.regA);
        put(e.accWrite);
        put(e.pending);
        put(e.loopDepth);
        put(e.multicast);
        put(e.cluster);
      }
      block(n.body);
      block(n.elseBody);
    }
    put('}');
  }
};

/// Fingerprints of programs proved clean, most recent first (the editor
/// re-checks a kernel on every keystroke; most keystrokes leave its
/// protocol model as it was).
std::mutex provedMutex;
std::list<std::string> proved;
constexpr size_t kProvedCapacity = 64;

} // namespace

void proveProtocol(const Program &program, DiagnosticSink &sink) {
  if (!program.outside.empty()) {
    Engine(program, sink).run();
    return;
  }
  std::string key = Fingerprint(program).key;
  {
    std::lock_guard<std::mutex> lock(provedMutex);
    for (auto it = proved.begin(); it != proved.end(); ++it)
      if (*it == key) {
        proved.splice(proved.begin(), proved, it);
        return;
      }
  }
  DiagnosticSink local;
  Engine(program, local).run();
  std::vector<Diagnostic> found = local.take();
  if (found.empty()) {
    std::lock_guard<std::mutex> lock(provedMutex);
    proved.push_front(std::move(key));
    if (proved.size() > kProvedCapacity)
      proved.pop_back();
    return;
  }
  sink.append(found);
}

} // namespace kina::sema::protocol
