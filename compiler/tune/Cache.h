//===- Cache.h - The tuning cache: one JSON line per measurement -*- C++ -*-===//
//
// One record per (kernel source hash, parameter point, problem shape, dtypes)
// with its measured median, under an environment key (Kina version, ptxas
// version, device name, compute capability, SM count, L2 size, clock). A
// record is one JSON line appended with O_APPEND under an exclusive flock in a
// single write(2), so concurrent tuners never interleave or lose lines;
// readers take a shared lock and skip any line that does not parse. The
// source hash is the kernel's own text (its item), so editing another kernel
// of the file keeps the records, and adding a candidate to a parameter keeps
// the records of the points that already existed (Triton #9822); the shape is
// always in the key (TileLang #1250). File: $KINA_TUNE_CACHE, else
// $XDG_CACHE_HOME/kina/tune.jsonl, else ~/.cache/kina/tune.jsonl.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kina::tune {

struct Environment {
  std::string kinaVersion;
  std::string ptxasVersion;
  std::string device; ///< device name, e.g. "NVIDIA H200"
  std::string cc;     ///< "9.0"
  int smCount = 0;
  int64_t l2Bytes = 0;
  int clockKHz = 0; ///< the SM clock the driver reports
  /// The key: every field above, hashed (hex).
  std::string key() const;
  nlohmann::json toJson() const;
  static Environment fromJson(const nlohmann::json &j);
};

struct Record {
  std::string envKey;
  Environment env;
  std::string kernel;
  std::string sourceHash; ///< of the kernel's text
  std::string point;      ///< `BM=128,BN=256,...`
  std::string shape;      ///< `K=4096,M=4096,N=4096` (sorted by name)
  std::string dtypes;     ///< `BF16,BF16->BF16`
  double medianMs = 0;
  double tflops = 0;
  bool ok = true; ///< false: failed or wrong (kept so it is not re-tried blindly)
  int64_t unixTime = 0;
  /// A finished `kina tune`: `point` of `kernel` won among the kernels whose
  /// texts hash to `family` (with their names); a second tune of the same
  /// family, shape and environment is answered from this record.
  bool winner = false;
  std::string family;
  nlohmann::json toJson() const;
  static std::optional<Record> fromJson(const nlohmann::json &j);
};

/// The default cache file (see above).
std::string defaultCachePath();

/// `K=4096,M=4096,N=4096`.
std::string shapeKey(const std::map<std::string, int64_t> &shape);

/// Hex FNV-1a of `text`.
std::string hashText(std::string_view text);

class TuneCache {
public:
  explicit TuneCache(std::string path) : path_(std::move(path)) {}
  const std::string &path() const { return path_; }
  /// Appends one line atomically; false with `error` on an I/O failure.
  bool append(const Record &r, std::string &error) const;
  /// Every well-formed record; `malformed` counts lines skipped.
  std::vector<Record> load(size_t *malformed = nullptr) const;
  /// The fastest ok record for the key. `envKey` empty: any environment
  /// whose compute capability is `cc` (a build without a device).
  std::optional<Record> best(const std::string &envKey, const std::string &cc,
                             const std::string &kernel, const std::string &sourceHash,
                             const std::string &shape, const std::string &dtypes) const;

private:
  std::string path_;
};

} // namespace kina::tune
