//===- EventTimer.h - Median-of-N kernel timing with CUDA events -*- C++ -*-===//
//
// EventTimer times a launch callback: `warmup` untimed runs, then
// `iterations` runs each bracketed by its own pair of CUDA events on one
// stream, optionally preceded (outside the bracket) by a write over a
// scratch buffer twice the L2 size so every timed run starts with a cold L2,
// as triton.testing.do_bench does. It reports the median (the number Kina
// prints), min, max and mean. `kina run --bench` uses >= 20 iterations.
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
  };

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
