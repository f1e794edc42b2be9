//===- EventTimer.cpp - Median-of-N kernel timing with CUDA events --------===//
//
// Records one event pair per timed iteration, synchronises once at the end
// and reads the elapsed times; see EventTimer.h.
//
//===----------------------------------------------------------------------===//
#include "runtime/EventTimer.h"
#include "runtime/CudaDriver.h"
#include "runtime/Launch.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kina::runtime {

using namespace cuda;

TimingStats summarizeTimings(std::vector<double> samples) {
  TimingStats t;
  t.samplesMs = samples;
  if (samples.empty())
    return t;
  std::sort(samples.begin(), samples.end());
  std::size_t n = samples.size();
  t.medianMs = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2.0;
  t.minMs = samples.front();
  t.maxMs = samples.back();
  t.meanMs = std::accumulate(samples.begin(), samples.end(), 0.0) / double(n);
  return t;
}

Result<EventTimer> EventTimer::create(const Device &device, const Stream *stream) {
  EventTimer t;
  t.ctx_ = device.context();
  t.stream_ = stream ? stream->handle() : nullptr;
  std::size_t scratchBytes = std::max<std::size_t>(2 * std::size_t(device.info().l2CacheBytes),
                                                   std::size_t(8) << 20);
  auto buf = DeviceBuffer::alloc(device, scratchBytes, "L2 flush scratch buffer");
  if (!buf)
    return buf.takeError();
  t.scratch_ = buf.take();
  return t;
}

int EventTimer::plannedIterations(const Options &options, double perIterationMs) {
  int n = std::max(options.iterations, 1);
  if (options.targetMs > 0 && perIterationMs > 0) {
    double wanted = std::ceil(options.targetMs / perIterationMs);
    int cap = std::max(n, options.maxIterations);
    n = wanted >= double(cap) ? cap : std::max(n, int(wanted));
  }
  return n;
}

namespace {
/// Events destroyed on scope exit.
struct EventSet {
  const CudaDriver *api;
  std::vector<CUevent> events;
  ~EventSet() {
    for (CUevent e : events)
      if (e)
        api->cuEventDestroy(e);
  }
};
} // namespace

Result<TimingStats> EventTimer::measure(const std::function<Status()> &launchOnce,
                                        const Options &options, const std::string &what) {
  const CudaDriver &api = *ctx_->api;
  if (options.iterations < 1 || options.warmup < 0)
    return makeError(ErrorKind::InvalidArgument, "timing " + what + ": need iterations >= 1");
  if (Status s = ctx_->makeCurrent(); !s)
    return s.takeError();

  // Warm-up: the same flush-and-launch sequence as the timed runs, in
  // batches until both the count and the GPU time are reached.
  auto flush = [&](int i) -> Status {
    if (options.flushL2 && scratch_.size() > 0)
      if (CUresult r = api.cuMemsetD8Async(scratch_.devicePtr(), std::uint8_t(i), scratch_.size(),
                                           stream_);
          r != CUDA_SUCCESS)
        return api.error(r, "flushing L2 before timing " + what);
    return {};
  };
  auto enqueueOne = [&](int i) -> Status {
    if (Status s = flush(i); !s)
      return s;
    return launchOnce();
  };
  CUresult rc = CUDA_SUCCESS;
  EventSet warm{&api, {nullptr, nullptr}};
  for (CUevent &e : warm.events)
    if ((rc = api.cuEventCreate(&e, CU_EVENT_DEFAULT)) != CUDA_SUCCESS)
      return api.error(rc, "cuEventCreate");
  int warmRuns = 0;
  double warmMs = 0;
  for (int batch = std::max(options.warmup, 1);; batch = std::min(2 * batch, 4096)) {
    if ((rc = api.cuEventRecord(warm.events[0], stream_)) != CUDA_SUCCESS)
      return api.error(rc, "cuEventRecord");
    for (int i = 0; i < batch; ++i)
      if (Status s = enqueueOne(warmRuns + i); !s)
        return s.takeError();
    if ((rc = api.cuEventRecord(warm.events[1], stream_)) != CUDA_SUCCESS)
      return api.error(rc, "cuEventRecord");
    if ((rc = api.cuEventSynchronize(warm.events[1])) != CUDA_SUCCESS)
      return api.error(rc, "warm-up runs of " + what);
    float ms = 0;
    if ((rc = api.cuEventElapsedTime(&ms, warm.events[0], warm.events[1])) != CUDA_SUCCESS)
      return api.error(rc, "cuEventElapsedTime");
    warmRuns += batch;
    warmMs += ms;
    if (warmRuns >= options.warmup && warmMs >= options.warmupMs)
      break;
  }
  const int iterations = plannedIterations(options, warmMs / std::max(warmRuns, 1));

  EventSet set{&api, {}};
  for (int i = 0; i < 2 * iterations; ++i) {
    CUevent e = nullptr;
    rc = api.cuEventCreate(&e, CU_EVENT_DEFAULT);
    if (rc != CUDA_SUCCESS)
      return api.error(rc, "cuEventCreate");
    set.events.push_back(e);
  }
  for (int i = 0; i < iterations; ++i) {
    if (Status s = flush(i); !s)
      return s.takeError();
    if ((rc = api.cuEventRecord(set.events[2 * i], stream_)) != CUDA_SUCCESS)
      return api.error(rc, "cuEventRecord");
    if (Status s = launchOnce(); !s)
      return s.takeError();
    if ((rc = api.cuEventRecord(set.events[2 * i + 1], stream_)) != CUDA_SUCCESS)
      return api.error(rc, "cuEventRecord");
  }
  rc = api.cuEventSynchronize(set.events.back());
  if (rc != CUDA_SUCCESS)
    return api.error(rc, "timed runs of " + what);

  std::vector<double> samples;
  for (int i = 0; i < iterations; ++i) {
    float ms = 0;
    rc = api.cuEventElapsedTime(&ms, set.events[2 * i], set.events[2 * i + 1]);
    if (rc != CUDA_SUCCESS)
      return api.error(rc, "cuEventElapsedTime");
    samples.push_back(ms);
  }
  return summarizeTimings(std::move(samples));
}

} // namespace kina::runtime
