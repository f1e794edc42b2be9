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

namespace {
/// Events destroyed on scope exit.
struct EventSet {
  const CudaDriver *api;
  std::vector<CUevent> events;
  ~EventSet() {
    for (CUevent e : events)
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

  for (int i = 0; i < options.warmup; ++i)
    if (Status s = launchOnce(); !s)
      return s.takeError();
  CUresult rc = api.cuStreamSynchronize(stream_);
  if (rc != CUDA_SUCCESS)
    return api.error(rc, "warm-up runs of " + what);

  EventSet set{&api, {}};
  for (int i = 0; i < 2 * options.iterations; ++i) {
    CUevent e = nullptr;
    rc = api.cuEventCreate(&e, CU_EVENT_DEFAULT);
    if (rc != CUDA_SUCCESS)
      return api.error(rc, "cuEventCreate");
    set.events.push_back(e);
  }
  for (int i = 0; i < options.iterations; ++i) {
    if (options.flushL2 && scratch_.size() > 0) {
      rc = api.cuMemsetD8Async(scratch_.devicePtr(), std::uint8_t(i), scratch_.size(), stream_);
      if (rc != CUDA_SUCCESS)
        return api.error(rc, "flushing L2 before timing " + what);
    }
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
  for (int i = 0; i < options.iterations; ++i) {
    float ms = 0;
    rc = api.cuEventElapsedTime(&ms, set.events[2 * i], set.events[2 * i + 1]);
    if (rc != CUDA_SUCCESS)
      return api.error(rc, "cuEventElapsedTime");
    samples.push_back(ms);
  }
  return summarizeTimings(std::move(samples));
}

} // namespace kina::runtime
