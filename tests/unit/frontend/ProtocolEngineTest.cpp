// The Hopper protocol engine (sema/ProtocolEngine.cpp) on hand-built models,
// independent of the parser and checker: the producer/consumer GEMM ring of
// coord hopper.md section 1, correct and with one bug at a time. The end-to-end
// tests (source -> diagnostics) are tests/lit/sema-protocol and
// tests/mutation/hopper.
#include "sema/Protocol.h"

#include <gtest/gtest.h>

#include <functional>

using namespace kina;
using namespace kina::sema::protocol;

namespace {

/// Builds the GEMM model; `tweak` edits it before the proof.
struct Gemm {
  Program p;
  int kProducer = -1, kConsumer = -1;
  int full = 0, empty = 1, aS = 0, bS = 1;
  uint32_t nextSpan = 1;

  Span span() {
    Span s{nextSpan, nextSpan + 1};
    nextSpan += 2;
    return s;
  }
  XId c(int64_t v) { return p.add(XNode{XOp::Const, v, kNoX, kNoX, span(), ""}); }
  XId var(int slot) { return p.add(XNode{XOp::Var, slot, kNoX, kNoX, span(), ""}); }
  XId param(int64_t d) { return p.add(XNode{XOp::Param, d, kNoX, kNoX, span(), ""}); }
  XId bin(XOp op, XId a, XId b) { return p.add(XNode{op, 0, a, b, span(), ""}); }
  /// (k + add) mod S
  XId stageOf(int k, int64_t add, int64_t S) {
    return bin(XOp::Mod, bin(XOp::Add, var(k), c(add)), c(S));
  }
  /// k / S + d
  XId roundOf(int k, int64_t S, int64_t d) {
    return bin(XOp::Add, bin(XOp::Div, var(k), c(S)), c(d));
  }

  Event ev(EvKind kind, std::string what) {
    Event e;
    e.kind = kind;
    e.span = span();
    e.what = std::move(what);
    return e;
  }
  uint32_t node(Event e) {
    Node n;
    n.kind = NodeKind::Event;
    n.span = e.span;
    n.event = std::move(e);
    return p.addNode(std::move(n));
  }
  uint32_t loop(int slot, XId lo, XId hi, std::vector<uint32_t> body) {
    Node n;
    n.kind = NodeKind::For;
    n.slot = slot;
    n.varName = "k";
    n.start = lo;
    n.end = hi;
    n.body = std::move(body);
    n.span = span();
    return p.addNode(std::move(n));
  }
  uint32_t when(XId cond, std::vector<uint32_t> body) {
    Node n;
    n.kind = NodeKind::If;
    n.cond = cond;
    n.body = std::move(body);
    n.span = span();
    return p.addNode(std::move(n));
  }

  // The statements, kept so a test can edit them before build().
  Span waitEmptySpan, arriveFullSpan, loadASpan, waitFullSpan, wgmmaSpan, waitGroupSpan,
      releaseSpan, storeSpan;
  int64_t stages = 3, emptyArrivals = 2, fullArrivals = 1, tx = 49152;
  int64_t emptyRoundOffset = -1, fullRoundOffset = 0;
  int64_t wgmmaPending = 0;
  bool dropWaitFull = false, releaseBeforeWait = false, dropCommit = false;
  bool readAccInFlight = false;
  /// Cluster multicast: clusterSize CTAs, B's box split between them and
  /// multicast (16384 bytes each), the release a cluster arrive.
  int64_t cluster = 1;
  bool multicastB = false, clusterRelease = false;

