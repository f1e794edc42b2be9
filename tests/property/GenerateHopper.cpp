//===- GenerateHopper.cpp - Random valid Hopper kernels -------------------===//
//
// One template, a TMA + mbarrier-ring GEMM c = a * transpose(b) (a [M, K],
// b [N, K] K-major), whose every dimension is a random legal choice. The
// choices are made first (plan), then fitted together (shared memory,
// registers, TMA and wgmma shape rules), then the text is written. The
// kernels are meant to check clean for sm_90a; each choice is a feature.
//
//===----------------------------------------------------------------------===//
#include "GenerateHopper.h"

#include <algorithm>
#include <numeric>
#include <regex>

namespace kina::property {

namespace {

/// The per-block shared memory sm_90a grants (Targets.def), less the
/// 1024-byte alignment slack of the swizzled tiles.
constexpr int kSharedBudget = 232448 - 1024;

struct Plan {
  std::string dt, lc;     ///< BF16 / F16, bf16 / f16
  std::string out;        ///< result element type
  int consumers = 2;      ///< consumer warpgroups; 0 = one warpgroup does everything
  int accs = 1;           ///< accumulators per consumer (2: BM = 128 rows in one warpgroup)
  int bm = 128, bn = 256; ///< block tile (BK = 64)
  int stages = 3;
  bool persistent = false;
  int grid = 132; ///< persistent grid extent
  bool rasterM = false;
  std::vector<int> cluster; ///< empty: no cluster
  bool regA = false;
  /// A back-to-back GEMM c = (a * transpose(b)) * transpose(d): the first
  /// product's F32 accumulator, converted to a 16-bit warpgroup tile, is the
  /// register A of the second (b [64, K], d [N, 64] loaded once).
  bool chain = false;
  bool inFlight = false; ///< wgmma_wait 1 across the back edge
  bool splitA = false, splitB = false, splitK = false;
  int regsProducer = 0, regsConsumer = 0; ///< 0: no `registers`
  bool tmaStore = false;
  bool storeBuffers2 = false; ///< two c_s stages per consumer, tma_store_wait 1
  bool explicitStep = false;
  /// The K loop unrolled by two: `for k in (0 .. K/64 - 1 step 2)`, each
  /// iteration k and k + 1 (K a multiple of 128).
  bool unroll2 = false;
  std::string epilogue; ///< the expression on acc (before any convert)
  std::vector<std::string> params;
  std::vector<std::string> caps;
  std::vector<std::string> facts;
};

class HopperGen {
public:
  HopperGen(GenSink s, std::string name) : r_(s.rng), out_(s.out), s_(s), name_(std::move(name)) {}

  void run() {
    plan();
    emit();
  }

private:
  Rng &r_;
  Out &out_;
  GenSink s_;
  std::string name_;
  Plan p_;

  void feature(const std::string &f) { s_.features.insert(f); }
  std::string str(int v) { return std::to_string(v); }

  int warpgroups() const { return p_.consumers == 0 ? 1 : 1 + p_.consumers; }
  int rowsPerConsumer() const { return 64 * p_.accs; }

  /// Rows of a b_s stage: the block's N tile, or 64 for a chain.
  int bRows() const { return p_.chain ? 64 : p_.bn; }

  int sharedBytes() const {
    int b = p_.stages * (p_.bm * 64 + bRows() * 64) * 2;
    if (p_.chain)
      b += p_.bn * 64 * 2 + 8;
    if (p_.tmaStore)
      b += (p_.consumers == 0 ? 1 : p_.consumers) * (p_.storeBuffers2 ? 2 : 1) * p_.accs * 64 *
           p_.bn * 2;
    b += 8 * p_.stages * (p_.consumers == 0 ? 1 : 2);
    return b;
  }

  // ------------------------------------------------------------ plan

