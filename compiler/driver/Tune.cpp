//===- Tune.cpp - `kina tune FILE` ------------------------------------------===//
//
// The autotuner of issue 15 (docs/architecture.md "kina tune"):
//  1. the lattice of the selected kernels (a family: every kernel of the file
//     with tune parameters, or those under --kernel) is checked point by
//     point on a thread pool (tune/Lattice.h); the checker is the legality
//     oracle, and every rejection keeps its reason class;
//  2. with --shape, each legal point gets seed 002's axes and a modelled
//     time (tune/CostModel.h); the Pareto frontier within --tolerance is
//     ranked by the model;
//  3. without --dry-run the best `--budget` frontier points (20% of the legal
//     points by default; --exhaustive: every legal point) are measured:
//     all of them are compiled first, in parallel `kina build` children
//     (--compile-jobs, default all cores); then one measuring worker
//     (`kina tune --worker`, TuneWorker.cpp) keeps the device context, the
//     problem's inputs (made once) and the reference's outputs (the default
//     point, run first) and takes the candidates one by one: run once, the
//     outputs compared with the reference's, then timed (L2 flushed, 10
//     warm-up runs, median of 20-50). Each request has a timeout; a worker
//     that hangs is killed, one that dies (a fault) is reported with its
//     signal, and the next candidate gets a fresh worker. The top 3 are
//     re-timed in alternation; the winner and every measurement go to the
//     tuning cache (tune/Cache.h), and a second tune of the same family,
//     shape and environment is answered from it. The summary and --json
//     give the time of each phase ("phases", "workerPhases").
//
//===----------------------------------------------------------------------===//
#include "diag/Render.h"
#include "driver/Commands.h"
#include "driver/SourceLoader.h"
#include "runtime/Device.h"
#include "syntax/Parser.h"
#include "syntax/TuneParams.h"
#include "target/Tools.h"
#include "tune/Cache.h"
#include "tune/CostModel.h"
#include "tune/Lattice.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <poll.h>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace kina::driver {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

/// A parse that keeps the tune parameters' names (not instantiated).
syntax::ParseOptions pristineParse() {
  syntax::ParseOptions po;
  po.instantiateTuneDefaults = false;
  return po;
}

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string selfPath() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("kina") : p.string();
}

std::map<std::string, int64_t> toShape(const std::map<std::string, long long> &dims) {
  std::map<std::string, int64_t> s;
  for (const auto &[k, v] : dims)
    s[k] = v;
  return s;
}

std::string dimsArg(const std::map<std::string, int64_t> &shape) { return tune::shapeKey(shape); }

/// `BF16,BF16->BF16`: the tensor parameters' and the result's dtypes.
std::string dtypesOf(const syntax::Module &m, const syntax::Item &item) {
  std::string s;
  for (const syntax::Param &p : item.params)
    if (p.type != syntax::kNone && p.type < m.types.size())
      s += (s.empty() ? "" : ",") + m.types[p.type].dtype.name;
  s += "->";
  if (item.result != syntax::kNone && item.result < m.types.size())
    s += m.types[item.result].dtype.name;
  return s;
}

int elemBytesOf(const std::string &dtypes) {
  if (dtypes.rfind("F32", 0) == 0 || dtypes.rfind("I32", 0) == 0)
    return 4;
  if (dtypes.rfind("I8", 0) == 0 || dtypes.rfind("S8", 0) == 0)
    return 1;
  return 2;
}

/// "9.0" from "sm_90a" / "sm_90" / "sm_100".
std::string ccOfTarget(const std::string &target) {
  std::string digits;
  for (char c : target)
    if (isdigit(static_cast<unsigned char>(c)))
      digits.push_back(c);
  if (digits.size() < 2)
    return "";
  return digits.substr(0, digits.size() - 1) + "." + digits.substr(digits.size() - 1);
}

std::string ptxasVersion() {
  auto loc = target::findTool(target::Tool::Ptxas);
  if (!loc) {
    llvm::consumeError(loc.takeError());
    return "none";
  }
  auto v = target::toolVersion(*loc);
  if (!v) {
    llvm::consumeError(v.takeError());
    return "unknown";
  }
  return v->build.empty() ? v->release.str() : v->build;
}

std::string fmtMs(double ms) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(ms < 1 ? 4 : 3) << ms;
  return o.str();
}

std::string fmt(double v, int prec) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(prec) << v;
  return o.str();
}

struct Candidate {
  size_t point = 0; ///< index into LatticeResult::points
  tune::Features model;
  bool onFrontier = false;
  // Measurement.
  bool measured = false;
  bool ok = false;
  std::string status; ///< "ok", "timeout", "failed: ...", "wrong: ..."
  double medianMs = 0;
  std::vector<double> retimes; ///< paired re-timing medians
  double finalMs = 0;          ///< the median of the medians: what ranks it
  double tflops = 0;
};

struct Family {
  std::vector<int> items;
  std::string hash; ///< of the kernels' names and texts
};

/// The lattice report: size, legal, rejected by reason.
void printLattice(const tune::LatticeResult &lat, const std::string &file) {
  std::cout << "lattice: " << lat.size << " points of";
  std::vector<std::string> kernels;
  for (const tune::PointResult &p : lat.points)
    if (kernels.empty() || kernels.back() != p.kernel)
      kernels.push_back(p.kernel);
  for (const std::string &k : kernels)
    std::cout << " " << k;
  std::cout << " (" << file << ")\n";
  std::cout << "checked in " << fmt(lat.seconds, 2) << " s on " << lat.threads
            << " threads: " << lat.legal << " legal, " << (lat.size - lat.legal) << " rejected\n";
  for (int r = 1; r < tune::kReasonCount; ++r)
    if (lat.rejected[r]) {
      std::map<std::string, int> codes;
      for (const tune::PointResult &p : lat.points)
        if (static_cast<int>(p.reason) == r && !p.code.empty())
          ++codes[p.code];
      std::cout << "  " << std::left << std::setw(14)
                << tune::reasonName(static_cast<tune::Reason>(r)) << std::right << std::setw(6)
                << lat.rejected[r] << "  (";
      bool first = true;
      for (const auto &[c, n] : codes) {
        std::cout << (first ? "" : ", ") << c << " x" << n;
        first = false;
      }
      std::cout << ")\n";
    }
}

