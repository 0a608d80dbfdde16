#include "sim/stats/results.hpp"

#include <algorithm>

namespace scoville::stats {

std::string to_string(Bound bound) {
  switch (bound) {
    case Bound::kCompute:
      return "compute";
    case Bound::kHbm:
      return "hbm";
    case Bound::kOther:
      return "other";
  }
  return "other";
}

Bound PhaseResult::dominant_bound() const {
  Bound best = Bound::kOther;
  Duration best_time(-1);
  for (Bound b : {Bound::kCompute, Bound::kHbm, Bound::kOther}) {
    const auto it = time_by_bound.find(b);
    const Duration t = it == time_by_bound.end() ? Duration() : it->second;
    if (t > best_time) {
      best_time = t;
      best = b;
    }
  }
  return best;
}

double PhaseResult::share(Bound b) const {
  const auto it = time_by_bound.find(b);
  if (it == time_by_bound.end() || time.si() <= 0) return 0.0;
  return it->second / time;
}

void PowerStats::add(const PowerStats& o, double weight) {
  throttled_time += o.throttled_time * weight;
  stall_time += o.stall_time * weight;
  frequency_seconds += o.frequency_seconds * weight;
  if (peak_power.size() < o.peak_power.size()) peak_power.resize(o.peak_power.size());
  for (size_t i = 0; i < o.peak_power.size(); ++i) {
    peak_power[i] = std::max(peak_power[i], o.peak_power[i]);
  }
  peak_total = std::max(peak_total, o.peak_total);
}

}  // namespace scoville::stats