  void plan() {
    feature("hopper-gemm");
    p_.dt = r_.percent(55) ? "BF16" : "F16";
    p_.lc = p_.dt == "BF16" ? "bf16" : "f16";
    feature("dtype-" + p_.dt);
    feature("hopper-" + p_.lc);

    // Warpgroups: 1 producer + 1 or 2 consumers, or a single warpgroup.
    unsigned w = r_.below(100);
    p_.consumers = w < 55 ? 2 : w < 85 ? 1 : 0;
    p_.accs = p_.consumers != 2 && r_.percent(30) ? 2 : 1;
    int consumerWgs = p_.consumers == 0 ? 1 : p_.consumers;
    p_.bm = 64 * p_.accs * consumerWgs;
    feature(p_.consumers == 0   ? "hopper-single-warpgroup"
            : p_.consumers == 1 ? "hopper-one-consumer"
                                : "hopper-two-consumers");
    if (p_.accs == 2)
      feature("hopper-two-accumulators");
    feature("hopper-bm-" + str(p_.bm));

    // BN: a wgmma N (multiple of 8, <= 256); an accumulator pair halves it.
    int maxBn = p_.accs == 2 ? 128 : 256;
    if (r_.percent(50)) {
      p_.bn = r_.pick(std::vector<int>{64, 128, 192, 256, 256});
      p_.bn = std::min(p_.bn, maxBn);
    } else {
      int step = r_.percent(50) ? 8 : 16;
      p_.bn = 64 + step * r_.range(0, (maxBn - 64) / step);
    }
    if (p_.bn % 64 == 0)
      feature("hopper-bn-" + str(p_.bn));
    else
      feature(p_.bn % 16 == 0 ? "hopper-bn-multiple-of-16" : "hopper-bn-multiple-of-8");

    p_.stages = r_.range(2, 5);
    p_.chain = p_.accs == 1 && r_.percent(12);
    p_.persistent = !p_.chain && r_.percent(45);
    p_.inFlight = p_.consumers != 0 && r_.percent(40);
    p_.regA = !p_.chain && !p_.inFlight && p_.accs == 1 && r_.percent(25);
    p_.splitK = !p_.regA && r_.percent(25);
    if (p_.chain) {
      p_.inFlight = false;
      feature("hopper-chain");
      feature("hopper-wgmma-register-a-convert");
    }
    // Two boxes into disjoint row halves of one stage (`b_s[s, 0 ..+ 128,
    // 0 ..+ 64]`, `b_s[s, 128 ..+ 128, 0 ..+ 64]`) are legal TMA, but the
    // protocol proof treats any two writes of a stage as overlapping
    // (K0633), so the generator writes one box per operand (splitA/B off).
    p_.explicitStep = r_.percent(15);
    // Not in a persistent loop: the protocol checker samples K/64 - 1
    // freely (odd K/64 too, against `K mod 128 = 0`) and then finds the
    // ring counter skipping a value between tiles: a false K0625
    // (tests/property/repros/checker-persistent-unroll2-k0625.kina).
    p_.unroll2 = !p_.inFlight && !p_.persistent && r_.percent(20);
    // The TMA-store epilogue: a 16-bit result whose rows are whole panels.
    p_.tmaStore = p_.bn % 64 == 0 && p_.bn != 192 && r_.percent(45);
    // Double-buffered store stages alternate with the tile ordinal: with
    // 5 stages the ring's period (lcm(5, 2)) is past what the protocol
    // checker samples (K0650), so 2-4 stages.
    p_.storeBuffers2 = p_.tmaStore && p_.persistent && p_.stages < 5 && r_.percent(60);

    // Fit shared memory: fewer stages, then a narrower tile.
    while (sharedBytes() > kSharedBudget) {
      if (p_.storeBuffers2)
        p_.storeBuffers2 = false;
      else if (p_.stages > 2)
        --p_.stages;
      else if (p_.bn > 64)
        p_.bn -= 64;
      else
        break;
    }
    // c_s is [.., 64, BN]: 1, 2 or 4 panels (3 panels is K0410 in this version).
    if (p_.bn % 64 != 0 || p_.bn == 192)
      p_.tmaStore = false;
    feature("hopper-stages-" + str(p_.stages));
    if (sharedBytes() > 200 * 1024)
      feature("hopper-shared-over-200k");

    if (p_.persistent) {
      p_.grid = r_.pick(std::vector<int>{132, 132, 66, 16, 8, 114});
      p_.rasterM = r_.percent(25);
    }
    if (r_.percent(25)) {
      // One extent per grid axis: two for the [M/BM, N/BN] grid.
      p_.cluster = r_.pick(std::vector<std::vector<int>>{{2, 1}, {1, 2}, {2, 2}, {4, 1}, {1, 1}});
      if (p_.persistent)
        p_.cluster = {p_.grid % 4 == 0 && r_.percent(30) ? 4 : 2};
    }

    // Registers: setmaxnreg budgets (multiples of 8 in [24, 256]) whose sum
    // over the block fits 64K, the consumer's above what its tiles need.
    // Without `registers` every warpgroup keeps the launch's share, which
    // must leave the checker's 32 registers of headroom over the tiles
    // (K0922); 48 here, as for the budgets below.
    int tiles = p_.bn * p_.accs / 2 + (p_.regA || p_.chain ? 16 : 0) + (p_.chain ? 32 : 0);
    int launch = std::min(255, 65536 / (128 * warpgroups())) / 8 * 8;
    bool launchFits = tiles + 48 <= launch;
    if (p_.consumers != 0 && (r_.percent(80) || !launchFits)) {
      p_.regsProducer = r_.pick(std::vector<int>{24, 32, 40, 40, 56});
      int cap = std::min(256, ((512 - p_.regsProducer) / p_.consumers) / 8 * 8);
      int need = p_.bn * p_.accs / 2 + 48 + (p_.chain ? 48 : 0);
      int lo = std::min(cap, (need + 7) / 8 * 8);
      p_.regsConsumer = lo + 8 * r_.range(0, (cap - lo) / 8);
      if (r_.percent(40))
        p_.regsConsumer = cap;
      feature("hopper-setmaxnreg");
      if (p_.regsConsumer == cap)
        feature("hopper-setmaxnreg-at-limit");
    } else if (p_.consumers == 0 && (r_.percent(30) || !launchFits)) {
      p_.regsConsumer = r_.pick(std::vector<int>{256, 232, 240});
      feature("hopper-setmaxnreg");
    }
  }