nlohmann::json latticeJson(const tune::LatticeResult &lat) {
  nlohmann::json rejected = nlohmann::json::object();
  for (int r = 1; r < tune::kReasonCount; ++r)
    rejected[tune::reasonName(static_cast<tune::Reason>(r))] = lat.rejected[r];
  nlohmann::json points = nlohmann::json::array();
  for (const tune::PointResult &p : lat.points) {
    nlohmann::json j = {{"kernel", p.kernel},
                        {"point", p.pointText},
                        {"legal", p.legal()},
                        {"reason", tune::reasonName(p.reason)}};
    if (!p.legal()) {
      j["codes"] = p.codes;
      j["message"] = p.message;
    } else {
      j["sharedBytes"] = p.sharedBytes;
      j["threads"] = p.threadsPerBlock;
    }
    points.push_back(std::move(j));
  }
  return {{"latticeSize", lat.size},     {"legal", lat.legal},     {"rejected", rejected},
          {"checkSeconds", lat.seconds}, {"threads", lat.threads}, {"points", points}};
}

/// The measuring child (`kina tune --worker`, TuneWorker.cpp): one JSON
/// request per line on its stdin, one reply per line on its stdout, its
/// stderr in a log file. A request that gets no reply within the timeout
/// kills it (a hang); a reply that never comes because it died (a fault) is
/// reported with its signal or exit code and the log's tail. Either way the
/// next request starts a fresh one.
class WorkerProcess {
public:
  enum class Outcome { Reply, Timeout, Died };

  WorkerProcess(std::vector<std::string> args, std::string logPath)
      : args_(std::move(args)), logPath_(std::move(logPath)) {}
  WorkerProcess(const WorkerProcess &) = delete;
  WorkerProcess &operator=(const WorkerProcess &) = delete;
  ~WorkerProcess() { stop(); }

  bool running() const { return pid_ > 0; }
  int starts() const { return starts_; }

