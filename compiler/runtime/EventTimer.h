//===- EventTimer.h - Median-of-N kernel timing with CUDA events -*- C++ -*-===//
//
// EventTimer times a launch callback: `warmup` untimed runs, then
// `iterations` runs each bracketed by its own pair of CUDA events on one
// stream, optionally preceded (outside the bracket) by a write over a
// scratch buffer twice the L2 size so every timed run starts with a cold L2,
// as triton.testing.do_bench does. It reports the median (the number Kina
// prints), min, max and mean.
//
// Like do_bench, warm-up and timing can be given in GPU time as well as in
// counts (warmupMs, targetMs): a short kernel timed over a few milliseconds
// in a fresh process otherwise measures the GPU still ramping its clocks up
// from idle (the H200 idles at 345 MHz), which is not the kernel. The
// anchors (torch, Triton) time in a warm process; `kina run --bench` warms
// up for 25 ms and times at least 100 ms, as do_bench's defaults do.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/Device.h"

#include <functional>
#include <vector>

namespace kina::runtime {

struct TimingStats {
  std::vector<double> samplesMs; ///< in launch order
  double medianMs = 0, minMs = 0, maxMs = 0, meanMs = 0;
};

/// Summary of samples (median of an even count is the mean of the middle
/// two). Empty input gives zeros.
TimingStats summarizeTimings(std::vector<double> samplesMs);

class EventTimer {
public:
  struct Options {
    int warmup = 5;
    int iterations = 20;
    bool flushL2 = true;
    /// Warm up until at least this much GPU time (flushes included) has run.
    double warmupMs = 0;
    /// Raise `iterations` so the timed runs take about this long in all
    /// (flushes included), up to maxIterations.
    double targetMs = 0;
    int maxIterations = 1000;
  };

  /// How many timed iterations `options` asks for when one iteration
  /// (flush and launch) takes `perIterationMs`: at least options.iterations,
  /// enough to reach targetMs, at most max(iterations, maxIterations).
  static int plannedIterations(const Options &options, double perIterationMs);

  /// A timer that records on `stream` (nullptr: the default stream). The
  /// launch callback must launch on that same stream.
  static Result<EventTimer> create(const Device &device, const Stream *stream = nullptr);

  /// Runs `launchOnce` warmup + iterations times. `what` (the kernel name)
  /// is named in errors, including faults surfacing at synchronisation.
  Result<TimingStats> measure(const std::function<Status()> &launchOnce, const Options &options,
                              const std::string &what);

private:
  EventTimer() = default;
  DeviceContextRef ctx_;
  cuda::CUstream stream_ = nullptr;
  DeviceBuffer scratch_;
};

} // namespace kina::runtime