  // ------------------------------------------------------------ text

  std::string ranges(const std::string &lo, int n) { return lo + " ..+ " + str(n); }

  void emit() {
    const Plan &p = p_;
    int clusterX = p.cluster.empty() ? 1 : p.cluster[0];
    int clusterY = p.cluster.size() > 1 ? p.cluster[1] : 1;
    // (a persistent grid is 1-D: its cluster has one extent)
    // Divisibility: tiles, and in a non-persistent cluster launch whole
    // clusters of tiles along each axis.
    int mDiv = p.bm * (p.persistent ? 1 : clusterX);
    int nDiv = p.bn * (p.persistent ? 1 : clusterY);
    p_.facts = {"M mod " + str(mDiv) + " = 0", "N mod " + str(nDiv) + " = 0",
                p.unroll2 ? "K mod 128 = 0" : "K mod 64 = 0"};
    p_.caps = {"sm_90a", "wgmma_" + p.lc, "tma", "mbarrier", "mbarrier_try_wait"};
    if (p.regsProducer || p.regsConsumer)
      p_.caps.push_back("setmaxnreg");
    if (p.tmaStore)
      p_.caps.push_back("tma_store");
    if (!p.cluster.empty())
      p_.caps.push_back("clusters");
    std::string epi = epilogue();

    // Launch dims: two tiles (clusters) along M and N, K/64 past the ring's
    // length so the stages wrap; a persistent grid of 16 or fewer blocks
    // gets more tiles than blocks, so a block walks several and the ring
    // runs across tiles (larger grids stay small for the interpreter).
    int mTiles = 2, nTiles = 2;
    if (p.persistent && p.grid <= 16)
      while (mTiles * nTiles < p.grid + 3)
        (mTiles <= nTiles ? mTiles : nTiles) += 1;
    int kSteps = r_.range(1, p.stages + 2);
    if (p.unroll2)
      kSteps = 2 * ((kSteps + 1) / 2);
    s_.launches.push_back(
        {name_, "M=" + str(mTiles * mDiv) + ",N=" + str(nTiles * nDiv) + ",K=" + str(64 * kSteps)});
    out_.line("kernel " + name_);
    out_.line("    [M, N, K]");
    for (const std::string &f : p_.facts)
      out_.line("    requires (" + f + ")");
    std::string caps;
    for (const std::string &c : p_.caps)
      caps += (caps.empty() ? "" : ", ") + c;
    out_.line("    requires capability(" + caps + ")");
    out_.line("    (a : Tensor[" + p.dt + ", [M, K], on=cuda:global])");
    out_.line("    (b : Tensor[" + p.dt + (p.chain ? ", [64, K]" : ", [N, K]") +
              ", on=cuda:global])");
    if (p.chain)
      out_.line("    (d : Tensor[" + p.dt + ", [N, 64], on=cuda:global])");
    for (const std::string &q : p_.params)
      out_.line("    " + q);
    out_.open("    : (c : Tensor[" + p.out + ", [M, N], on=cuda:global])");

    std::string grid = p.persistent ? "block_grid [" + str(p.grid) + "]"
                                    : "block_grid [M/" + str(p.bm) + ", N/" + str(p.bn) + "]";
    if (!p.cluster.empty()) {
      grid +=
          " cluster [" + str(clusterX) + (p.cluster.size() > 1 ? ", " + str(clusterY) : "") + "]";
      feature("hopper-cluster");
      feature("hopper-cluster-" + str(clusterX * clusterY));
    }
    out_.open(grid);
    feature(p.persistent ? "hopper-persistent" : "hopper-non-persistent");
    if (!p.persistent) {
      out_.line("let bm = block_id 0 in");
      out_.line("let bn = block_id 1 in");
    }
    out_.line("shared a_s : Tile[" + p.dt + ", [" + str(p.stages) + ", " + str(p.bm) +
              ", 64], on=cuda:shared, layout=swizzle_128b]");
    if (p.chain)
      out_.line("shared d_s : Tile[" + p.dt + ", [1, " + str(p.bn) +
                ", 64], on=cuda:shared, layout=swizzle_128b]");
    out_.line("shared b_s : Tile[" + p.dt + ", [" + str(p.stages) + ", " + str(bRows()) +
              ", 64], on=cuda:shared, layout=swizzle_128b]");
    int cStages = 0;
    if (p.tmaStore) {
      cStages = (p.consumers == 0 ? 1 : p.consumers) * p.accs * (p.storeBuffers2 ? 2 : 1);
      out_.line("shared c_s : Tile[" + p.out + ", [" + str(cStages) + ", 64, " + str(p.bn) +
                "], on=cuda:shared, layout=swizzle_128b]");
    }
    out_.line("shared full : Barrier[" + str(p.stages) + ", arrivals=1]");
    if (p.chain)
      out_.line("shared dfull : Barrier[1, arrivals=1]");
    if (p.consumers != 0)
      out_.line("shared empty : Barrier[" + str(p.stages) + ", arrivals=" + str(p.consumers) + "]");
    out_.open("warpgroup_grid [" + str(warpgroups()) + "]");
    if (p.consumers == 0) {
      out_.open("role main (warpgroup 0)" + regs(p.regsConsumer));
      consumer(epi, true);
      out_.close();
    } else {
      feature("hopper-warp-specialized");
      out_.open("role producer (warpgroup 0)" + regs(p.regsProducer));
      producer();
      out_.close();
      std::string range = p.consumers == 1 ? "(warpgroup 1)" : "(warpgroup 1 .. 2)";
      out_.open("role consumer " + range + regs(p.regsConsumer));
      consumer(epi, false);
      out_.close();
    }
    out_.close();
    out_.close();
    out_.close();
  }

