// The power timeline of a simulated iteration: its average and peak power per controller window
// (the time_constant of the chip's power management, the span a board's power reading averages
// over) and its tile clock over time, from its ops as they ran (docs/power.md, "Power timeline").
// An op's energy is spread evenly over its time; the clock of a sub-op blend is its higher clock,
// then its lower one for the op's last `low_time`.
#pragma once

#include <string>
#include <vector>

#include "sim/base/units.hpp"

namespace scoville::stats {

// One op as it ran, relative to its iteration's start.
struct OpPowerSample {
  Duration start;
  Duration duration;
  Energy energy;
  Frequency clock;      // the clock it started at
  Frequency low_clock;  // the clock of its last low_time (sub-op control)
  Duration low_time;
};

struct PowerWindow {
  int iteration = 0;
  std::string phase;
  Duration start;   // from the iteration's start
  Duration length;  // the window, or less for the last one of an iteration
  Power average;    // energy in the window / its length
  Power peak;       // highest average power of an op overlapping the window
  Frequency clock;  // time-weighted mean tile clock in the window
};

struct ClockSegment {
  int iteration = 0;
  std::string phase;
  Duration start;
  Duration end;
  Frequency clock;
};

// Consecutive windows of `window` over the iteration's ops (ops in order, contiguous or not; the
// time between ops counts at no power). Empty for a window <= 0 or no ops.
std::vector<PowerWindow> power_windows(const std::vector<OpPowerSample>& ops, Duration window,
                                       int iteration, const std::string& phase);

// The clock over the iteration: one segment per change of clock (equal neighbours merged).
std::vector<ClockSegment> clock_segments(const std::vector<OpPowerSample>& ops, int iteration,
                                         const std::string& phase);

}  // namespace scoville::stats
