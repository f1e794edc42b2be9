//===- Cache.cpp - The tuning cache: one JSON line per measurement --------===//
#include "tune/Cache.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <unistd.h>

namespace kina::tune {

std::string hashText(std::string_view text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

nlohmann::json Environment::toJson() const {
  return {{"kina", kinaVersion}, {"ptxas", ptxasVersion}, {"device", device},    {"cc", cc},
          {"sms", smCount},      {"l2", l2Bytes},         {"clockKHz", clockKHz}};
}

Environment Environment::fromJson(const nlohmann::json &j) {
  Environment e;
  e.kinaVersion = j.value("kina", "");
  e.ptxasVersion = j.value("ptxas", "");
  e.device = j.value("device", "");
  e.cc = j.value("cc", "");
  e.smCount = j.value("sms", 0);
  e.l2Bytes = j.value("l2", int64_t{0});
  e.clockKHz = j.value("clockKHz", 0);
  return e;
}

std::string Environment::key() const { return hashText(toJson().dump()); }

nlohmann::json Record::toJson() const {
  return {{"envKey", envKey}, {"env", env.toJson()},
          {"kernel", kernel}, {"source", sourceHash},
          {"point", point},   {"shape", shape},
          {"dtypes", dtypes}, {"medianMs", medianMs},
          {"tflops", tflops}, {"ok", ok},
          {"time", unixTime}, {"winner", winner},
          {"family", family}};
}

std::optional<Record> Record::fromJson(const nlohmann::json &j) {
  if (!j.is_object() || !j.contains("envKey") || !j.contains("kernel") || !j.contains("point") ||
      !j.contains("shape") || !j.contains("medianMs"))
    return std::nullopt;
  Record r;
  try {
    r.envKey = j.at("envKey").get<std::string>();
    if (j.contains("env"))
      r.env = Environment::fromJson(j.at("env"));
    r.kernel = j.at("kernel").get<std::string>();
    r.sourceHash = j.value("source", "");
    r.point = j.at("point").get<std::string>();
    r.shape = j.at("shape").get<std::string>();
    r.dtypes = j.value("dtypes", "");
    r.medianMs = j.at("medianMs").get<double>();
    r.tflops = j.value("tflops", 0.0);
    r.ok = j.value("ok", true);
    r.unixTime = j.value("time", int64_t{0});
    r.winner = j.value("winner", false);
    r.family = j.value("family", "");
  } catch (const nlohmann::json::exception &) {
    return std::nullopt;
  }
  return r;
}

std::string defaultCachePath() {
  if (const char *p = getenv("KINA_TUNE_CACHE"); p && *p)
    return p;
  if (const char *x = getenv("XDG_CACHE_HOME"); x && *x)
    return std::string(x) + "/kina/tune.jsonl";
  if (const char *h = getenv("HOME"); h && *h)
    return std::string(h) + "/.cache/kina/tune.jsonl";
  return ".kina-tune.jsonl";
}

std::string shapeKey(const std::map<std::string, int64_t> &shape) {
  std::string s;
  for (const auto &[k, v] : shape)
    s += (s.empty() ? "" : ",") + k + "=" + std::to_string(v);
  return s;
}

bool TuneCache::append(const Record &r, std::string &error) const {
  std::error_code ec;
  std::filesystem::path p(path_);
  if (p.has_parent_path())
    std::filesystem::create_directories(p.parent_path(), ec);
  int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = "cannot open the tuning cache " + path_ + ": " + strerror(errno);
    return false;
  }
  std::string line = r.toJson().dump() + "\n";
  bool ok = true;
  if (flock(fd, LOCK_EX) != 0) {
    error = "cannot lock the tuning cache " + path_ + ": " + strerror(errno);
    ok = false;
  } else {
    // One write of the whole line: O_APPEND puts it at the end atomically,
    // the lock keeps a reader from seeing half of it.
    size_t done = 0;
    while (done < line.size()) {
      ssize_t n = ::write(fd, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        error = "cannot write the tuning cache " + path_ + ": " + strerror(errno);
        ok = false;
        break;
      }
      done += static_cast<size_t>(n);
    }
    flock(fd, LOCK_UN);
  }
  ::close(fd);
  return ok;
}

std::vector<Record> TuneCache::load(size_t *malformed) const {
  std::vector<Record> out;
  size_t bad = 0;
  int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    flock(fd, LOCK_SH);
    std::string text;
    char buf[65536];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) != 0;) {
      if (n < 0) {
        if (errno == EINTR)
          continue;
        break;
      }
      text.append(buf, static_cast<size_t>(n));
    }
    flock(fd, LOCK_UN);
    ::close(fd);
    size_t start = 0;
    while (start < text.size()) {
      size_t nl = text.find('\n', start);
      std::string line =
          text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
      start = nl == std::string::npos ? text.size() : nl + 1;
      if (line.empty())
        continue;
      nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      auto r = Record::fromJson(j);
      if (r)
        out.push_back(std::move(*r));
      else
        ++bad;
    }
  }
  if (malformed)
    *malformed = bad;
  return out;
}

std::optional<Record> TuneCache::best(const std::string &envKey, const std::string &cc,
                                      const std::string &kernel, const std::string &sourceHash,
                                      const std::string &shape, const std::string &dtypes) const {
  std::optional<Record> best;
  for (Record &r : load()) {
    if (!r.ok || r.winner || r.kernel != kernel || r.sourceHash != sourceHash || r.shape != shape ||
        r.dtypes != dtypes)
      continue;
    if (!envKey.empty() ? r.envKey != envKey : r.env.cc != cc)
      continue;
    if (!best || r.medianMs < best->medianMs)
      best = std::move(r);
  }
  return best;
}

} // namespace kina::tune