  std::string regs(int r) { return r ? " registers " + str(r) : ""; }

  /// `for t in (block_id 0 .. T step G)` and the tile's bm, bn.
  void openTileLoop() {
    const Plan &p = p_;
    if (!p.persistent)
      return;
    std::string mt = "M/" + str(p.bm), nt = "N/" + str(p.bn);
    out_.open("for t in (block_id 0 .. (" + mt + ") * (" + nt + ") step " + str(p.grid) + ")");
    if (p.rasterM) {
      feature("hopper-raster-m");
      out_.line("let bm = t mod (" + mt + ") in");
      out_.line("let bn = t / (" + mt + ") in");
    } else {
      out_.line("let bm = t / (" + nt + ") in");
      out_.line("let bn = t mod (" + nt + ") in");
    }
    feature("hopper-index-div-mod-dim");
  }

  std::string kLoop() {
    if (p_.unroll2) {
      // The bound K/64 - 1 (not K/64) proves k + 1 < K/64.
      feature("hopper-k-loop-step-2");
      return "for k in (0 .. K/64 - 1 step 2)";
    }
    feature(p_.explicitStep ? "hopper-k-loop-step" : "hopper-k-loop");
    return p_.explicitStep ? "for k in (0 .. K/64 step 1)" : "for k in (0 .. K/64)";
  }

