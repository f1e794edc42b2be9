//===- Main.cpp - kina-property: check clean => build succeeds ------------===//
//
// The property test of issue 11 part 3. For every input program and each
// target (sm_80 and sm_90a by default): when `kina check --target T`
// accepts it, `kina build --target T` must build every kernel (to PTX; to a
// cubin through ptxas for every corpus file and a sample of the generated
// programs). Inputs: every .kina file under the corpus folders (the test
// tree, the stdlib), the ```kina blocks of docs/*.md, and N programs from
// the generator (Generator.h) with a fixed seed.
//
// A build failure that matches a class in known-failures.txt is an expected
// failure (counted apart, as skipped); any other is a failure: the program
// is minimized (Minimize.h), printed, and written under --out. Programs
// the checker rejects do not bear on the property; their rate and top codes
// are reported so a generator that only produces rejected programs shows.
// A crash prints the program being built and writes it to --out too.
//
// Usage: kina-property [--seed S|random] [--count N] [--jobs J]
//          [--targets sm_80,sm_90a] [--corpus DIR]... [--docs DIR]
//          [--known FILE] [--out DIR] [--cubin-every N] [--cubin-every-hopper N]
//          [--no-minimize]
//          [--max-statements N] [--inject-fault coded|uncoded|crash:MARKER]
//          [--write-repros DIR] [--gpu-batch DIR] [--print N] [--family hopper|all]
//   --write-repros  minimize one program per failure signature into DIR
//   --gpu-batch     write the generated programs that build, with launch
//                   dims, for tests/property/gpu-batch.sh on a GPU machine
//   --print N       print generated program N of the seed and exit
//   --family hopper generate only Hopper kernels (GenerateHopper.h)
// A generated program that needs one target (a Hopper kernel: sm_90a) must
// be rejected on the others with a capability code (K05xx); checking clean
// there is a failure. The Hopper features of GenerateHopper.h must all be
// built in a run of 100 or more Hopper programs, or the run fails.
// Env:   KINA_PROPERTY_SEED, KINA_PROPERTY_COUNT (override the defaults,
//        not explicit flags), KINA_JOBS.
// Exit:  0 the property holds (expected failures aside), 1 it does not,
//        2 usage.
//
//===----------------------------------------------------------------------===//
#include "GenerateHopper.h"
#include "Generator.h"
#include "Minimize.h"
#include "Pipeline.h"

#include "target/Tools.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace kina::property;

namespace {

// ---------------------------------------------------------------- options

struct Options {
  uint64_t seed = 20250611; // the fixed CI seed
  bool randomSeed = false;
  unsigned count = 3000;
  unsigned jobs = 2;
  std::vector<std::string> targets = {"sm_80", "sm_90a"};
  std::vector<std::string> corpus;
  std::vector<std::string> docs;
  std::string known;
  std::string out = "property-failures";
  unsigned cubinEvery = 40;
  /// Programs for one target (Hopper kernels) go through ptxas more often:
  /// its register allocation (spills, serialised wgmma, dropped setmaxnreg)
  /// is where their builds fail.
  unsigned cubinEveryOneTarget = 4;
  bool minimize = true;
  std::optional<FaultInjection> fault;
  std::optional<unsigned> print;
  std::string repros;   ///< minimize one program per failure signature into here
  std::string gpuBatch; ///< write the programs that build, for tests/property/gpu-batch.sh
  GeneratorOptions gen;
};

[[noreturn]] void usage(const std::string &why, int exitCode = 2) {
  std::cerr << "kina-property: " << why
            << "\nusage: kina-property [--seed S|random] [--count N] [--jobs J] [--targets "
               "T1,T2] [--corpus DIR]... [--docs DIR]... [--known FILE] [--out DIR] "
               "[--cubin-every N] [--cubin-every-hopper N] [--no-minimize] [--max-statements N] "
               "[--family hopper|all] "
               "[--inject-fault "
               "KIND:MARKER] [--write-repros DIR] [--gpu-batch DIR] [--print N]\n";
  std::exit(exitCode);
}

unsigned parseCount(const std::string &s, const char *what) {
  char *end = nullptr;
  unsigned long v = std::strtoul(s.c_str(), &end, 10);
  if (s.empty() || *end)
    usage(std::string("bad ") + what + " '" + s + "'");
  return static_cast<unsigned>(v);
}

void parseSeed(Options &o, const std::string &s) {
  if (s == "random") {
    o.randomSeed = true;
    o.seed = static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) %
             1000000007ULL;
    return;
  }
  char *end = nullptr;
  o.seed = std::strtoull(s.c_str(), &end, 10);
  if (s.empty() || *end)
    usage("bad seed '" + s + "' (a number or `random`)");
}

