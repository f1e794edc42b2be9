//===- tileir_run.cpp - Run the Tile IR cubins on the GPU and check them --===//
//
// The GPU half of tests/gpu/tileir (the build half is kina-tileir-prepare):
// reads DIR/manifest.txt, loads each DIR/<kernel>.cubin through
// kina_runtime, launches it with the block size the cubin requires
// (tileiras picks it: REQNTID, which the manifest carries), compares the output with a CPU
// reference and times it (median of --iters runs). One line per kernel: PASS, FAIL or SKIP; then "N
// passed, N failed, N skipped". An unmet prerequisite (no driver or GPU, a driver that refuses the
// cubin) is SKIP naming it; a launch or result error is FAIL. Exit 0, 1 (a failure) or 77 (all
// skipped).
//
// Usage: tileir_run DIR [--iters N]
//
//===----------------------------------------------------------------------===//
#include "runtime/DType.h"
#include "runtime/Device.h"
#include "runtime/EventTimer.h"
#include "runtime/Launch.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace kina;

namespace {

int passed = 0, failed = 0, skipped = 0;

void report(const char *status, const std::string &name, const std::string &detail) {
  std::printf("%-4s %-20s %s\n", status, name.c_str(), detail.c_str());
  std::fflush(stdout);
  if (!std::strcmp(status, "PASS"))
    ++passed;
  else if (!std::strcmp(status, "FAIL"))
    ++failed;
  else
    ++skipped;
}

template <typename T> std::vector<std::uint8_t> bytesOf(const std::vector<T> &v) {
  std::vector<std::uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

struct Case {
  std::string name, kind;
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1}; ///< the cubin's REQNTID, from the manifest
  std::vector<long> sizes;
  std::vector<std::vector<std::uint8_t>> inputs;
  std::size_t outBytes = 0;
  std::vector<float> expected; ///< NaN = not checked
  double tolerance = 1e-5;     ///< max |got - want| / (1 + |want|)
  double flops = 0, bytes = 0;
};

bool makeCase(Case &c, std::mt19937 &rng, std::string &why) {
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  auto randoms = [&](std::size_t n, float scale) {
    std::vector<float> v(n);
    for (float &x : v)
      x = dist(rng) * scale;
    return v;
  };
  bool kinaAdd = c.kind == "kina_add" && c.sizes.size() == 2;
  if (((c.kind == "add" || c.kind == "add_dyn") && c.sizes.size() == 1) || kinaAdd) {
    long n = kinaAdd ? c.sizes[0] * c.sizes[1] : c.sizes[0];
    auto x = randoms(n, 1), y = randoms(n, 1);
    c.inputs = {bytesOf(x), bytesOf(y)};
    c.outBytes = n * 4;
    for (long i = 0; i < n; ++i)
      c.expected.push_back(x[i] + y[i]);
    c.tolerance = 0;
    c.bytes = 12.0 * n;
    return true;
  }
  if (c.kind == "gemm" && c.sizes.size() == 3) {
    long m = c.sizes[0], n = c.sizes[1], k = c.sizes[2];
    std::vector<std::uint16_t> a(m * k), b(k * n);
    std::vector<float> af(a.size()), bf(b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      af[i] = runtime::halfToFloat(a[i] = runtime::floatToHalf(dist(rng)));
    for (std::size_t i = 0; i < b.size(); ++i)
      bf[i] = runtime::halfToFloat(b[i] = runtime::floatToHalf(dist(rng)));
    c.inputs = {bytesOf(a), bytesOf(b)};
    c.outBytes = m * n * 4;
    // Every row at small sizes; rows 0, 97, 194, ... at large ones (the
    // full CPU product of 4096^3 takes minutes).
    long step = m * n * k > (1L << 30) ? 97 : 1;
    c.expected.assign(m * n, NAN);
    for (long i = 0; i < m; i += step)
      for (long j = 0; j < n; ++j) {
        double s = 0;
        for (long kk = 0; kk < k; ++kk)
          s += double(af[i * k + kk]) * bf[kk * n + j];
        c.expected[i * n + j] = float(s);
      }
    c.tolerance = 1e-3;
    c.flops = 2.0 * m * n * k;
    return true;
  }
  if ((c.kind == "softmax" || c.kind == "kina_softmax") && c.sizes.size() == 2) {
    long rows = c.sizes[0], cols = c.sizes[1];
    auto x = randoms(rows * cols, 8);
    c.inputs = {bytesOf(x)};
    c.outBytes = x.size() * 4;
    for (long r = 0; r < rows; ++r) {
      double mx = -INFINITY, sum = 0;
      for (long j = 0; j < cols; ++j)
        mx = std::max<double>(mx, x[r * cols + j]);
      for (long j = 0; j < cols; ++j)
        sum += std::exp(double(x[r * cols + j]) - mx);
      for (long j = 0; j < cols; ++j)
        c.expected.push_back(float(std::exp(double(x[r * cols + j]) - mx) / sum));
    }
    c.tolerance = 1e-5;
    c.bytes = 8.0 * rows * cols;
    return true;
  }
  why = "unknown kind or sizes in the manifest";
  return false;
}

} // namespace

int main(int argc, char **argv) {
  std::string dir;
  int iters = 20;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--iters" && i + 1 < argc)
      iters = std::atoi(argv[++i]);
    else if (dir.empty() && a[0] != '-')
      dir = a;
    else {
      std::fprintf(stderr, "usage: tileir_run DIR [--iters N]\n");
      return 2;
    }
  }
  std::ifstream manifest(dir + "/manifest.txt");
  if (dir.empty() || !manifest) {
    std::fprintf(stderr, "tileir_run: no %s/manifest.txt (run tests/gpu/tileir/prepare.sh)\n",
                 dir.c_str());
    return 1;
  }
  std::vector<Case> cases;
  for (std::string line; std::getline(manifest, line);) {
    std::istringstream in(line);
    Case c;
    if (!(in >> c.name >> c.kind >> c.grid[0] >> c.grid[1] >> c.grid[2] >> c.block[0] >>
          c.block[1] >> c.block[2]))
      continue;
    for (long v; in >> v;)
      c.sizes.push_back(v);
    cases.push_back(std::move(c));
  }
  auto device = runtime::Device::open(0);
  if (!device) {
    for (const Case &c : cases)
      report("SKIP", c.name, "no CUDA device (" + device.error().message + ")");
    std::printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return 77;
  }
  std::printf("device: %s\n", device->info().summary().c_str());
  std::mt19937 rng(42);
  for (Case &c : cases) {
    const std::string &name = c.name;
    std::string why;
    if (!makeCase(c, rng, why)) {
      report("FAIL", name, why);
      continue;
    }
    auto image = runtime::readFileBytes(dir + "/" + name + ".cubin");
    if (!image) {
      report("FAIL", name, image.error().message);
      continue;
    }
    std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t *>(image->data()),
                                        image->size());
    auto mod = runtime::Module::load(*device, bytes, name + ".cubin");
    if (!mod) {
      const auto &e = mod.error();
      bool refused = e.kind == runtime::ErrorKind::DriverTooOld ||
                     e.kind == runtime::ErrorKind::NoBinaryForDevice;
      report(refused ? "SKIP" : "FAIL", name,
             (refused ? "the driver refuses the tileiras cubin: " : "") + e.message);
      continue;
    }
    auto fn = mod->kernel(name);
    if (!fn) {
      report("FAIL", name, fn.error().message);
      continue;
    }
    auto attrs = fn->attributes();
    if (!attrs) {
      report("FAIL", name, attrs.error().message);
      continue;
    }
    std::vector<runtime::DeviceBuffer> bufs;
    bool ok = true;
    for (auto &in : c.inputs) {
      auto b = runtime::DeviceBuffer::alloc(*device, in.size(), "input");
      if (!b) {
        why = b.error().message;
        ok = false;
        break;
      }
      if (auto s = b->copyFromHost(in); !s) {
        why = s.error().message;
        ok = false;
        break;
      }
      bufs.push_back(std::move(*b));
    }
    auto out = runtime::DeviceBuffer::alloc(*device, c.outBytes, "output");
    if (!ok || !out) {
      report("FAIL", name, ok ? out.error().message : why);
      continue;
    }
    (void)out->fill(0xFF); // NaN: an element never written fails the check
    runtime::KernelArgs args;
    for (auto &b : bufs)
      args.pointer(b);
    args.pointer(*out);
    if (c.kind == "add_dyn") // the dim, after the pointers (Kina's kernel ABI order)
      args.i32(static_cast<std::int32_t>(c.sizes[0]));
    if (c.kind == "kina_add") { // kernels.kina add_blk [M, N]
      args.i32(static_cast<std::int32_t>(c.sizes[0]));
      args.i32(static_cast<std::int32_t>(c.sizes[1]));
    }
    if (c.kind == "kina_softmax") // softmax_blk [M]
      args.i32(static_cast<std::int32_t>(c.sizes[0]));
    runtime::LaunchConfig cfg;
    cfg.grid = {c.grid[0], c.grid[1], c.grid[2]};
    cfg.block = {c.block[0], c.block[1], c.block[2]};
    auto once = [&]() -> runtime::Status { return runtime::launch(*fn, cfg, args); };
    if (auto s = once(); !s) {
      report("FAIL", name, s.error().message);
      continue;
    }
    if (auto s = device->synchronize(name); !s) {
      report("FAIL", name, s.error().message);
      continue;
    }
    std::vector<std::uint8_t> got(c.outBytes);
    if (auto s = out->copyToHost(got); !s) {
      report("FAIL", name, s.error().message);
      continue;
    }
    const float *g = reinterpret_cast<const float *>(got.data());
    double worst = 0;
    std::size_t worstAt = 0, checked = 0;
    for (std::size_t i = 0; i < c.expected.size(); ++i) {
      if (std::isnan(c.expected[i]))
        continue;
      ++checked;
      double err = std::isfinite(g[i]) ? std::fabs(double(g[i]) - c.expected[i]) /
                                             (1 + std::fabs(double(c.expected[i])))
                                       : INFINITY;
      if (err > worst) {
        worst = err;
        worstAt = i;
      }
    }
    char detail[320];
    if (worst > c.tolerance) {
      std::snprintf(detail, sizeof detail, "max rel err %.3g at %zu (got %g, want %g) > %.1g",
                    worst, worstAt, g[worstAt], c.expected[worstAt], c.tolerance);
      report("FAIL", name, detail);
      continue;
    }
    double ms = NAN;
    if (auto timer = runtime::EventTimer::create(*device)) {
      runtime::EventTimer::Options o;
      o.iterations = iters;
      if (auto t = timer->measure(once, o, name))
        ms = t->medianMs;
    }
    std::string rate;
    if (c.flops > 0 && ms > 0)
      rate = ", " + std::to_string(c.flops / (ms * 1e9)) + " TFLOP/s";
    else if (c.bytes > 0 && ms > 0)
      rate = ", " + std::to_string(c.bytes / (ms * 1e6)) + " GB/s";
    std::snprintf(detail, sizeof detail,
                  "grid [%u,%u,%u] x block [%u,%u,%u], %zu elements checked, max rel err %.2g, "
                  "median %.4f ms%s",
                  c.grid[0], c.grid[1], c.grid[2], c.block[0], c.block[1], c.block[2], checked,
                  worst, ms, rate.c_str());
    report("PASS", name, detail);
  }
  std::printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed ? 1 : (passed ? 0 : 77);
}