  /// Where the K loop's body began in the text (for unroll2).
  size_t bodyStart_ = 0;

  /// Closes the K loop; unrolled by two, the body is written again for
  /// k1 = k + 1 (its own lets, no zero_when: k1 > 0).
  void closeKLoop() {
    if (p_.unroll2) {
      std::string body = out_.text().substr(bodyStart_);
      static const std::regex k("\\bk\\b"), s("\\bs\\b"), it("\\bit\\b");
      body = std::regex_replace(body, std::regex(" zero_when \\(k = 0\\)"), "");
      body = std::regex_replace(std::regex_replace(std::regex_replace(body, k, "k1"), s, "s1"), it,
                                "it1");
      out_.line("let k1 = k + 1 in");
      out_.text() += body;
    }
    out_.close();
  }

  /// The ring counter: `k`, or across tiles `(t / G) * (K/64) + k`.
  std::string openRingIteration() {
    out_.open(kLoop());
    bodyStart_ = out_.text().size();
    if (!p_.persistent) {
      out_.line("let s = k mod " + str(p_.stages) + " in");
      return "k";
    }
    out_.line("let it = (t / " + str(p_.grid) + ") * (K/64) + k in");
    out_.line("let s = it mod " + str(p_.stages) + " in");
    feature("hopper-ring-across-tiles");
    return "it";
  }

  void loads() {
    const Plan &p = p_;
    int bytes = (p.bm + bRows()) * 64 * 2;
    out_.line("arrive full[s] expect_tx " + str(bytes));
    feature("hopper-expect-tx");
    auto load = [&](const std::string &dst, const std::string &tensor, const std::string &id,
                    int tile, int parts) {
      if (parts == 1) {
        out_.line("tma_load " + dst + "[s] <- " + tensor + "[" + id + " * " + str(tile) + " ..+ " +
                  str(tile) + ", k * 64 ..+ 64] completes full[s]");
        return;
      }
      int h = tile / parts;
      for (int i = 0; i < parts; ++i)
        out_.line("tma_load " + dst + "[s, " + str(i * h) + " ..+ " + str(h) + ", 0 ..+ 64] <- " +
                  tensor + "[" + id + " * " + str(tile) + " + " + str(i * h) + " ..+ " + str(h) +
                  ", k * 64 ..+ 64] completes full[s]");
      feature("hopper-tma-load-split-box");
    };
    load("a_s", "a", "bm", p.bm, p.splitA ? 2 : 1);
    if (p.chain)
      out_.line("tma_load b_s[s] <- b[0 ..+ 64, k * 64 ..+ 64] completes full[s]");
    else
      load("b_s", "b", "bn", p.bn, p.splitB ? 2 : 1);
    feature("hopper-tma-load");
  }

  /// The chain's second B operand, loaded once per block.
  void loadD() {
    if (!p_.chain)
      return;
    out_.line("arrive dfull[0] expect_tx " + str(p_.bn * 64 * 2));
    out_.line("tma_load d_s[0] <- d[bn * " + str(p_.bn) + " ..+ " + str(p_.bn) +
              ", 0 ..+ 64] completes dfull[0]");
  }

  void producer() {
    loadD();
    openTileLoop();
    std::string it = openRingIteration();
    out_.line("wait empty[s] round (" + it + " / " + str(p_.stages) + " - 1)");
    feature("hopper-wait-empty");
    loads();
    closeKLoop();
    if (p_.persistent)
      out_.close();
  }