  /// Starts the worker and waits for its "ready" line.
  bool start(double timeoutS, std::string &why) {
    stop();
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0)
      return fail("pipe: " + std::string(strerror(errno)), why);
    if (pipe2(out, O_CLOEXEC) != 0) {
      close(in[0]);
      close(in[1]);
      return fail("pipe: " + std::string(strerror(errno)), why);
    }
    int logFd = open(logPath_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    std::string self = selfPath();
    std::vector<std::string> argv = {self};
    argv.insert(argv.end(), args_.begin(), args_.end());
    std::vector<char *> cargv;
    for (std::string &a : argv)
      cargv.push_back(a.data());
    cargv.push_back(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      if (logFd >= 0)
        dup2(logFd, 2);
      execv(self.c_str(), cargv.data());
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    if (logFd >= 0)
      close(logFd);
    if (pid < 0) {
      close(in[1]);
      close(out[0]);
      return fail("fork: " + std::string(strerror(errno)), why);
    }
    pid_ = pid;
    toChild_ = in[1];
    fromChild_ = out[0];
    buffer_.clear();
    ++starts_;
    nlohmann::json hello;
    Outcome outcome = receive(timeoutS, hello, why);
    if (outcome != Outcome::Reply || !hello.value("ready", false)) {
      if (outcome == Outcome::Reply)
        why = hello.value("status", std::string("the worker did not start"));
      stop();
      return false;
    }
    return true;
  }

  /// Sends `request`, waits up to `timeoutS` for the reply.
  Outcome call(const nlohmann::json &request, double timeoutS, nlohmann::json &reply,
               std::string &why) {
    std::string line = request.dump() + "\n";
    const char *p = line.data();
    size_t left = line.size();
    while (left) {
      ssize_t n = write(toChild_, p, left);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) { // EPIPE: it died before reading
        why = describeExit();
        return Outcome::Died;
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
    return receive(timeoutS, reply, why);
  }

  /// Kills the worker (if running) and reaps it.
  void stop() {
    if (toChild_ >= 0)
      close(toChild_);
    if (fromChild_ >= 0)
      close(fromChild_);
    toChild_ = fromChild_ = -1;
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    pid_ = -1;
  }

  /// After a reply with "fatal": the worker exits by itself.
  void reap() {
    if (toChild_ >= 0)
      close(toChild_);
    toChild_ = -1;
    if (pid_ > 0) {
      for (int i = 0; i < 200; ++i) { // up to 2 s, then SIGKILL
        if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
          pid_ = -1;
          break;
        }
        usleep(10000);
      }
    }
    stop();
  }

private:
  static bool fail(const std::string &what, std::string &why) {
    why = what;
    return false;
  }

  Outcome receive(double timeoutS, nlohmann::json &reply, std::string &why) {
    auto deadline = Clock::now() + std::chrono::duration<double>(timeoutS);
    for (;;) {
      size_t nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        reply = nlohmann::json::parse(line, nullptr, false);
        if (reply.is_object())
          return Outcome::Reply;
        continue; // not a protocol line
      }
      double left = std::chrono::duration<double>(deadline - Clock::now()).count();
      if (left <= 0) {
        why = "no reply in " + fmt(timeoutS, 0) + " s";
        return Outcome::Timeout;
      }
      pollfd pfd{fromChild_, POLLIN, 0};
      int rc = poll(&pfd, 1, static_cast<int>(std::min(left * 1e3 + 1, 1e9)));
      if (rc < 0 && errno == EINTR)
        continue;
      if (rc == 0)
        continue; // the deadline check above decides
      char chunk[65536];
      ssize_t n = read(fromChild_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        why = describeExit();
        return Outcome::Died;
      }
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

  /// How the worker ended (it closed its stdout), with its log's last line.
  std::string describeExit() {
    std::string what = "the worker ended";
    if (pid_ > 0) {
      int status = 0;
      pid_t r = 0;
      for (int i = 0; i < 200 && (r = waitpid(pid_, &status, WNOHANG)) == 0; ++i)
        usleep(10000);
      if (r == pid_) {
        pid_ = -1;
        if (WIFSIGNALED(status))
          what = "the worker was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
                 strsignal(WTERMSIG(status)) + ")";
        else if (WIFEXITED(status))
          what = "the worker exited with status " + std::to_string(WEXITSTATUS(status));
      }
    }
    std::ifstream log(logPath_);
    std::string line, last;
    while (std::getline(log, line))
      if (!line.empty())
        last = line;
    if (!last.empty())
      what += "; its log ends: " + last.substr(0, 300);
    return what;
  }

  std::vector<std::string> args_;
  std::string logPath_;
  pid_t pid_ = -1;
  int toChild_ = -1, fromChild_ = -1;
  std::string buffer_;
  int starts_ = 0;
};

class Progress {
public:
  Progress(size_t total, bool enabled) : total_(total), enabled_(enabled), start_(Clock::now()) {}
  void update(size_t done, const std::string &what) {
    if (!enabled_)
      return;
    double el = since(start_);
    double eta = done ? el / done * (total_ - done) : 0;
    int width = 24, fill = total_ ? static_cast<int>(width * done / total_) : width;
    std::string bar(fill, '#');
    bar.resize(width, '.');
    std::cerr << "\r[" << bar << "] " << done << "/" << total_ << "  " << fmt(el, 1) << " s, ETA "
              << fmt(eta, 1) << " s  " << what.substr(0, 48) << "\033[K" << std::flush;
    if (done == total_)
      std::cerr << "\n";
  }

private:
  size_t total_;
  bool enabled_;
  Clock::time_point start_;
};

int showCache(const TuneOptions &o) {
  tune::TuneCache cache(o.cache.empty() ? tune::defaultCachePath() : o.cache);
  size_t bad = 0;
  std::vector<tune::Record> records = cache.load(&bad);
  std::set<std::string> kernels;
  if (!o.file.empty()) {
    std::string error;
    auto file = loadSource(o.file, error);
    if (!file) {
      std::cerr << "kina: error: " << error << "\n";
      return UsageError;
    }
    syntax::ParseResult parse = syntax::parse(*file);
    for (const syntax::Item &item : parse.module.items)
      if (!item.tuneParams.empty())
        kernels.insert(item.name.name);
  }
  nlohmann::json out = nlohmann::json::array();
  if (!o.json)
    std::cout << "tuning cache " << cache.path() << ": " << records.size() << " records"
              << (bad ? ", " + std::to_string(bad) + " malformed lines skipped" : std::string())
              << "\n";
  for (const tune::Record &r : records) {
    if (!kernels.empty() && !kernels.count(r.kernel))
      continue;
    if (!o.kernels.empty() &&
        std::find(o.kernels.begin(), o.kernels.end(), r.kernel) == o.kernels.end())
      continue;
    if (o.json) {
      out.push_back(r.toJson());
      continue;
    }
    std::cout << (r.winner ? "* " : "  ") << r.kernel << " [" << r.point << "] " << r.shape << " "
              << r.dtypes << ": " << (r.ok ? fmtMs(r.medianMs) + " ms" : std::string("failed"))
              << (r.tflops > 0 ? ", " + fmt(r.tflops, 1) + " TFLOP/s" : std::string()) << " on "
              << r.env.device << " (sm " << r.env.cc << ", " << r.env.smCount << " SMs, ptxas "
              << r.env.ptxasVersion << ")\n";
  }
  if (o.json)
    std::cout << out.dump(2) << "\n";
  return Success;
}

} // namespace

int runTuneCommand(const TuneOptions &o) {
  auto wallStart = Clock::now();
  if (o.show)
    return showCache(o);
  std::string error;
  auto file = loadSource(o.file, error);
  if (!file) {
    std::cerr << "kina: error: " << error << "\n";
    return UsageError;
  }
  syntax::ParseResult parse = syntax::parse(*file, pristineParse());
  bool syntaxErrors = false;
  for (const Diagnostic &d : parse.diagnostics) {
    if (d.severity() == Severity::Error) {
      syntaxErrors = true;
      std::cerr << renderDiagnostic(d, *file);
    }
  }
  if (syntaxErrors)
    return InputErrors;
  const syntax::Module &module = parse.module;

  // The family.
  Family family;
  for (size_t i = 0; i < module.items.size(); ++i) {
    const syntax::Item &item = module.items[i];
    if (item.kind != syntax::ItemKind::Kernel || item.tuneParams.empty())
      continue;
    if (!o.kernels.empty() &&
        std::find(o.kernels.begin(), o.kernels.end(), item.name.name) == o.kernels.end())
      continue;
    family.items.push_back(static_cast<int>(i));
  }
  if (family.items.empty()) {
    std::cerr << "kina: error[K1110]: "
              << (o.kernels.empty() ? "'" + o.file + "' has no kernel with tune parameters"
                                    : "no kernel with tune parameters named " + o.kernels.front() +
                                          " in '" + o.file + "'")
              << "\n";
    return UsageError;
  }
  std::string familyText;
  for (int i : family.items)
    familyText +=
        module.items[i].name.name + "\n" + std::string(file->slice(module.items[i].span)) + "\n";
  // Pinned parameters (--param) are a different search: part of the key.
  for (const auto &[name, value] : o.common.tunePoint)
    familyText += "pin " + name + "=" + std::to_string(value) + "\n";
  family.hash = tune::hashText(familyText);
  const syntax::Item &first = module.items[family.items.front()];
  std::string dtypes = dtypesOf(module, first);
  std::map<std::string, int64_t> shape = toShape(o.shape);
  std::string shapeKey = tune::shapeKey(shape);

  if (!o.dryRun && shape.empty()) {
    std::cerr << "kina: error: `kina tune` measures at a problem shape: give --shape "
                 "M=4096,N=4096,K=4096 (or --dry-run to check the lattice only)\n";
    return UsageError;
  }

  // The environment (measurement only).
  tune::Environment env;
  env.kinaVersion = KINA_VERSION;
  tune::Machine machine;
  std::string envTarget = o.common.target;
  if (!o.dryRun) {
    env.ptxasVersion = ptxasVersion();
    if (o.interpret) {
      env.device = "tile-IR interpreter";
      env.cc = ccOfTarget(envTarget);
    } else {
      auto device = runtime::Device::open();
      if (!device) {
        std::cerr << "kina: error[K1111]: no GPU to measure on: " << device.error().message
                  << "\n  `kina tune --dry-run` checks the lattice and ranks it by the cost model "
                     "without a GPU; `--interpret` runs the measurement pipeline on the tile-IR "
                     "interpreter at small shapes\n";
        return Skipped;
      }
      const runtime::DeviceInfo &info = device->info();
      env.device = info.name;
      env.cc = std::to_string(info.ccMajor) + "." + std::to_string(info.ccMinor);
      env.smCount = info.smCount;
      env.l2Bytes = info.l2CacheBytes;
      env.clockKHz = info.clockRateKHz;
      machine.sms = info.smCount;
      if (info.maxSharedPerMultiprocessor)
        machine.smemPerSM = info.maxSharedPerMultiprocessor;
    }
  }
  tune::TuneCache cache(o.cache.empty() ? tune::defaultCachePath() : o.cache);
  std::string envKey = env.key();

  // A finished tune of this family, shape and environment answers at once.
  if (!o.dryRun && !o.force && !o.exhaustive) {
    std::optional<tune::Record> hit;
    for (tune::Record &r : cache.load())
      if (r.winner && r.family == family.hash && r.envKey == envKey && r.shape == shapeKey &&
          r.dtypes == dtypes && (!hit || r.unixTime > hit->unixTime))
        hit = std::move(r);
    if (hit) {
      double s = since(wallStart);
      if (o.json) {
        std::cout << nlohmann::json{{"cacheHit", true},      {"kernel", hit->kernel},
                                    {"point", hit->point},   {"medianMs", hit->medianMs},
                                    {"tflops", hit->tflops}, {"shape", shapeKey},
                                    {"seconds", s},          {"cache", cache.path()}}
                         .dump(2)
                  << "\n";
      } else {
        std::cout << "cache hit (" << cache.path() << "): " << hit->kernel << " [" << hit->point
                  << "] " << fmtMs(hit->medianMs) << " ms"
                  << (hit->tflops > 0 ? ", " + fmt(hit->tflops, 1) + " TFLOP/s" : std::string())
                  << " at " << shapeKey << " on " << hit->env.device << "; answered in "
                  << fmt(s, 3) << " s (--force re-tunes)\n";
      }
      return Success;
    }
  }

  // 1. The lattice.
  tune::LatticeOptions lo;
  lo.target = o.common.target;
  for (int i : family.items)
    lo.kernels.push_back(module.items[i].name.name);
  lo.shape = shape;
  lo.threads = o.threads;
  lo.pinned = o.common.tunePoint; // --param holds parameters fixed
  tune::LatticeResult lat = tune::checkLattice(*file, module, lo);
  bool declErrors = false;
  for (const Diagnostic &d : lat.declarationErrors) {
    declErrors |= d.severity() == Severity::Error;
    std::cerr << renderDiagnostic(d, *file);
  }
  if (declErrors)
    return InputErrors;

  // 2. The model and the frontier.
  std::vector<Candidate> cands;
  int elemBytes = elemBytesOf(dtypes);
  for (size_t i = 0; i < lat.points.size(); ++i)
    if (lat.points[i].legal()) {
      Candidate c;
      c.point = i;
      c.model = tune::estimate(lat.points[i], shape, elemBytes, machine);
      cands.push_back(std::move(c));
    }
  std::vector<std::vector<double>> rows;
  for (const Candidate &c : cands)
    rows.push_back(tune::axes(c.model));
  std::vector<size_t> frontier =
      shape.empty() ? std::vector<size_t>{} : tune::paretoFrontier(rows, o.tolerance);
  for (size_t f : frontier)
    cands[f].onFrontier = true;
  // Ranked: frontier first, by modelled time; then the rest by modelled time.
  std::vector<size_t> order(cands.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (cands[a].onFrontier != cands[b].onFrontier)
      return cands[a].onFrontier;
    return cands[a].model.modelSeconds < cands[b].model.modelSeconds;
  });