  void build() {
    p.barriers = {BarrierInfo{"full", stages, fullArrivals, span(), span()},
                  BarrierInfo{"empty", stages, emptyArrivals, span(), span()}};
    p.tiles = {SharedTileInfo{"a_s", stages, span()}, SharedTileInfo{"b_s", stages, span()}};
    p.accs = {"acc"};
    p.warpgroupSlot = p.slots++;
    p.clusterSize = cluster;
    p.hasParam = true;
    p.paramText = "K / 64";
    p.paramMin = 1;
    kProducer = p.slots++;
    kConsumer = p.slots++;
    // producer
    std::vector<uint32_t> pb;
    {
      Event w = ev(EvKind::Wait, "wait empty[s] round (k / 3 - 1)");
      w.barrier = empty;
      w.stage = stageOf(kProducer, 0, stages);
      w.round = roundOf(kProducer, stages, emptyRoundOffset);
      waitEmptySpan = w.span;
      pb.push_back(node(w));
      Event a = ev(EvKind::Arrive, "arrive full[s] expect_tx 49152");
      a.barrier = full;
      a.stage = stageOf(kProducer, 0, stages);
      a.hasTx = true;
      a.txBytes = tx;
      a.txSpan = span();
      arriveFullSpan = a.span;
      pb.push_back(node(a));
      for (int t : {aS, bS}) {
        Event l = ev(EvKind::TmaLoad, "tma_load");
        l.barrier = full;
        l.stage = stageOf(kProducer, 0, stages);
        l.dst = RegionRef{t, stageOf(kProducer, 0, stages)};
        l.bytes = t == aS ? 16384 : 32768;
        if (t == bS && multicastB) {
          l.multicast = true;
          l.bytes = 32768 / cluster;
        }
        if (t == aS)
          loadASpan = l.span;
        pb.push_back(node(l));
      }
    }
    p.roles.push_back(RoleInfo{"producer", 0, 0, {loop(kProducer, c(0), param(0), pb)}, span()});
    // consumers
    std::vector<uint32_t> cb;
    {
      if (!dropWaitFull) {
        Event w = ev(EvKind::Wait, "wait full[s] round (k / 3)");
        w.barrier = full;
        w.stage = stageOf(kConsumer, 0, stages);
        w.round = roundOf(kConsumer, stages, fullRoundOffset);
        waitFullSpan = w.span;
        cb.push_back(node(w));
      }
      Event m = ev(EvKind::Wgmma, "wgmma");
      m.acc = 0;
      m.reads = {RegionRef{aS, stageOf(kConsumer, 0, stages)},
                 RegionRef{bS, stageOf(kConsumer, 0, stages)}};
      wgmmaSpan = m.span;
      cb.push_back(node(m));
      if (!dropCommit)
        cb.push_back(node(ev(EvKind::Commit, "wgmma_commit")));
      if (readAccInFlight) {
        Event r = ev(EvKind::AccAccess, "read");
        r.acc = 0;
        storeSpan = r.span;
        cb.push_back(node(r));
      }
      Event ww = ev(EvKind::WgmmaWait, "wgmma_wait");
      ww.pending = wgmmaPending;
      waitGroupSpan = ww.span;
      Event rel = ev(EvKind::Arrive, "arrive empty[s]");
      rel.barrier = empty;
      rel.stage = stageOf(kConsumer, 0, stages);
      rel.cluster = clusterRelease;
      releaseSpan = rel.span;
      if (releaseBeforeWait) {
        cb.push_back(node(rel));
        cb.push_back(node(ww));
      } else {
        cb.push_back(node(ww));
        cb.push_back(node(rel));
      }
    }
    std::vector<uint32_t> cbody = {loop(kConsumer, c(0), param(0), cb)};
    Event fin = ev(EvKind::WgmmaWait, "wgmma_wait 0");
    cbody.push_back(node(fin));
    Event st = ev(EvKind::AccAccess, "read");
    st.acc = 0;
    cbody.push_back(node(st));
    p.roles.push_back(RoleInfo{"consumer", 1, 2, cbody, span()});
  }