Options parseOptions(int argc, char **argv) {
  Options o;
  if (const char *s = std::getenv("KINA_PROPERTY_SEED"); s && *s)
    parseSeed(o, s);
  if (const char *c = std::getenv("KINA_PROPERTY_COUNT"); c && *c)
    o.count = parseCount(c, "KINA_PROPERTY_COUNT");
  if (const char *j = std::getenv("KINA_JOBS"); j && *j)
    o.jobs = std::max(1u, parseCount(j, "KINA_JOBS"));
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--seed")
      parseSeed(o, value());
    else if (a == "--count")
      o.count = parseCount(value(), "--count");
    else if (a == "--jobs")
      o.jobs = std::max(1u, parseCount(value(), "--jobs"));
    else if (a == "--targets") {
      o.targets.clear();
      std::stringstream ss(value());
      for (std::string t; std::getline(ss, t, ',');)
        if (!t.empty())
          o.targets.push_back(t);
    } else if (a == "--corpus")
      o.corpus.push_back(value());
    else if (a == "--docs")
      o.docs.push_back(value());
    else if (a == "--known")
      o.known = value();
    else if (a == "--out")
      o.out = value();
    else if (a == "--cubin-every")
      o.cubinEvery = parseCount(value(), "--cubin-every");
    else if (a == "--cubin-every-hopper")
      o.cubinEveryOneTarget = parseCount(value(), "--cubin-every-hopper");
    else if (a == "--family") {
      o.gen.family = value();
      if (o.gen.family != "hopper" && o.gen.family != "all")
        usage("bad --family '" + o.gen.family + "' (hopper or all)");
      if (o.gen.family == "all")
        o.gen.family.clear();
    } else if (a == "--max-statements")
      o.gen.maxStatements = parseCount(value(), "--max-statements");
    else if (a == "--no-minimize")
      o.minimize = false;
    else if (a == "--inject-fault") {
      o.fault = FaultInjection::parse(value());
      if (!o.fault)
        usage("bad --inject-fault (coded:MARKER, uncoded:MARKER or crash:MARKER)");
    } else if (a == "--gpu-batch")
      o.gpuBatch = value();
    else if (a == "--write-repros")
      o.repros = value();
    else if (a == "--print")
      o.print = parseCount(value(), "--print");
    else if (a == "-h" || a == "--help")
      usage("check clean => build succeeds, for the corpus and generated programs", 0);
    else
      usage("unknown argument '" + a + "'");
  }
  return o;
}

// ---------------------------------------------------------- known classes

struct KnownClass {
  std::string name;
  std::regex pattern;
  std::string reason;
  unsigned hits = 0;
};

std::vector<KnownClass> loadKnown(const std::string &path) {
  std::vector<KnownClass> known;
  if (path.empty())
    return known;
  std::ifstream in(path);
  if (!in)
    usage("cannot read known-failures file '" + path + "'");
  std::string line;
  unsigned n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#')
      continue;
    auto a = line.find(" | "), b = line.find(" | ", a == std::string::npos ? 0 : a + 3);
    if (a == std::string::npos || b == std::string::npos)
      usage(path + ":" + std::to_string(n) + ": expected `name | regex | reason`");
    KnownClass k{line.substr(0, a), std::regex(line.substr(a + 3, b - a - 3)), line.substr(b + 3)};
    known.push_back(std::move(k));
  }
  return known;
}

// ---------------------------------------------------------------- inputs

struct Input {
  std::string name; ///< file path, docs block, or `generated #i`
  std::string text;
  bool generated = false;
  uint64_t index = 0;
  std::set<std::string> features;
  std::vector<std::pair<std::string, std::string>> launches; ///< kernel, --dims
  std::string requiredTarget;                                ///< empty: any target
  /// Whether the program is meant to build for `target`.
  bool meantFor(const std::string &target) const {
    return requiredTarget.empty() || requiredTarget == target;
  }
};

