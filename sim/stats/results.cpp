#include "sim/stats/results.hpp"

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

}  // namespace scoville::stats