  std::vector<Diagnostic> prove() {
    build();
    DiagnosticSink sink;
    proveProtocol(p, sink);
    return sink.take();
  }
};

bool has(const std::vector<Diagnostic> &ds, const char *code, Span at = {}) {
  for (const Diagnostic &d : ds)
    if (d.info().code == code && (at.end == 0 || d.span.begin == at.begin))
      return true;
  return false;
}

std::string dump(const std::vector<Diagnostic> &ds) {
  std::string s;
  for (const Diagnostic &d : ds)
    s += std::string(d.info().code) + " @" + std::to_string(d.span.begin) + ": " + d.message + "\n";
  return s;
}

TEST(ProtocolEngine, GemmRingIsProved) {
  Gemm g;
  auto ds = g.prove();
  EXPECT_TRUE(ds.empty()) << dump(ds);
}

TEST(ProtocolEngine, FourStagesAreProved) {
  Gemm g;
  g.stages = 4;
  auto ds = g.prove();
  EXPECT_TRUE(ds.empty()) << dump(ds);
}

TEST(ProtocolEngine, DroppedFullWaitIsAnUncoveredRead) {
  Gemm g;
  g.dropWaitFull = true;
  auto ds = g.prove();
  EXPECT_TRUE(has(ds, "K0620", g.wgmmaSpan)) << dump(ds);
}

TEST(ProtocolEngine, EarlyRoundIsTheWrongPhase) {
  Gemm g;
  g.fullRoundOffset = -1;
  auto ds = g.prove();
  EXPECT_TRUE(has(ds, "K0621", g.waitFullSpan)) << dump(ds);
}

TEST(ProtocolEngine, ProducerWaitingItsOwnRoundDeadlocks) {
  Gemm g;
  g.emptyRoundOffset = 0;
  auto ds = g.prove();
  EXPECT_TRUE(has(ds, "K0625", g.waitEmptySpan)) << dump(ds);
}

TEST(ProtocolEngine, ExpectTxMismatchHasAFixIt) {
  Gemm g;
  g.tx = 32768;
  auto ds = g.prove();
  ASSERT_TRUE(has(ds, "K0622", g.arriveFullSpan)) << dump(ds);
  for (const Diagnostic &d : ds)
    if (d.info().code == std::string("K0622")) {
      ASSERT_EQ(d.fixits.size(), 1u);
      EXPECT_EQ(d.fixits[0].replacement, "49152");
    }
}

TEST(ProtocolEngine, ArrivalCountBelowTheConsumers) {
  Gemm g;
  g.emptyArrivals = 1;
  auto ds = g.prove();
  ASSERT_TRUE(has(ds, "K0623")) << dump(ds);
  for (const Diagnostic &d : ds)
    if (d.info().code == std::string("K0623")) {
      ASSERT_EQ(d.fixits.size(), 1u) << d.message;
      EXPECT_EQ(d.fixits[0].replacement, "2");
    }
}

/// The 2x1 cluster ring (docs/architecture.md 5e): B multicast in halves,
/// expect_tx 16384 + 2 x 16384, cluster releases, empty counts 2 x 2.
Gemm clusterGemm() {
  Gemm g;
  g.cluster = 2;
  g.multicastB = true;
  g.clusterRelease = true;
  g.emptyArrivals = 4;
  return g;
}

TEST(ProtocolEngine, ClusterMulticastRingIsProved) {
  Gemm g = clusterGemm();
  auto ds = g.prove();
  EXPECT_TRUE(ds.empty()) << dump(ds);
}

TEST(ProtocolEngine, ClusterExpectTxCountsThePeersBytes) {
  Gemm g = clusterGemm();
  g.tx = 32768; // own A + own half of B: the peer's half is missing
  auto ds = g.prove();
  ASSERT_TRUE(has(ds, "K0640", g.arriveFullSpan)) << dump(ds);
  EXPECT_FALSE(has(ds, "K0622")) << dump(ds);
  for (const Diagnostic &d : ds)
    if (d.info().code == std::string("K0640")) {
      ASSERT_EQ(d.fixits.size(), 1u);
      EXPECT_EQ(d.fixits[0].replacement, "49152");
    }
}

TEST(ProtocolEngine, ClusterMulticastStageReleasedLocally) {
  Gemm g = clusterGemm();
  g.clusterRelease = false;
  auto ds = g.prove();
  ASSERT_TRUE(has(ds, "K0641", g.releaseSpan)) << dump(ds);
  for (const Diagnostic &d : ds)
    if (d.info().code == std::string("K0641")) {
      ASSERT_EQ(d.fixits.size(), 1u);
      EXPECT_EQ(d.fixits[0].replacement, " cluster");
    }
}

TEST(ProtocolEngine, ClusterArrivalsCountEveryCta) {
  Gemm g = clusterGemm();
  g.emptyArrivals = 2;
  auto ds = g.prove();
  ASSERT_TRUE(has(ds, "K0642")) << dump(ds);
  EXPECT_FALSE(has(ds, "K0623")) << dump(ds);
  for (const Diagnostic &d : ds)
    if (d.info().code == std::string("K0642")) {
      ASSERT_EQ(d.fixits.size(), 1u) << d.message;
      EXPECT_EQ(d.fixits[0].replacement, "4");
    }
}

TEST(ProtocolEngine, ClusterSizeIsPartOfTheProvedCache) {
  // The clean cluster ring is cached as proved; in clusters of 4 (B in
  // quarters: 16384 + 4 x 8192 bytes, still 49152) the cluster releases
  // make 2 x 4 arrivals, not the 4 `empty` counts.
  {
    Gemm g = clusterGemm();
    ASSERT_TRUE(g.prove().empty());
  }
  Gemm g = clusterGemm();
  g.cluster = 4;
  auto ds = g.prove();
  EXPECT_TRUE(has(ds, "K0642")) << dump(ds);
  EXPECT_FALSE(has(ds, "K0640")) << dump(ds);
}

TEST(ProtocolEngine, ReleaseBeforeTheWgmmaWait) {
  Gemm g;
  g.releaseBeforeWait = true;
  auto ds = g.prove();
  EXPECT_TRUE(has(ds, "K0626", g.releaseSpan)) << dump(ds);
}

TEST(ProtocolEngine, WaitOneReleasingTheCurrentStage) {
  Gemm g;
  g.wgmmaPending = 1;
  auto ds = g.prove();
  EXPECT_TRUE(has(ds, "K0626", g.releaseSpan)) << dump(ds);
}

TEST(ProtocolEngine, UncommittedWgmmaAtTheWait) {
  Gemm g;
  g.dropCommit = true;
  auto ds = g.prove();
  EXPECT_TRUE(has(ds, "K0632", g.waitGroupSpan)) << dump(ds);
}

TEST(ProtocolEngine, AccumulatorReadInFlight) {
  Gemm g;
  g.readAccInFlight = true;
  auto ds = g.prove();
  EXPECT_TRUE(has(ds, "K0627", g.storeSpan)) << dump(ds);
}

TEST(ProtocolEngine, UnknownStageIsCannotProve) {
  Gemm g;
  g.build();
  // The producer's wait stage becomes something outside the model.
  for (Node &n : g.p.nodes)
    if (n.kind == NodeKind::Event && n.event.kind == EvKind::Wait && n.event.barrier == g.empty)
      n.event.stage = g.p.add(XNode{XOp::Unknown, 0, kNoX, kNoX, Span{900, 905}, "`block_id 0`"});
  DiagnosticSink sink;
  proveProtocol(g.p, sink);
  auto ds = sink.take();
  ASSERT_TRUE(has(ds, "K0650", Span{900, 905})) << dump(ds);
}

/// One warpgroup stores into a shared tile and runs wgmma on it each
/// iteration (no barriers); `fence` puts fence_proxy_async between.
std::vector<Diagnostic> storeThenWgmma(bool fence, Span &read) {
  Gemm g;
  Program &p = g.p;
  p.tiles = {SharedTileInfo{"a_s", 0, g.span()}};
  p.accs = {"acc"};
  p.warpgroupSlot = p.slots++;
  p.hasParam = true;
  p.paramText = "K / 64";
  p.paramMin = 1;
  int k = p.slots++;
  std::vector<uint32_t> body;
  Event w = g.ev(EvKind::SharedWrite, "store");
  w.dst = RegionRef{0, kNoX};
  body.push_back(g.node(w));
  if (fence)
    body.push_back(g.node(g.ev(EvKind::FenceProxy, "fence_proxy_async")));
  Event m = g.ev(EvKind::Wgmma, "wgmma");
  m.acc = 0;
  m.reads = {RegionRef{0, kNoX}};
  read = m.span;
  body.push_back(g.node(m));
  body.push_back(g.node(g.ev(EvKind::Commit, "wgmma_commit")));
  Event ww = g.ev(EvKind::WgmmaWait, "wgmma_wait 0");
  body.push_back(g.node(ww));
  p.roles.push_back(RoleInfo{"mma", 0, 0, {g.loop(k, g.c(0), g.param(0), body)}, g.span()});
  DiagnosticSink sink;
  proveProtocol(p, sink);
  return sink.take();
}

TEST(ProtocolEngine, GenericStoreThenWgmmaNeedsTheProxyFence) {
  Span read;
  auto ds = storeThenWgmma(false, read);
  EXPECT_TRUE(has(ds, "K0628", read)) << dump(ds);
  auto fenced = storeThenWgmma(true, read);
  EXPECT_TRUE(fenced.empty()) << dump(fenced);
}

/// One warpgroup writes a shared stage, fences, stores it with tma_store and
/// commits, each iteration; `tma_store_wait` placement varies.
struct StoreLoop {
  bool waitBeforeWrite = true, commit = true, fence = true, finalWait = true;
  int64_t pendingBeforeWrite = 0;
  Span write, store, last;