  /// A rows slice of a_s for accumulator `i` of this consumer.
  std::string aRows(int i) {
    std::string base;
    if (p_.consumers == 2)
      base = "wg * " + str(64 * p_.accs);
    if (i)
      base = base.empty() ? str(64 * i) : base + " + " + str(64 * i);
    return base;
  }

  std::string accName(int i) { return p_.accs == 1 ? "acc" : "acc" + str(i); }

  void consumer(const std::string &epi, bool alone) {
    const Plan &p = p_;
    if (p.consumers == 2)
      out_.line("let wg = warpgroup_id - 1 in");
    for (int i = 0; i < p.accs; ++i)
      out_.line("register " + accName(i) + " : Tile[F32, [64, " + str(p.bn) +
                "], on=cuda:register]");
    if (p.regA || p.chain)
      out_.line("register a_r : Tile[" + p.dt + ", [64, 64], on=cuda:register]");
    if (p.chain)
      out_.line("register acc2 : Tile[F32, [64, 64], on=cuda:register]");
    if (alone)
      loadD();
    openTileLoop();
    std::string it = openRingIteration();
    if (alone)
      loads();
    out_.line("wait full[s] round (" + it + " / " + str(p.stages) + ")");
    feature("hopper-wait-full");
    for (int i = 0; i < p.accs; ++i) {
      std::string rows = aRows(i);
      bool whole = rows.empty() && p.bm == 64;
      std::string aSlice = [&](const std::string &cols) {
        if (whole && cols == "0 ..+ 64" && r_.percent(50))
          return std::string("a_s[s]");
        return "a_s[s, " + (rows.empty() ? "0" : rows) + " ..+ 64, " + cols + "]";
      }("0 ..+ 64");
      std::string a = aSlice;
      if (p.regA) {
        out_.line("a_r <- " + aSlice);
        a = "a_r";
        feature("hopper-wgmma-register-a");
      } else {
        feature("hopper-wgmma-shared-a");
      }
      std::string acc = p.chain ? "acc2" : accName(i);
      if (p.splitK) {
        feature("hopper-wgmma-split-k");
        for (int h = 0; h < 2; ++h) {
          std::string cols = str(32 * h) + " ..+ 32";
          out_.line(acc + " <- wgmma " + acc + " a_s[s, " + (rows.empty() ? "0" : rows) +
                    " ..+ 64, " + cols + "] b_s[s, 0 ..+ " + str(bRows()) + ", " + cols + "]" +
                    (h == 0 ? " zero_when (k = 0)" : ""));
        }
      } else {
        out_.line(acc + " <- wgmma " + acc + " " + a + " b_s[s] zero_when (k = 0)");
      }
    }
    feature("hopper-wgmma-zero-when");
    out_.line("wgmma_commit");
    if (alone) {
      out_.line("wgmma_wait 0");
      feature("hopper-wgmma-wait-0");
    } else if (p.inFlight) {
      out_.line("wgmma_wait 1");
      feature("hopper-wgmma-wait-1-in-flight");
      out_.open("if (k > 0)");
      out_.line("arrive empty[(" + it + " - 1) mod " + str(p.stages) + "]");
      out_.close();
    } else {
      out_.line("wgmma_wait 0");
      feature("hopper-wgmma-wait-0");
      out_.line("arrive empty[s]");
    }
    closeKLoop();
    if (p.inFlight) {
      out_.line("wgmma_wait 0");
      std::string last =
          p.persistent ? "(t / " + str(p.grid) + ") * (K/64) + K/64 - 1" : "K/64 - 1";
      out_.line("arrive empty[(" + last + ") mod " + str(p.stages) + "]");
    }
    if (p.chain) {
      out_.line("a_r <- convert " + p.dt + " acc2");
      out_.line("wait dfull[0] round 0");
      out_.line("acc <- wgmma acc a_r d_s[0] zero_when (0 = 0)");
      out_.line("wgmma_commit");
      out_.line("wgmma_wait 0");
    }
    epilogueStatements(epi);
    if (p.persistent)
      out_.close();
    if (p.tmaStore)
      out_.line("tma_store_wait 0");
  }