  nlohmann::json report = latticeJson(lat);
  report["file"] = o.file;
  report["target"] = o.common.target;
  report["shape"] = shapeKey;
  report["frontierSize"] = frontier.size();
  auto candJson = [&](const Candidate &c) {
    const tune::PointResult &p = lat.points[c.point];
    nlohmann::json j = {{"kernel", p.kernel},
                        {"point", p.pointText},
                        {"frontier", c.onFrontier},
                        {"modelMs", c.model.modelSeconds * 1e3},
                        {"globalMB", c.model.globalBytes / 1e6},
                        {"sharedMB", c.model.sharedBytes / 1e6},
                        {"occupancy", c.model.occupancy},
                        {"waveEfficiency", c.model.waveEfficiency}};
    if (!c.model.known)
      j["modelMs"] = nullptr; // no block tile: ranked by occupancy only
    if (c.measured) {
      j["status"] = c.status;
      j["medianMs"] = c.finalMs > 0 ? c.finalMs : c.medianMs;
      j["firstMs"] = c.medianMs;
      j["tflops"] = c.tflops;
      if (!c.retimes.empty())
        j["retimedMs"] = c.retimes;
    }
    return j;
  };

  if (!o.json) {
    printLattice(lat, o.file);
    if (!shape.empty())
      std::cout << "frontier: " << frontier.size() << " of " << cands.size() << " legal points at "
                << shapeKey << " (tolerance " << o.tolerance << ")\n";
  }
  if (cands.empty()) {
    if (o.json) {
      std::cout << report.dump(2) << "\n";
    }
    std::cerr << "kina: error[K1112]: no legal point in the lattice of " << first.name.name
              << (shape.empty() ? std::string() : " at " + shapeKey) << "\n";
    return InputErrors;
  }