void addCorpus(const std::string &root, std::vector<Input> &inputs) {
  std::error_code ec;
  if (!fs::exists(root, ec))
    usage("corpus folder '" + root + "' does not exist");
  std::vector<std::string> paths;
  for (auto it = fs::recursive_directory_iterator(root, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec)
      break;
    if (it->is_regular_file() && it->path().extension() == ".kina")
      paths.push_back(it->path().string());
  }
  std::sort(paths.begin(), paths.end());
  for (const std::string &p : paths) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    inputs.push_back({p, ss.str(), false, 0, {}, {}, {}});
  }
}

/// The ```kina blocks of every .md file in `root`: what a newcomer copies.
void addDocs(const std::string &root, std::vector<Input> &inputs) {
  std::error_code ec;
  std::vector<std::string> paths;
  for (auto &e : fs::directory_iterator(root, ec))
    if (e.path().extension() == ".md")
      paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  for (const std::string &p : paths) {
    std::ifstream in(p);
    std::string line, block;
    bool inside = false;
    unsigned n = 0, lineNo = 0, startLine = 0;
    while (std::getline(in, line)) {
      ++lineNo;
      if (!inside && line.rfind("```kina", 0) == 0) {
        inside = true;
        block.clear();
        startLine = lineNo + 1;
      } else if (inside && line.rfind("```", 0) == 0) {
        inside = false;
        inputs.push_back(
            {p + ":" + std::to_string(startLine) + " (block " + std::to_string(++n) + ")",
             block,
             false,
             0,
             {},
             {},
             {}});
      } else if (inside) {
        block += line + "\n";
      }
    }
  }
}

// ---------------------------------------------------------------- results

struct TargetResult {
  Outcome outcome;
  int known = -1; ///< index into the known classes, -1: unexpected
};

struct Result {
  std::vector<TargetResult> perTarget;
};

/// The program each worker is building, for the crash and hang reports.
struct Current {
  std::mutex lock;
  std::string name, target, text;
  std::atomic<int64_t> sinceMs{0}; ///< 0: idle
};

std::vector<std::unique_ptr<Current>> gCurrent;
std::string gCrashPath;
thread_local Current *tCurrent = nullptr;

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void writeAll(int fd, const char *s, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, s, n);
    if (w <= 0)
      return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

/// On a crash: the program this thread was building, to stderr and to
/// <out>/crash.kina. Only async-signal-safe calls; the strings were set
/// before the build started.
void onCrash(int sig) {
  if (tCurrent) {
    const char head[] = "\nkina-property: CRASH while building ";
    writeAll(2, head, sizeof head - 1);
    writeAll(2, tCurrent->name.data(), tCurrent->name.size());
    writeAll(2, " for ", 5);
    writeAll(2, tCurrent->target.data(), tCurrent->target.size());
    const char mid[] = "; the program (also in ";
    writeAll(2, mid, sizeof mid - 1);
    writeAll(2, gCrashPath.data(), gCrashPath.size());
    writeAll(2, "):\n", 3);
    writeAll(2, tCurrent->text.data(), tCurrent->text.size());
    int fd = ::open(gCrashPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      writeAll(fd, tCurrent->text.data(), tCurrent->text.size());
      ::close(fd);
    }
    const char tail[] = "\n0 passed, 1 failed, 0 skipped\n";
    writeAll(2, tail, sizeof tail - 1);
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void llvmFatal(void *, const char *reason, bool) {
  const char head[] = "kina-property: LLVM ERROR: ";
  writeAll(2, head, sizeof head - 1);
  writeAll(2, reason, std::strlen(reason));
  writeAll(2, "\n", 1);
  onCrash(SIGABRT);
}

std::string slug(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += c;
    else if (!out.empty() && out.back() != '-')
      out += '-';
    if (out.size() > 60)
      break;
  }
  while (!out.empty() && out.back() == '-')
    out.pop_back();
  return out.empty() ? "failure" : out;
}

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

} // namespace