  std::vector<Diagnostic> prove() {
    Gemm g;
    Program &p = g.p;
    p.tiles = {SharedTileInfo{"c_s", 0, g.span()}};
    p.accs = {"acc"};
    p.warpgroupSlot = p.slots++;
    p.hasParam = true;
    p.paramText = "N / 256";
    p.paramMin = 1;
    int k = p.slots++;
    std::vector<uint32_t> body;
    if (waitBeforeWrite) {
      Event w = g.ev(EvKind::StoreWait, "tma_store_wait");
      w.pending = pendingBeforeWrite;
      body.push_back(g.node(w));
    }
    Event w = g.ev(EvKind::SharedWrite, "store");
    w.dst = RegionRef{0, kNoX};
    w.insertAt = {w.span.begin, w.span.begin};
    write = w.span;
    body.push_back(g.node(w));
    if (fence)
      body.push_back(g.node(g.ev(EvKind::FenceProxy, "fence_proxy_async")));
    Event s = g.ev(EvKind::TmaStore, "tma_store");
    s.reads = {RegionRef{0, kNoX}};
    s.insertAfter = {s.span.end, s.span.end};
    store = s.span;
    body.push_back(g.node(s));
    if (commit)
      body.push_back(g.node(g.ev(EvKind::StoreCommit, "tma_store_commit")));
    std::vector<uint32_t> role = {g.loop(k, g.c(0), g.param(0), body)};
    if (finalWait)
      role.push_back(g.node(g.ev(EvKind::StoreWait, "tma_store_wait 0")));
    RoleInfo r{"epilogue", 0, 0, role, g.span()};
    r.endInsert = {900, 900};
    last = r.endInsert;
    p.roles.push_back(r);
    DiagnosticSink sink;
    proveProtocol(p, sink);
    return sink.take();
  }
};

const Diagnostic *find(const std::vector<Diagnostic> &ds, const char *code) {
  for (const Diagnostic &d : ds)
    if (d.info().code == std::string(code))
      return &d;
  return nullptr;
}

TEST(ProtocolEngine, TmaStoreRingIsProved) {
  StoreLoop s;
  auto ds = s.prove();
  EXPECT_TRUE(ds.empty()) << dump(ds);
}

TEST(ProtocolEngine, StoreSourceRewrittenBeforeItsWait) {
  StoreLoop s;
  s.waitBeforeWrite = false;
  auto ds = s.prove();
  ASSERT_TRUE(has(ds, "K0636", s.write)) << dump(ds);
  const Diagnostic *d = find(ds, "K0636");
  ASSERT_EQ(d->fixits.size(), 1u);
  EXPECT_EQ(d->fixits[0].replacement.substr(0, 16), "tma_store_wait 0");
}

TEST(ProtocolEngine, StoreWaitOneLeavesTheSourceInFlight) {
  StoreLoop s;
  s.pendingBeforeWrite = 1;
  auto ds = s.prove();
  EXPECT_TRUE(has(ds, "K0636", s.write)) << dump(ds);
}

TEST(ProtocolEngine, StoreNotWaitedBeforeTheRoleEnds) {
  StoreLoop s;
  s.finalWait = false;
  auto ds = s.prove();
  ASSERT_TRUE(has(ds, "K0637", s.store)) << dump(ds);
  const Diagnostic *d = find(ds, "K0637");
  ASSERT_EQ(d->fixits.size(), 1u);
  EXPECT_EQ(d->fixits[0].span.begin, 900u);
  EXPECT_NE(d->fixits[0].replacement.find("tma_store_wait 0"), std::string::npos);
}

TEST(ProtocolEngine, UncommittedStore) {
  StoreLoop s;
  s.commit = false;
  auto ds = s.prove();
  ASSERT_TRUE(has(ds, "K0638", s.store)) << dump(ds);
  const Diagnostic *d = find(ds, "K0638");
  ASSERT_EQ(d->fixits.size(), 1u);
  EXPECT_EQ(d->fixits[0].span.begin, s.store.end);
}

TEST(ProtocolEngine, TmaStoreNeedsTheProxyFence) {
  StoreLoop s;
  s.fence = false;
  auto ds = s.prove();
  ASSERT_TRUE(has(ds, "K0628", s.store)) << dump(ds);
  EXPECT_NE(find(ds, "K0628")->message.find("`tma_store` reads"), std::string::npos);
}

/// wgmma with A from a register tile written each iteration; `pending` is
/// the loop's wgmma_wait.
std::vector<Diagnostic> registerA(int64_t pending, Span &write) {
  Gemm g;
  Program &p = g.p;
  p.accs = {"acc", "a_r"};
  p.warpgroupSlot = p.slots++;
  p.hasParam = true;
  p.paramText = "K / 64";
  p.paramMin = 1;
  int k = p.slots++;
  std::vector<uint32_t> body;
  Event w = g.ev(EvKind::AccAccess, "write");
  w.acc = 1;
  w.accWrite = true;
  w.insertAt = {w.span.begin, w.span.begin};
  write = w.span;
  body.push_back(g.node(w));
  Event m = g.ev(EvKind::Wgmma, "wgmma");
  m.acc = 0;
  m.regA = 1;
  body.push_back(g.node(m));
  body.push_back(g.node(g.ev(EvKind::Commit, "wgmma_commit")));
  Event ww = g.ev(EvKind::WgmmaWait, "wgmma_wait");
  ww.pending = pending;
  body.push_back(g.node(ww));
  std::vector<uint32_t> role = {g.loop(k, g.c(0), g.param(0), body)};
  Event fin = g.ev(EvKind::WgmmaWait, "wgmma_wait 0");
  role.push_back(g.node(fin));
  p.roles.push_back(RoleInfo{"mma", 0, 0, role, g.span()});
  DiagnosticSink sink;
  proveProtocol(p, sink);
  return sink.take();
}

TEST(ProtocolEngine, RegisterAWrittenInFlight) {
  Span write;
  auto ok = registerA(0, write);
  EXPECT_TRUE(ok.empty()) << dump(ok);
  auto ds = registerA(1, write);
  ASSERT_TRUE(has(ds, "K0635", write)) << dump(ds);
  const Diagnostic *d = find(ds, "K0635");
  ASSERT_EQ(d->fixits.size(), 1u);
  EXPECT_EQ(d->fixits[0].replacement.substr(0, 12), "wgmma_wait 0");
}

/// The persistent kernel of coord hopper2.md: a tile loop over j in 0 .. m
/// around the k loop, the ring counter it = j * n + k, one wgmma group in
/// flight across the back edge, the TMA-store epilogue per tile.
struct Persistent {
  Gemm g;
  int j0 = -1, k0 = -1, j1 = -1, k1 = -1;
  bool guardRelease = true, tileRelease = true, storeWait = true;
  int64_t loopPending = 1;
  Span waitFull, release, cWrite;