  if (o.dryRun) {
    if (!shape.empty()) {
      nlohmann::json ranked = nlohmann::json::array();
      for (size_t i : order)
        if (cands[i].onFrontier)
          ranked.push_back(candJson(cands[i]));
      report["ranked"] = ranked;
      if (!o.json) {
        std::cout << "top of the frontier by the model:\n";
        size_t shown = 0;
        for (size_t i : order) {
          if (!cands[i].onFrontier || shown++ >= 10)
            break;
          const tune::PointResult &p = lat.points[cands[i].point];
          if (!cands[i].model.known) {
            std::cout << "  " << p.kernel << " [" << p.pointText << "] occupancy "
                      << fmt(cands[i].model.occupancy, 2) << " (no BM/BN: no traffic model)\n";
            continue;
          }
          std::cout << "  " << p.kernel << " [" << p.pointText << "] model "
                    << fmtMs(cands[i].model.modelSeconds * 1e3) << " ms, global "
                    << fmt(cands[i].model.globalBytes / 1e6, 0) << " MB, shared "
                    << fmt(cands[i].model.sharedBytes / 1e6, 0) << " MB, waves "
                    << fmt(cands[i].model.waveEfficiency, 2) << "\n";
        }
      }
    }
    if (o.json)
      std::cout << report.dump(2) << "\n";
    return Success;
  }

  // 3. Measurement.
  size_t budget;
  if (o.exhaustive)
    budget = cands.size();
  else if (o.budget >= 0)
    budget = std::min<size_t>(o.budget, cands.size());
  else
    budget =
        std::min(cands.size(), std::max<size_t>(std::min<size_t>(3, cands.size()),
                                                static_cast<size_t>(std::floor(0.2 * lat.legal))));
  std::vector<size_t> toMeasure;
  if (o.exhaustive) {
    toMeasure = order;
  } else {
    for (size_t i : order)
      if (toMeasure.size() < budget)
        toMeasure.push_back(i);
  }
  // The reference: the default point of the first kernel, or, when that
  // does not divide this shape, the model's first legal point.
  const syntax::Item &refItem = first;
  std::string refKernel = refItem.name.name;
  std::string refText = syntax::formatPoint(refItem, syntax::defaultPoint(refItem));
  size_t refCand = cands.size();
  for (size_t ci = 0; ci < cands.size(); ++ci) {
    const tune::PointResult &p = lat.points[cands[ci].point];
    if (p.item == family.items.front() && p.pointText == refText)
      refCand = ci;
  }
  if (refCand == cands.size())
    refCand = order.front();
  const tune::PointResult &refPoint = lat.points[cands[refCand].point];
  // Candidates' cubins, the worker's logs and the reference outputs go to
  // /dev/shm when there is one (a tmpfs: no disk writes in the loop).
  std::error_code shmError;
  fs::path base = fs::is_directory("/dev/shm", shmError) && access("/dev/shm", W_OK) == 0
                      ? fs::path("/dev/shm")
                      : fs::temp_directory_path();
  fs::path work = base / ("kina-tune-" + std::to_string(getpid()) + "-" + family.hash.substr(0, 8));
  std::error_code ec;
  fs::create_directories(work, ec);
  bool smallShape = true;
  {
    double work3 = 1;
    for (const auto &[k, v] : shape)
      work3 *= static_cast<double>(v);
    // The interpreter (the CPU reference of `kina run --check`) is quick
    // here; with --interpret the candidates run on it already.
    smallShape = work3 <= 64.0 * 1024 * 1024 && !o.interpret;
  }
  bool isTTY = isatty(2);
  std::map<std::string, double> phases;   ///< wall seconds in this process
  std::map<std::string, double> inWorker; ///< summed over the worker's replies
  phases["check"] = lat.seconds;