int main(int argc, char **argv) {
  Options o = parseOptions(argc, argv);
  GeneratorOptions &g = o.gen;

  if (o.print) {
    std::cout << generateProgram(o.seed, *o.print, g).text;
    return 0;
  }
  std::vector<KnownClass> known = loadKnown(o.known);
  std::error_code ec;
  fs::create_directories(o.out, ec);
  gCrashPath = (fs::path(o.out) / "crash.kina").string();

  auto ptxas = kina::target::findTool(kina::target::Tool::Ptxas);
  bool havePtxas = static_cast<bool>(ptxas);
  if (!ptxas)
    llvm::consumeError(ptxas.takeError());
  if (!havePtxas)
    o.cubinEvery = 0;

  // ---- inputs
  std::vector<Input> inputs;
  for (const std::string &c : o.corpus)
    addCorpus(c, inputs);
  for (const std::string &d : o.docs)
    addDocs(d, inputs);
  size_t corpusCount = inputs.size();
  for (unsigned i = 0; i < o.count; ++i) {
    GeneratedProgram p = generateProgram(o.seed, i, g);
    inputs.push_back({"generated #" + std::to_string(i), std::move(p.text), true, i,
                      std::move(p.features), std::move(p.launches), std::move(p.requiredTarget)});
  }
  std::cout << "kina-property: generator seed=" << o.seed << (o.randomSeed ? " (random)" : "")
            << " count=" << o.count << " size: up to " << g.maxKernels << " kernels, "
            << g.maxStatements << " random statements per warp body, expressions " << g.maxDepth
            << " deep; corpus " << corpusCount << " files; targets";
  for (const std::string &t : o.targets)
    std::cout << " " << t;
  std::cout << "; jobs " << o.jobs << "; cubins through ptxas: "
            << (havePtxas ? "every corpus file and every " + std::to_string(o.cubinEvery) +
                                "th generated program (every " +
                                std::to_string(o.cubinEveryOneTarget) + "th Hopper program)"
                          : std::string("none (ptxas not found)"))
            << (o.fault ? "; INJECTED FAULT " + o.fault->marker : "") << "\n"
            << "kina-property: reproduce one program with: kina-property --seed " << o.seed
            << " --print INDEX\n"
            << std::flush;

  // ---- run
  for (unsigned j = 0; j < o.jobs; ++j)
    gCurrent.push_back(std::make_unique<Current>());
  for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL})
    std::signal(sig, onCrash);
  llvm::install_fatal_error_handler(llvmFatal, nullptr);

  auto classify = [&](const BuildFailure &f) -> int {
    std::string text = f.text();
    for (size_t k = 0; k < known.size(); ++k)
      if (std::regex_search(text, known[k].pattern))
        return static_cast<int>(k);
    return -1;
  };

  std::vector<Result> results(inputs.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> done{false};
  auto t0 = nowMs();
  auto worker = [&](unsigned slot) {
    Current &cur = *gCurrent[slot];
    tCurrent = &cur;
    for (size_t i = next++; i < inputs.size(); i = next++) {
      const Input &in = inputs[i];
      Result &r = results[i];
      for (const std::string &t : o.targets) {
        {
          std::lock_guard<std::mutex> l(cur.lock);
          cur.name = in.name;
          cur.target = t;
          cur.text = in.text;
        }
        cur.sinceMs = nowMs();
        unsigned every = in.requiredTarget.empty() ? o.cubinEvery : o.cubinEveryOneTarget;
        Stop stop = !in.generated ? (havePtxas ? Stop::Cubin : Stop::PTX)
                    : (havePtxas && every && in.index % every == 0) ? Stop::Cubin
                                                                    : Stop::PTX;
        TargetResult tr;
        tr.outcome = checkThenBuild(in.name, in.text, t, stop, o.fault ? &*o.fault : nullptr);
        // A program for another target: the checker must say which
        // capability this target lacks.
        if (!in.meantFor(t)) {
          bool capability =
              std::any_of(tr.outcome.rejectCodes.begin(), tr.outcome.rejectCodes.end(),
                          [](const std::string &c) { return c.rfind("K05", 0) == 0; });
          if (tr.outcome.checkClean)
            tr.outcome.failure = BuildFailure{"", "accepted", "",
                                              "a program that needs " + in.requiredTarget +
                                                  " checks clean for " + t};
          else if (!capability) {
            tr.outcome.checkClean = true; // counted as a failure, not a rejection
            tr.outcome.failure =
                BuildFailure{"", "accepted", tr.outcome.rejectCodes.front(),
                             "a program that needs " + in.requiredTarget + " is rejected for " + t +
                                 " without a capability code (K05xx)"};
          }
        }
        // Shared decision 1: an index value used as a scalar operand is
        // K0708. A generated program that does so and checks clean would be
        // lowered with 0.0 in its place: a silent miscompile, counted as a
        // failure of its own stage.
        if (in.generated && in.features.count("index-as-scalar") && tr.outcome.checkClean &&
            !tr.outcome.failure)
          tr.outcome.failure =
              BuildFailure{"", "accepted", "",
                           "an index value used as a scalar tile operand checks clean; shared "
                           "decision 1 makes it error K0708 (today it is lowered to 0.0)"};
        if (tr.outcome.failure)
          tr.known = classify(*tr.outcome.failure);
        r.perTarget.push_back(std::move(tr));
        cur.sinceMs = 0;
      }
    }
  };
  // A hang is a failure too: after 120 s on one program, print it and stop.
  std::thread watchdog([&] {
    while (!done) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      for (auto &c : gCurrent) {
        int64_t since = c->sinceMs;
        if (since && nowMs() - since > 120000) {
          std::lock_guard<std::mutex> l(c->lock);
          std::cout << "\nkina-property: HANG: building " << c->name << " for " << c->target
                    << " took over 120 s; the program:\n"
                    << c->text << "\n0 passed, 1 failed, 0 skipped\n"
                    << std::flush;
          writeFile((fs::path(o.out) / "hang.kina").string(), c->text);
          std::_Exit(1);
        }
      }
    }
  });
  std::vector<std::thread> pool;
  for (unsigned j = 0; j < o.jobs; ++j)
    pool.emplace_back(worker, j);
  for (auto &t : pool)
    t.join();
  done = true;
  watchdog.join();
  double seconds = (nowMs() - t0) / 1000.0;

  // ---- tallies
  unsigned passed = 0, failed = 0, skipped = 0, rejectedAll = 0;
  struct PerTarget {
    unsigned checked = 0, clean = 0, built = 0, knownFailed = 0, failed = 0, cubins = 0;
    unsigned otherTarget = 0; ///< programs for another target, rejected with K05xx
    std::map<std::string, unsigned> rejectCodes; ///< first error code
    /// Hopper programs (GenerateHopper.h) meant for this target.
    unsigned hopper = 0, hopperClean = 0;
    std::map<std::string, unsigned> hopperRejectCodes;
  };
  std::map<std::string, PerTarget> perTarget;
  struct FeatureCount {
    unsigned generated = 0, clean = 0, built = 0, knownFailed = 0, failed = 0;
  };
  std::map<std::string, FeatureCount> features;
  // Unexpected failures by signature, known ones by class: the first input.
  std::map<std::string, std::vector<std::pair<size_t, size_t>>> unexpected;
  std::map<int, std::vector<std::pair<size_t, size_t>>> expected;
  unsigned corpusClean = 0, corpusBuilt = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Input &in = inputs[i];
    const Result &r = results[i];
    bool anyClean = false, anyUnexpected = false, anyKnown = false;
    for (size_t t = 0; t < r.perTarget.size(); ++t) {
      const TargetResult &tr = r.perTarget[t];
      PerTarget &pt = perTarget[o.targets[t]];
      ++pt.checked;
      bool isHopper = in.features.count("hopper-gemm") && in.meantFor(o.targets[t]);
      pt.hopper += isHopper;
      if (!tr.outcome.checkClean) {
        std::string code = tr.outcome.rejectCodes.empty() ? "?" : tr.outcome.rejectCodes[0];
        if (!in.meantFor(o.targets[t]))
          ++pt.otherTarget;
        else if (in.generated)
          ++pt.rejectCodes[code];
        if (isHopper)
          ++pt.hopperRejectCodes[code];
        continue;
      }
      pt.hopperClean += isHopper && !tr.outcome.failure;
      anyClean = true;
      ++pt.clean;
      if (!tr.outcome.failure) {
        ++pt.built;
        continue;
      }
      if (tr.known >= 0) {
        anyKnown = true;
        ++pt.knownFailed;
        ++known[tr.known].hits;
        expected[tr.known].push_back({i, t});
      } else {
        anyUnexpected = true;
        ++pt.failed;
        unexpected[tr.outcome.failure->signature()].push_back({i, t});
      }
    }
    if (!anyClean)
      ++rejectedAll;
    else if (anyUnexpected)
      ++failed;
    else if (anyKnown)
      ++skipped;
    else
      ++passed;
    if (!in.generated) {
      corpusClean += anyClean;
      corpusBuilt += anyClean && !anyUnexpected && !anyKnown;
    }
    if (in.generated) {
      bool clean = true;
      for (size_t t = 0; t < r.perTarget.size(); ++t)
        if (in.meantFor(o.targets[t]))
          clean &= r.perTarget[t].outcome.checkClean;
      for (const std::string &f : in.features) {
        FeatureCount &fc = features[f];
        ++fc.generated;
        fc.clean += clean;
        fc.built += anyClean && !anyUnexpected && !anyKnown;
        fc.knownFailed += anyKnown && !anyUnexpected;
        fc.failed += anyUnexpected;
      }
    }
  }

  // ---- unexpected failures: print, minimize, write
  auto report = [&](const std::string &title, size_t inputIndex, size_t targetIndex,
                    const std::string &fileStem) {
    const Input &in = inputs[inputIndex];
    const std::string &target = o.targets[targetIndex];
    const BuildFailure &f = *results[inputIndex].perTarget[targetIndex].outcome.failure;
    std::string sig = f.signature();
    std::string text = in.text;
    MinimizeStats stats;
    if (o.minimize) {
      bool sane = tilesWrittenBeforeRead(text);
      auto stillFails = [&](const std::string &candidate) {
        if (sane && !tilesWrittenBeforeRead(candidate))
          return false;
        Outcome oc =
            checkThenBuild(in.name, candidate, target, Stop::PTX, o.fault ? &*o.fault : nullptr);
        return oc.failure && oc.failure->signature() == sig;
      };
      // The minimizer builds to PTX: a failure that needs ptxas stays whole.
      if (stillFails(text))
        text = minimize(text, stillFails, 600, &stats);
    }
    if (title == "REPRO") {
      int k = results[inputIndex].perTarget[targetIndex].known;
      text =
          "// kina-property repro of " +
          (k >= 0 ? "known failure class `" + known[k].name + "`" : std::string("a new failure")) +
          ", from " + in.name + " (" + target + "):\n//   " + f.text() + "\n" + text;
    }
    std::string path = (fs::path(o.out) / (fileStem + ".kina")).string();
    writeFile(path, text);
    std::cout << "\n=== " << title << ": " << in.name << " for " << target << "\n"
              << "    " << f.text() << (f.kernel.empty() ? "" : " (kernel " + f.kernel + ")")
              << "\n";
    if (o.minimize && stats.evaluations)
      std::cout << "    minimized from " << stats.linesBefore << " to " << stats.linesAfter
                << " lines in " << stats.evaluations << " builds";
    std::cout << "; written to " << path << "\n" << text;
  };
  unsigned shown = 0;
  for (auto &[sig, list] : unexpected) {
    auto [i, t] = list.front();
    std::cout << "\nkina-property: UNEXPECTED build failure after a clean check (" << list.size()
              << " program/target pair(s) with this signature): " << sig;
    report("FAIL", i, t, "fail-" + slug(sig));
    if (++shown >= 20)
      break;
  }

  // ---- every distinct signature (known classes too), for the owners
  std::map<std::string, std::vector<std::pair<size_t, size_t>>> bySignature;
  for (size_t i = 0; i < inputs.size(); ++i)
    for (size_t t = 0; t < results[i].perTarget.size(); ++t)
      if (const auto &f = results[i].perTarget[t].outcome.failure)
        bySignature[f->signature()].push_back({i, t});
  if (!o.repros.empty()) {
    fs::create_directories(o.repros, ec);
    std::string savedOut = o.out;
    o.out = o.repros;
    for (auto &[sig, list] : bySignature) {
      // Prefer a generated program: it is smaller than most corpus files.
      auto pick = list.front();
      for (auto &p : list)
        if (inputs[p.first].generated) {
          pick = p;
          break;
        }
      int k = results[pick.first].perTarget[pick.second].known;
      std::string stem = k >= 0 ? known[k].name : "new-" + slug(sig);
      for (int n = 2; fs::exists(fs::path(o.repros) / (stem + ".kina")); ++n)
        stem = (k >= 0 ? known[k].name : "new-" + slug(sig)) + "-" + std::to_string(n);
      report("REPRO", pick.first, pick.second, stem);
    }
    o.out = savedOut;
  }

  // ---- programs for the GPU (tests/property/gpu-batch.sh runs them)
  if (!o.gpuBatch.empty()) {
    fs::create_directories(o.gpuBatch, ec);
    std::ofstream manifest(fs::path(o.gpuBatch) / "manifest.txt");
    manifest << "# file kernel dims (kina-property --seed " << o.seed << " --count " << o.count
             << ")\n";
    unsigned written = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Input &in = inputs[i];
      bool built = in.generated && !results[i].perTarget.empty();
      bool forGpu = false;
      for (size_t t = 0; t < results[i].perTarget.size(); ++t) {
        const TargetResult &tr = results[i].perTarget[t];
        if (!in.meantFor(o.targets[t])) {
          built &= !tr.outcome.failure; // rejected there, as it must be
          continue;
        }
        forGpu |= o.targets[t] == "sm_90a";
        built &= tr.outcome.checkClean && !tr.outcome.failure;
      }
      built &= in.requiredTarget.empty() || forGpu;
      if (!built)
        continue;
      std::string file = "g" + std::to_string(in.index) + ".kina";
      writeFile((fs::path(o.gpuBatch) / file).string(), in.text);
      for (const auto &[kernel, dims] : in.launches)
        manifest << file << " " << kernel << " " << (dims.empty() ? "-" : dims) << "\n";
      ++written;
    }
    std::cout << "kina-property: " << written << " programs that build written to " << o.gpuBatch
              << " (run them with tests/property/gpu-batch.sh " << o.gpuBatch << ")\n";
  }

  // ---- summary
  std::cout << "\nkina-property: " << inputs.size() << " programs (" << corpusCount
            << " corpus files, " << o.count << " generated) in " << seconds << " s\n";
  for (const std::string &t : o.targets) {
    const PerTarget &pt = perTarget[t];
    std::cout << "  " << t << ": " << pt.clean << " of " << pt.checked << " check clean, "
              << pt.built << " built, " << pt.knownFailed << " known failures, " << pt.failed
              << " unexpected failures\n";
    unsigned genChecked = o.count - pt.otherTarget, genRejected = 0;
    std::vector<std::pair<unsigned, std::string>> codes;
    for (auto &[c, n] : pt.rejectCodes) {
      genRejected += n;
      codes.push_back({n, c});
    }
    std::sort(codes.rbegin(), codes.rend());
    std::cout << "    generated programs rejected by the checker: " << genRejected << " of "
              << genChecked;
    if (genChecked)
      std::cout << " (" << (100.0 * genRejected / genChecked) << "%)";
    if (!codes.empty()) {
      std::cout << "; top codes:";
      for (size_t k = 0; k < codes.size() && k < 8; ++k)
        std::cout << " " << codes[k].second << " x" << codes[k].first;
    }
    std::cout << "\n";
    if (pt.otherTarget)
      std::cout << "    generated programs for another target, rejected with a capability code "
                   "as they must be: "
                << pt.otherTarget << "\n";
    if (pt.hopper) {
      unsigned rejected = 0;
      std::vector<std::pair<unsigned, std::string>> hc;
      for (auto &[c, n] : pt.hopperRejectCodes) {
        rejected += n;
        hc.push_back({n, c});
      }
      std::sort(hc.rbegin(), hc.rend());
      std::cout << "    Hopper programs: " << pt.hopper << ", " << pt.hopperClean
                << " check clean and build, rejected by the checker: " << rejected << " ("
                << (100.0 * rejected / pt.hopper) << "%)";
      if (!hc.empty()) {
        std::cout << "; top codes:";
        for (size_t k = 0; k < hc.size() && k < 8; ++k)
          std::cout << " " << hc[k].second << " x" << hc[k].first;
      }
      std::cout << "\n";
    }
  }
  unsigned unsane = 0;
  std::string examples;
  for (const Input &in : inputs)
    if (in.generated && !tilesWrittenBeforeRead(in.text) && ++unsane <= 5)
      examples += " " + std::to_string(in.index);
  std::cout << "  generated programs that read a tile before writing it: " << unsane
            << (unsane ? " (e.g. --print" + examples + ")" : "") << "\n";
  std::cout << "  corpus: " << corpusClean << " of " << corpusCount
            << " files check clean on some target, " << corpusBuilt << " of them build\n";
  std::cout << "  known failure classes (known-failures.txt; expected failures, counted as "
               "skipped):\n";
  for (size_t k = 0; k < known.size(); ++k) {
    std::cout << "    " << known[k].name << ": " << known[k].hits << " program/target pair(s)";
    if (known[k].hits == 0)
      std::cout << " -- none this run: fixed? then remove the entry";
    else {
      auto [i, t] = expected[static_cast<int>(k)].front();
      std::cout << ", e.g. " << inputs[i].name << " (" << o.targets[t] << ")";
    }
    std::cout << "\n";
  }
  std::cout << "  failure signatures (all classes):\n";
  for (auto &[sig, list] : bySignature) {
    int k = results[list.front().first].perTarget[list.front().second].known;
    std::cout << "    [" << (k >= 0 ? known[k].name : std::string("UNEXPECTED")) << "] " << sig
              << ": " << list.size() << "\n";
  }
  std::cout << "  constructs (generated programs: generated / check clean on every target / "
               "built / known failure / unexpected failure):\n";
  for (auto &[f, c] : features)
    std::cout << "    " << f << ": " << c.generated << " / " << c.clean << " / " << c.built << " / "
              << c.knownFailed << " / " << c.failed << "\n";
  // Every Hopper construct must be built somewhere in a run of this size.
  unsigned hopperPrograms = 0;
  for (const Input &in : inputs)
    hopperPrograms += in.generated && in.features.count("hopper-gemm");
  if (hopperPrograms >= 100) {
    std::string missing;
    for (const std::string &f : hopperFeatures())
      if (features[f].built == 0)
        missing += " " + f;
    std::cout << "  Hopper features (" << hopperFeatures().size() << ", over " << hopperPrograms
              << " programs): "
              << (missing.empty() ? "every one built" : "NOT BUILT in this run:" + missing) << "\n";
    if (!missing.empty())
      ++failed;
  }
  // The Tile IR backend (docs/tile-ir.md): every corpus file that `kina
  // check --backend=tileir --target sm_90` accepts must build through
  // tileiras (the check half alone when none is installed). Block-level
  // corpus kernels are what passes; the generators make none yet.
  {
    unsigned tileClean = 0, tileBuilt = 0, tileFailed = 0, tileFiles = 0;
    for (const Input &in : inputs) {
      if (in.generated)
        continue;
      ++tileFiles;
      Outcome t = checkThenBuildTileIr(in.name, in.text, "sm_90");
      if (!t.checkClean)
        continue;
      ++tileClean;
      if (t.failure) {
        ++tileFailed;
        std::cout << "  UNEXPECTED tileir: " << in.name << ": " << t.failure->text() << "\n";
      } else {
        tileBuilt += t.kernels > 0;
      }
    }
    std::cout << "  tileir (sm_90): " << tileClean << " of " << tileFiles
              << " corpus files check clean with --backend=tileir; " << tileBuilt
              << " assembled by tileiras, " << tileFailed << " failed\n";
    passed += tileClean - tileFailed;
    failed += tileFailed;
  }
  std::cout << "kina-property: " << passed << " programs hold the property, " << failed
            << " violate it, " << skipped << " fail in a known class, " << rejectedAll
            << " rejected by the checker on every target\n";
  std::cout << passed << " passed, " << failed << " failed, " << skipped << " skipped\n";
  return failed ? 1 : 0;
}