  // ------------------------------------------------------------ epilogue

  /// Chooses the epilogue (its parameters and the result type) and returns
  /// the expression over `ACC`.
  std::string epilogue() {
    Plan &p = p_;
    p.out = p.tmaStore ? (r_.percent(80) ? p.dt : (p.dt == "BF16" ? "F16" : "BF16"))
                       : r_.pick(std::vector<std::string>{"F32", "F32", p.dt, "BF16", "F16"});
    std::string e = "ACC";
    int ops = r_.range(0, 2);
    // A cluster launch mostly reads a per-rank column (cluster_rank in an
    // index), the last operation of the epilogue.
    bool rankColumn = !p.cluster.empty() && r_.percent(60);
    ops += rankColumn;
    for (int i = 0; i < ops; ++i) {
      switch (rankColumn && i + 1 == ops ? 3 : r_.below(7)) {
      case 0:
        e = "relu " + paren(e);
        feature("hopper-epilogue-relu");
        break;
      case 1: {
        std::string bt = r_.percent(50) ? "F32" : p.dt;
        addParam("bias", "(bias : Tensor[" + bt + ", [N], on=cuda:global])");
        e = "add " + paren(e) + " bias[bn * " + str(p.bn) + " ..+ " + str(p.bn) + "]";
        feature("hopper-epilogue-broadcast-n");
        break;
      }
      case 2:
        addParam("row", "(row : Tensor[F32, [1, N], on=cuda:global])");
        e = "mul " + paren(e) + " row[0, bn * " + str(p.bn) + " ..+ " + str(p.bn) + "]";
        feature("hopper-epilogue-broadcast-1xn");
        break;
      case 3: {
        // A column per output row; a cluster picks its column by rank.
        bool byRank = !p.cluster.empty() && (rankColumn || r_.percent(60));
        std::string name = byRank ? "rank_col" : "col";
        int cols = byRank ? clusterSize() : 1;
        addParam(name, "(" + name + " : Tensor[F32, [M, " + str(cols) + "], on=cuda:global])");
        e = "add " + paren(e) + " " + name + "[ROWS ..+ 64, " + (byRank ? "cluster_rank" : "0") +
            " ..+ 1]";
        feature("hopper-epilogue-broadcast-64x1");
        if (byRank)
          feature("hopper-cluster-rank-index");
        break;
      }
      case 4:
        e = "mul " + paren(e) + " " + r_.pick(std::vector<std::string>{"0.5", "2.0", "(-1.0)"});
        feature("hopper-epilogue-scalar");
        break;
      case 5:
        addParam("alpha", "(alpha : F32)");
        e = "mul " + paren(e) + " alpha";
        feature("hopper-epilogue-scalar-param");
        break;
      default:
        e = r_.pick(std::vector<std::string>{"gelu", "sigmoid", "silu", "tanh"}) + " " + paren(e);
        feature("hopper-epilogue-math");
        break;
      }
    }
    if (ops == 0)
      feature("hopper-epilogue-plain");
    if (p.out != "F32") {
      e = "convert " + p.out + " " + paren(e);
      feature("hopper-epilogue-convert-" + p.out);
    }
    return e;
  }

  int clusterSize() const {
    int n = 1;
    for (int c : p_.cluster)
      n *= c;
    return n;
  }

  static std::string paren(const std::string &e) {
    return e.find(' ') == std::string::npos ? e : "(" + e + ")";
  }

  void addParam(const std::string &name, const std::string &decl) {
    for (const std::string &q : p_.params)
      if (q.rfind("(" + name + " ", 0) == 0)
        return;
    p_.params.push_back(decl);
  }

  static std::string replaceAll(std::string s, const std::string &from, const std::string &to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
      s.replace(at, from.size(), to);
    return s;
  }