  // 3a. Compile every measured point up front, in parallel (`kina build`
  // children: a compiler crash fails one candidate, not the tuner).
  std::vector<size_t> toCompile = toMeasure;
  if (std::find(toCompile.begin(), toCompile.end(), refCand) == toCompile.end())
    toCompile.insert(toCompile.begin(), refCand);
  std::vector<std::string> cubinOf(cands.size()), compileFailure(cands.size());
  unsigned compileJobs = 0;
  // With --interpret the worker interprets; --compile-jobs compiles anyway
  // (the phase's test on machines without a GPU).
  if (!o.interpret || o.compileJobs) {
    auto start = Clock::now();
    unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    compileJobs = static_cast<unsigned>(std::max<size_t>(
        1, std::min<size_t>(o.compileJobs ? o.compileJobs : hw, toCompile.size())));
    std::atomic<size_t> next{0};
    auto compileSome = [&] {
      for (size_t k; (k = next++) < toCompile.size();) {
        size_t ci = toCompile[k];
        const tune::PointResult &p = lat.points[cands[ci].point];
        std::string out = (work / ("c" + std::to_string(ci) + ".cubin")).string();
        std::vector<std::string> args = {"build",   o.file,      "--kernel", p.kernel,
                                         "--param", p.pointText, "-o",       out};
        if (!o.common.target.empty() && o.common.target != "auto")
          args.insert(args.end(), {"--target", o.common.target});
        auto res = target::runProcess(selfPath(), args, o.timeoutS);
        if (!res) {
          compileFailure[ci] = "failed: compile: " + llvm::toString(res.takeError());
        } else if (res->exitCode != 0 || !fs::exists(out)) {
          // The first diagnostic line (the rest is its source excerpt).
          std::string err = res->err.substr(0, res->err.find('\n'));
          if (err.size() > 300)
            err = err.substr(0, 300) + "...";
          compileFailure[ci] =
              "failed: compile (exit " + std::to_string(res->exitCode) + "): " + err;
        } else {
          cubinOf[ci] = out;
        }
      }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < compileJobs; ++t)
      pool.emplace_back(compileSome);
    for (std::thread &t : pool)
      t.join();
    phases["compile"] = since(start);
  }