  XId it(int j, int k) { return g.bin(XOp::Add, g.bin(XOp::Mul, g.var(j), g.param(0)), g.var(k)); }
  std::vector<Diagnostic> prove() {
    Program &p = g.p;
    p.barriers = {BarrierInfo{"full", 3, 1, g.span(), g.span()},
                  BarrierInfo{"empty", 3, 2, g.span(), g.span()}};
    p.tiles = {SharedTileInfo{"a_s", 3, g.span()}, SharedTileInfo{"b_s", 3, g.span()},
               SharedTileInfo{"c_s", 2, g.span()}};
    p.accs = {"acc"};
    p.warpgroupSlot = p.slots++;
    p.hasParam = true;
    p.paramText = "K / 64";
    p.paramMin = 1;
    p.hasTiles = true;
    j0 = p.slots++;
    k0 = p.slots++;
    j1 = p.slots++;
    k1 = p.slots++;
    p.tileOrdinalSlots = {j0, j1};
    auto mod3 = [&](XId x) { return g.bin(XOp::Mod, x, g.c(3)); };
    auto div3 = [&](XId x, int64_t d) {
      return g.bin(XOp::Add, g.bin(XOp::Div, x, g.c(3)), g.c(d));
    };
    auto tiles = p.add(XNode{XOp::Tiles, 0, kNoX, kNoX, g.span(), ""});
    // producer
    std::vector<uint32_t> pb;
    {
      Event w = g.ev(EvKind::Wait, "wait empty[s] round (it / 3 - 1)");
      w.barrier = 1;
      w.stage = mod3(it(j0, k0));
      w.round = div3(it(j0, k0), -1);
      pb.push_back(g.node(w));
      Event a = g.ev(EvKind::Arrive, "arrive full[s] expect_tx 49152");
      a.barrier = 0;
      a.stage = mod3(it(j0, k0));
      a.hasTx = true;
      a.txBytes = 49152;
      pb.push_back(g.node(a));
      for (int t : {0, 1}) {
        Event l = g.ev(EvKind::TmaLoad, "tma_load");
        l.barrier = 0;
        l.stage = mod3(it(j0, k0));
        l.dst = RegionRef{t, mod3(it(j0, k0))};
        l.bytes = t == 0 ? 16384 : 32768;
        pb.push_back(g.node(l));
      }
    }
    uint32_t pk = g.loop(k0, g.c(0), g.param(0), pb);
    p.roles.push_back(RoleInfo{"producer", 0, 0, {g.loop(j0, g.c(0), tiles, {pk})}, g.span()});
    // consumers
    std::vector<uint32_t> cb;
    {
      Event w = g.ev(EvKind::Wait, "wait full[s] round (it / 3)");
      w.barrier = 0;
      w.stage = mod3(it(j1, k1));
      w.round = div3(it(j1, k1), 0);
      waitFull = w.span;
      cb.push_back(g.node(w));
      Event m = g.ev(EvKind::Wgmma, "wgmma");
      m.acc = 0;
      m.reads = {RegionRef{0, mod3(it(j1, k1))}, RegionRef{1, mod3(it(j1, k1))}};
      cb.push_back(g.node(m));
      cb.push_back(g.node(g.ev(EvKind::Commit, "wgmma_commit")));
      Event ww = g.ev(EvKind::WgmmaWait, "wgmma_wait 1");
      ww.pending = loopPending;
      cb.push_back(g.node(ww));
      Event rel = g.ev(EvKind::Arrive, "arrive empty[(it - 1) mod 3]");
      rel.barrier = 1;
      rel.stage = mod3(g.bin(XOp::Sub, it(j1, k1), g.c(1)));
      release = rel.span;
      uint32_t r = g.node(rel);
      cb.push_back(guardRelease ? g.when(g.bin(XOp::Gt, g.var(k1), g.c(0)), {r}) : r);
    }
    std::vector<uint32_t> tb = {g.loop(k1, g.c(0), g.param(0), cb)};
    tb.push_back(g.node(g.ev(EvKind::WgmmaWait, "wgmma_wait 0")));
    if (tileRelease) {
      Event rel = g.ev(EvKind::Arrive, "arrive empty[last]");
      rel.barrier = 1;
      rel.stage = mod3(g.bin(XOp::Add, g.bin(XOp::Mul, g.var(j1), g.param(0)), g.param(-1)));
      tb.push_back(g.node(rel));
    }
    if (storeWait)
      tb.push_back(g.node(g.ev(EvKind::StoreWait, "tma_store_wait 0")));
    XId wg = g.bin(XOp::Sub, g.var(p.warpgroupSlot), g.c(1));
    Event rd = g.ev(EvKind::AccAccess, "read");
    rd.acc = 0;
    tb.push_back(g.node(rd));
    Event cw = g.ev(EvKind::SharedWrite, "store");
    cw.dst = RegionRef{2, wg};
    cWrite = cw.span;
    tb.push_back(g.node(cw));
    tb.push_back(g.node(g.ev(EvKind::FenceProxy, "fence_proxy_async")));
    Event st = g.ev(EvKind::TmaStore, "tma_store");
    st.reads = {RegionRef{2, wg}};
    tb.push_back(g.node(st));
    tb.push_back(g.node(g.ev(EvKind::StoreCommit, "tma_store_commit")));
    std::vector<uint32_t> role = {g.loop(j1, g.c(0), tiles, tb)};
    role.push_back(g.node(g.ev(EvKind::StoreWait, "tma_store_wait 0")));
    p.roles.push_back(RoleInfo{"consumer", 1, 2, role, g.span()});
    DiagnosticSink sink;
    proveProtocol(p, sink);
    return sink.take();
  }
};

TEST(ProtocolEngine, PersistentKernelIsProved) {
  Persistent k;
  auto ds = k.prove();
  EXPECT_TRUE(ds.empty()) << dump(ds);
}

TEST(ProtocolEngine, PersistentReleaseOfTheInFlightStage) {
  Persistent k;
  k.loopPending = 2;
  auto ds = k.prove();
  EXPECT_TRUE(has(ds, "K0626", k.release)) << dump(ds);
}

TEST(ProtocolEngine, PersistentUnguardedRelease) {
  Persistent k;
  k.guardRelease = false;
  auto ds = k.prove();
  EXPECT_TRUE(has(ds, "K0629", k.release)) << dump(ds);
}

TEST(ProtocolEngine, PersistentDroppedTileReleaseDeadlocksTheNextTile) {
  Persistent k;
  k.tileRelease = false;
  auto ds = k.prove();
  EXPECT_TRUE(has(ds, "K0625")) << dump(ds);
}

TEST(ProtocolEngine, PersistentStoreSourceRewrittenNextTile) {
  Persistent k;
  k.storeWait = false;
  auto ds = k.prove();
  ASSERT_TRUE(has(ds, "K0636", k.cWrite)) << dump(ds);
  // Shown with two tiles: the second tile's epilogue rewrites the stage.
  EXPECT_NE(find(ds, "K0636")->message.find("tiles for the block"), std::string::npos);
}

} // namespace

namespace {

// A model proved clean is remembered (ProtocolEngine.cpp): proving it again
// reports nothing, and a model that differs only in one round offset is
// proved anew, not served from the memory.
TEST(ProtocolEngine, RememberedCleanModelDoesNotHideAChangedOne) {
  Gemm clean;
  EXPECT_TRUE(clean.prove().empty());
  Gemm again;
  EXPECT_TRUE(again.prove().empty());
  Gemm early;
  early.fullRoundOffset = -1;
  auto ds = early.prove();
  EXPECT_TRUE(has(ds, "K0621", early.waitFullSpan)) << dump(ds);
  Gemm late;
  late.fullRoundOffset = 1;
  EXPECT_FALSE(late.prove().empty());
}

} // namespace
