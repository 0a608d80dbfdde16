#include "sim/stats/power_timeline.hpp"

#include <algorithm>

namespace scoville::stats {

namespace {

// The op's clock segments: the higher clock, then the lower one for its last low_time.
void add_segments(const OpPowerSample& op, int iteration, const std::string& phase,
                  std::vector<ClockSegment>& out) {
  const Duration end = op.start + op.duration;
  const Duration low = std::min(op.low_time, op.duration);
  const Duration switch_at = end - low;
  const auto push = [&](Duration from, Duration to, Frequency clock) {
    if (!(to > from)) return;
    if (!out.empty() && out.back().clock.si() == clock.si() && out.back().end.si() == from.si()) {
      out.back().end = to;
      return;
    }
    out.push_back(ClockSegment{iteration, phase, from, to, clock});
  };
  push(op.start, switch_at, op.clock);
  if (low.si() > 0) push(switch_at, end, op.low_clock);
}

}  // namespace

std::vector<ClockSegment> clock_segments(const std::vector<OpPowerSample>& ops, int iteration,
                                         const std::string& phase) {
  std::vector<ClockSegment> out;
  for (const OpPowerSample& op : ops) add_segments(op, iteration, phase, out);
  return out;
}

std::vector<PowerWindow> power_windows(const std::vector<OpPowerSample>& ops, Duration window,
                                       int iteration, const std::string& phase) {
  std::vector<PowerWindow> out;
  if (!(window.si() > 0) || ops.empty()) return out;
  const Duration begin = ops.front().start;
  Duration end = begin;
  for (const OpPowerSample& op : ops) end = std::max(end, op.start + op.duration);
  const std::vector<ClockSegment> clocks = clock_segments(ops, iteration, phase);
  size_t first_op = 0;  // ops before it end before the current window
  size_t first_clock = 0;
  for (int64_t k = 0;; ++k) {
    const Duration from = begin + window * static_cast<double>(k);
    if (!(from < end)) break;
    const Duration to = std::min(from + window, end);
    PowerWindow w{iteration, phase, from, to - from, Power(), Power(), Frequency()};
    Energy energy;
    while (first_op < ops.size() && !(ops[first_op].start + ops[first_op].duration > from)) {
      ++first_op;
    }
    for (size_t i = first_op; i < ops.size() && ops[i].start < to; ++i) {
      const OpPowerSample& op = ops[i];
      if (!(op.duration.si() > 0)) continue;
      const Duration overlap = std::min(op.start + op.duration, to) - std::max(op.start, from);
      if (!(overlap.si() > 0)) continue;
      energy += op.energy * (overlap / op.duration);
      w.peak = std::max(w.peak, op.energy / op.duration);
    }
    double clock_seconds = 0;
    while (first_clock < clocks.size() && !(clocks[first_clock].end > from)) ++first_clock;
    for (size_t i = first_clock; i < clocks.size() && clocks[i].start < to; ++i) {
      const Duration overlap = std::min(clocks[i].end, to) - std::max(clocks[i].start, from);
      if (overlap.si() > 0) clock_seconds += clocks[i].clock.si() * overlap.si();
    }
    w.average = energy / w.length;
    w.clock = Frequency(clock_seconds / w.length.si());
    out.push_back(w);
  }
  return out;
}

}  // namespace scoville::stats