  // 3b. One worker for the whole shape: its device context, inputs and
  // reference outputs stay; it restarts only after a fault or a timeout.
  std::vector<std::string> workerArgs = {"tune", o.file, "--worker", "--shape", shapeKey};
  if (!o.common.target.empty())
    workerArgs.insert(workerArgs.end(), {"--target", o.common.target});
  if (o.interpret)
    workerArgs.push_back("--interpret");
  std::string workerLog = (work / "worker.log").string();
  WorkerProcess worker(workerArgs, workerLog);
  std::string refDir = (work / "reference").string();
  struct sigaction ignorePipe{}, oldPipe{};
  ignorePipe.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignorePipe, &oldPipe); // a dead worker's pipe is an error, not a signal
  int restarts = 0;
  auto measureOne = [&](size_t ci, bool reference, Candidate &c, bool compare = true) {
    const tune::PointResult &p = lat.points[cands[ci].point];
    c.measured = true;
    c.ok = false;
    if (!compileFailure[ci].empty()) {
      c.status = compileFailure[ci];
      return;
    }
    if (!worker.running()) {
      auto start = Clock::now();
      std::string why;
      if (worker.starts() > 0)
        ++restarts;
      bool started = worker.start(o.timeoutS, why);
      phases["workerStart"] += since(start);
      if (!started) {
        c.status = "failed: the measuring worker did not start: " + why;
        return;
      }
    }
    double modelS = cands[ci].model.known ? cands[ci].model.modelSeconds : 0;
    int iterations = modelS > 0 ? static_cast<int>(std::clamp(0.1 / modelS, 20.0, 50.0)) : 50;
    nlohmann::json req = {{"kernel", p.kernel},
                          {"point", p.pointText},
                          {"cubin", cubinOf[ci]},
                          {"reference", reference},
                          {"checkInterpreter", reference && smallShape},
                          {"referenceDir", refDir},
                          {"iterations", iterations},
                          {"compare", compare}};
    nlohmann::json reply;
    std::string why;
    WorkerProcess::Outcome outcome = worker.call(req, o.timeoutS, reply, why);
    if (outcome == WorkerProcess::Outcome::Timeout) {
      worker.stop();
      c.status = "timeout after " + std::to_string(o.timeoutS) + " s";
      return;
    }
    if (outcome == WorkerProcess::Outcome::Died) {
      worker.stop();
      c.status = "failed: " + why;
      return;
    }
    if (reply.value("fatal", false))
      worker.reap();
    if (reply.contains("phases") && reply["phases"].is_object())
      for (const auto &[k, v] : reply["phases"].items())
        if (v.is_number())
          inWorker[k] += v.get<double>();
    c.status = reply.value("status", std::string("failed: no status in the worker's reply"));
    c.medianMs = reply.value("medianMs", 0.0);
    c.tflops = reply.value("tflops", 0.0);
    c.ok = reply.value("ok", false) && c.medianMs > 0;
    if (reply.value("ok", false) && c.medianMs <= 0)
      c.status = "failed: no timing in the worker's reply";
  };

  if (!o.json)
    std::cout << "reference: " << refPoint.kernel << " [" << refPoint.pointText << "]"
              << (smallShape    ? ", checked against the CPU reference (the interpreter)"
                  : o.interpret ? ", on the interpreter"
                                : "")
              << "\n";
  Candidate ref;
  {
    auto start = Clock::now();
    measureOne(refCand, true, ref);
    phases["reference"] = since(start);
  }
  if (!ref.ok) {
    std::cerr << "kina: error[K1330]: the reference point " << refPoint.kernel << " ["
              << refPoint.pointText << "] did not run: " << ref.status << "\n";
    sigaction(SIGPIPE, &oldPipe, nullptr);
    worker.stop();
    fs::remove_all(work, ec);
    return ToolFailure;
  }

  Progress progress(toMeasure.size(), isTTY && !o.json);
  auto measureStart = Clock::now();
  size_t done = 0;
  double bestMs = 0;
  std::string bestText;
  for (size_t ci : toMeasure) {
    Candidate &c = cands[ci];
    const tune::PointResult &p = lat.points[c.point];
    if (ci == refCand) {
      // Measured already, as the reference.
      c.measured = true;
      c.ok = ref.ok;
      c.status = ref.status;
      c.medianMs = ref.medianMs;
      c.tflops = ref.tflops;
    } else {
      measureOne(ci, false, c);
    }
    if (!c.ok)
      std::cerr << (isTTY ? "\r\033[K" : "") << "kina: warning["
                << (c.status.rfind("wrong", 0) == 0 ? "K1331" : "K1330") << "]: " << p.kernel
                << " [" << p.pointText << "] " << c.status << "\n";
    if (c.ok && (bestMs == 0 || c.medianMs < bestMs)) {
      bestMs = c.medianMs;
      bestText = p.pointText + " " + fmtMs(bestMs) + " ms";
    }
    ++done;
    progress.update(done, "best " + bestText);
    if (!isTTY && !o.json)
      std::cout << "  [" << done << "/" << toMeasure.size() << "] " << p.kernel << " ["
                << p.pointText << "] " << (c.ok ? fmtMs(c.medianMs) + " ms" : c.status) << "\n";
  }
  double measureSeconds = since(measureStart);
  phases["candidates"] = measureSeconds;

  // Paired re-timing of the top 3, in alternation, twice.
  std::vector<size_t> ok;
  for (size_t ci : toMeasure)
    if (cands[ci].ok)
      ok.push_back(ci);
  auto key = [&](size_t ci) {
    const Candidate &c = cands[ci];
    if (c.retimes.empty())
      return c.medianMs;
    std::vector<double> v = c.retimes;
    v.push_back(c.medianMs);
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::sort(ok.begin(), ok.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
  if (!o.exhaustive && ok.size() >= 2) {
    auto start = Clock::now();
    size_t top = std::min<size_t>(3, ok.size());
    for (int round = 0; round < 2; ++round)
      for (size_t t = 0; t < top; ++t) {
        Candidate again;
        measureOne(ok[t], false, again, /*compare=*/false);
        if (again.ok)
          cands[ok[t]].retimes.push_back(again.medianMs);
      }
    std::sort(ok.begin(), ok.begin() + top, [&](size_t a, size_t b) { return key(a) < key(b); });
    phases["retime"] = since(start);
  }
  worker.stop();
  sigaction(SIGPIPE, &oldPipe, nullptr);
  fs::remove_all(work, ec);
  auto cacheStart = Clock::now();

  // Cache: every measurement, then the winner.
  std::string cacheError;
  int64_t now = static_cast<int64_t>(std::time(nullptr));
  for (size_t ci : toMeasure) {
    const Candidate &c = cands[ci];
    const tune::PointResult &p = lat.points[c.point];
    tune::Record r;
    r.envKey = envKey;
    r.env = env;
    r.kernel = p.kernel;
    r.sourceHash = tune::hashText(file->slice(module.items[p.item].span));
    r.point = p.pointText;
    r.shape = shapeKey;
    r.dtypes = dtypes;
    r.medianMs = key(ci);
    r.tflops = c.tflops;
    r.ok = c.ok;
    r.unixTime = now;
    if (!cache.append(r, cacheError))
      break;
  }
  if (!ok.empty() && cacheError.empty()) {
    const Candidate &w = cands[ok.front()];
    const tune::PointResult &p = lat.points[w.point];
    tune::Record r;
    r.envKey = envKey;
    r.env = env;
    r.kernel = p.kernel;
    r.sourceHash = tune::hashText(file->slice(module.items[p.item].span));
    r.point = p.pointText;
    r.shape = shapeKey;
    r.dtypes = dtypes;
    r.medianMs = key(ok.front());
    r.tflops = w.tflops;
    r.unixTime = now;
    r.winner = true;
    r.family = family.hash;
    cache.append(r, cacheError);
  }
  if (!cacheError.empty())
    std::cerr << "kina: warning: " << cacheError << "\n";

  phases["cache"] = since(cacheStart);

  // Rank correlation of the model with the measurements.
  std::vector<double> model, measured;
  for (size_t ci : ok) {
    model.push_back(cands[ci].model.modelSeconds);
    measured.push_back(key(ci));
  }
  double rho = tune::spearman(model, measured);
  double total = since(wallStart);
  // Where the time went: this process's phases (check, compile, reference,
  // candidates, retime and cache add up to the tuning time less parsing and
  // the environment; workerStart is part of reference + candidates +
  // retime), and the worker's, summed over its replies.
  phases["total"] = total;
  nlohmann::json phaseJson = nlohmann::json::object(), workerJson = nlohmann::json::object();
  for (const auto &[k, v] : phases)
    phaseJson[k] = v;
  for (const auto &[k, v] : inWorker)
    workerJson[k] = v;
  report["phases"] = phaseJson;
  report["workerPhases"] = workerJson;
  report["workerStarts"] = worker.starts();
  report["workerRestarts"] = restarts;
  report["compileJobs"] = compileJobs;
  report["compiled"] = compileJobs ? toCompile.size() : 0;

  report["measured"] = toMeasure.size();
  report["measureSeconds"] = measureSeconds;
  report["seconds"] = total;
  report["rankCorrelation"] = rho;
  report["exhaustive"] = o.exhaustive;
  report["interpret"] = o.interpret;
  report["environment"] = env.toJson();
  report["cache"] = cache.path();
  for (size_t ci : toMeasure)
    if (cands[ci].ok) {
      cands[ci].finalMs = key(ci);
      if (cands[ci].tflops > 0 && cands[ci].medianMs > 0)
        cands[ci].tflops *= cands[ci].medianMs / cands[ci].finalMs;
    }
  std::vector<size_t> byTime = toMeasure;
  std::stable_sort(byTime.begin(), byTime.end(), [&](size_t a, size_t b) {
    if (cands[a].ok != cands[b].ok)
      return cands[a].ok;
    return key(a) < key(b);
  });
  std::vector<nlohmann::json> table;
  for (size_t ci : byTime)
    table.push_back(candJson(cands[ci]));
  report["candidates"] = table;
  if (!ok.empty()) {
    const tune::PointResult &p = lat.points[cands[ok.front()].point];
    report["winner"] = {{"kernel", p.kernel},
                        {"point", p.pointText},
                        {"medianMs", key(ok.front())},
                        {"tflops", cands[ok.front()].tflops}};
  }
  if (o.json) {
    std::cout << report.dump(2) << "\n";
  } else {
    std::cout << "\n rank  kernel                              point                              "
                 "median ms   TFLOP/s   model ms  status\n";
    int rank = 0;
    for (const nlohmann::json &j : table) {
      ++rank;
      std::ostringstream line;
      line << std::setw(5) << rank << "  " << std::left << std::setw(36)
           << j.value("kernel", "").substr(0, 35) << std::setw(35)
           << j.value("point", "").substr(0, 34) << std::right << std::setw(10)
           << fmtMs(j.value("medianMs", 0.0)) << std::setw(10) << fmt(j.value("tflops", 0.0), 1)
           << std::setw(11)
           << (j["modelMs"].is_null() ? std::string("-") : fmtMs(j.value("modelMs", 0.0))) << "  "
           << j.value("status", "");
      std::cout << line.str() << "\n";
    }
    std::cout << "\nmeasured " << toMeasure.size() << " of " << lat.legal << " legal points ("
              << fmt(100.0 * toMeasure.size() / std::max<uint64_t>(lat.legal, 1), 0) << "%) in "
              << fmt(measureSeconds, 1) << " s; tuning took " << fmt(total, 1)
              << " s; model rank correlation (Spearman) " << fmt(rho, 2) << "\n";
    auto ph = [&](const char *k) { return phases.count(k) ? phases.at(k) : 0.0; };
    std::cout << "time: check " << fmt(ph("check"), 2) << " s, compile " << fmt(ph("compile"), 2)
              << " s (" << (compileJobs ? toCompile.size() : 0) << " points, " << compileJobs
              << " at a time), reference " << fmt(ph("reference"), 2) << " s, candidates "
              << fmt(ph("candidates"), 2) << " s, re-timing " << fmt(ph("retime"), 2)
              << " s (worker start " << fmt(ph("workerStart"), 2)
              << " s of them: " << worker.starts() << " start" << (worker.starts() == 1 ? "" : "s")
              << ", " << restarts << " restart" << (restarts == 1 ? "" : "s") << "), cache "
              << fmt(ph("cache"), 2) << " s\n";
    std::cout << "in the worker:";
    bool firstPhase = true;
    for (const char *k :
         {"inputs", "check", "compile", "load", "run", "copyBack", "compare", "timing"})
      if (inWorker.count(k)) {
        std::cout << (firstPhase ? " " : ", ") << k << " " << fmt(inWorker.at(k), 2) << " s";
        firstPhase = false;
      }
    std::cout << "\n";
    if (!ok.empty()) {
      const tune::PointResult &p = lat.points[cands[ok.front()].point];
      std::cout << "winner: " << p.kernel << " [" << p.pointText << "] " << fmtMs(key(ok.front()))
                << " ms" << (o.interpret ? " (interpreter wall time, not a GPU timing)" : "")
                << "; cached in " << cache.path() << "\n";
    }
  }
  if (ok.empty()) {
    std::cerr << "kina: error[K1330]: no candidate ran correctly\n";
    return ToolFailure;
  }
  return Success;
}

int checkAllPoints(const CheckOptions &options, const std::string &path) {
  std::string error;
  auto file = loadSource(path, error);
  if (!file) {
    std::cerr << "kina: error: " << error << "\n";
    return UsageError;
  }
  syntax::ParseResult parse = syntax::parse(*file, pristineParse());
  tune::LatticeOptions lo;
  lo.target = options.common.target;
  tune::LatticeResult lat = tune::checkLattice(*file, parse.module, lo);
  int bad = 0;
  for (const tune::PointResult &p : lat.points)
    if (!p.legal()) {
      ++bad;
      std::cerr << path << ": " << p.kernel << " [" << p.pointText
                << "]: " << tune::reasonName(p.reason) << " (" << p.code << "): " << p.message
                << "\n";
    }
  if (lat.size)
    std::cerr << path << ": " << lat.size << " points, " << lat.legal << " legal, " << bad
              << " rejected\n";
  return bad ? InputErrors : Success;
}

std::map<std::string, int64_t> cachedTunePoint(const std::string &path, const std::string &kernel,
                                               const std::map<std::string, long long> &dims,
                                               const std::string &target, std::string &note) {
  note.clear();
  std::string error;
  auto file = loadSource(path, error);
  if (!file || file->text().find("tune") == std::string::npos)
    return {}; // no parameters: no second parse
  syntax::ParseResult parse = syntax::parse(*file);
  for (const syntax::Item &item : parse.module.items) {
    if (item.tuneParams.empty() || (!kernel.empty() && item.name.name != kernel))
      continue;
    tune::TuneCache cache(tune::defaultCachePath());
    std::string shape = tune::shapeKey(toShape(dims));
    auto best = dims.empty() ? std::nullopt
                             : cache.best("", ccOfTarget(target), item.name.name,
                                          tune::hashText(file->slice(item.span)), shape,
                                          dtypesOf(parse.module, item));
    if (!best) {
      note = "note: " + item.name.name + ": no tuned point" +
             (dims.empty() ? std::string(" (no shape given)") : " for " + shape) +
             " in the tuning cache; using the default point " +
             syntax::formatPoint(item, syntax::defaultPoint(item)) + " (run `kina tune`)";
      return {};
    }
    syntax::TunePoint point;
    std::vector<std::string> spec = {best->point};
    if (!syntax::parsePointSpec(spec, point, error))
      return {};
    note = "note: " + item.name.name + ": using the tuned point " + best->point + " for " + shape +
           " (" + fmtMs(best->medianMs) + " ms on " + best->env.device + ", " + cache.path() + ")";
    return point;
  }
  return {};
}

} // namespace kina::driver