  void epilogueStatements(const std::string &epi) {
    const Plan &p = p_;
    for (int i = 0; i < p.accs; ++i) {
      std::string rows = "bm * " + str(p.bm);
      std::string off = aRows(i);
      if (!off.empty())
        rows += " + " + off;
      std::string value = replaceAll(replaceAll(epi, "ACC", accName(i)), "ROWS", rows);
      std::string dst = "c[" + rows + " ..+ 64, bn * " + str(p.bn) + " ..+ " + str(p.bn) + "]";
      if (!p.tmaStore) {
        out_.line(dst + " <- " + value);
        feature("hopper-store-global");
        continue;
      }
      // Register -> shared (stmatrix) -> TMA store.
      int perWg = p.accs * (p.storeBuffers2 ? 2 : 1);
      std::string stage;
      if (p.consumers == 2)
        stage = "wg * " + str(perWg);
      if (i)
        stage = stage.empty() ? str(i) : stage + " + " + str(i);
      if (p.storeBuffers2) {
        std::string buf = str(p.accs) + " * ((t / " + str(p.grid) + ") mod 2)";
        stage = stage.empty() ? buf : stage + " + " + buf;
      }
      if (stage.empty())
        stage = "0";
      if (p.storeBuffers2) {
        out_.line("tma_store_wait 1");
        feature("hopper-tma-store-wait-1");
      } else if (p.persistent) {
        out_.line("tma_store_wait 0");
        feature("hopper-tma-store-wait-0");
      }
      out_.line("c_s[" + stage + "] <- " + value);
      feature("hopper-stmatrix");
      out_.line("fence_proxy_async");
      feature("hopper-fence-proxy-async");
      out_.line("tma_store " + dst + " <- c_s[" + stage + "]");
      out_.line("tma_store_commit");
      feature("hopper-tma-store");
    }
  }
};

} // namespace

void generateHopperKernel(GenSink sink, const std::string &name) { HopperGen(sink, name).run(); }

const std::vector<std::string> &hopperFeatures() {
  static const std::vector<std::string> all = {
      "hopper-gemm",
      "hopper-bf16",
      "hopper-f16",
      "hopper-single-warpgroup",
      "hopper-one-consumer",
      "hopper-two-consumers",
      "hopper-two-accumulators",
      "hopper-warp-specialized",
      "hopper-bm-64",
      "hopper-bm-128",
      "hopper-bn-64",
      "hopper-bn-128",
      "hopper-bn-192",
      "hopper-bn-256",
      "hopper-bn-multiple-of-8",
      "hopper-bn-multiple-of-16",
      "hopper-stages-2",
      "hopper-stages-3",
      "hopper-stages-4",
      "hopper-stages-5",
      "hopper-shared-over-200k",
      "hopper-persistent",
      "hopper-non-persistent",
      "hopper-raster-m",
      "hopper-index-div-mod-dim",
      "hopper-ring-across-tiles",
      "hopper-k-loop",
      "hopper-k-loop-step",
      "hopper-k-loop-step-2",
      "hopper-setmaxnreg",
      "hopper-setmaxnreg-at-limit",
      "hopper-expect-tx",
      "hopper-tma-load",
      "hopper-wait-empty",
      "hopper-wait-full",
      "hopper-wgmma-shared-a",
      "hopper-wgmma-register-a",
      "hopper-wgmma-register-a-convert",
      "hopper-chain",
      "hopper-wgmma-split-k",
      "hopper-wgmma-zero-when",
      "hopper-wgmma-wait-0",
      "hopper-wgmma-wait-1-in-flight",
      "hopper-epilogue-plain",
      "hopper-epilogue-relu",
      "hopper-epilogue-math",
      "hopper-epilogue-scalar",
      "hopper-epilogue-scalar-param",
      "hopper-epilogue-broadcast-n",
      "hopper-epilogue-broadcast-1xn",
      "hopper-epilogue-broadcast-64x1",
      "hopper-epilogue-convert-BF16",
      "hopper-epilogue-convert-F16",
      "hopper-store-global",
      "hopper-stmatrix",
      "hopper-fence-proxy-async",
      "hopper-tma-store",
      "hopper-tma-store-wait-0",
      "hopper-tma-store-wait-1",
      "hopper-cluster",
      "hopper-cluster-2",
      "hopper-cluster-4",
      "hopper-cluster-rank-index",
  };
  return all;
}

} // namespace kina::property
