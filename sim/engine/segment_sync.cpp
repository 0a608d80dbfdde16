#include "sim/engine/segment_sync.hpp"

#include <stdexcept>

namespace scoville::engine {

std::vector<size_t> critical_chips(const std::vector<std::vector<Duration>>& op_time,
                                   const std::vector<int64_t>& segment) {
  if (op_time.empty()) throw std::invalid_argument("critical_chips: no chips");
  for (const std::vector<Duration>& chip : op_time) {
    if (chip.size() != segment.size()) {
      throw std::invalid_argument("critical_chips: every chip needs one time per op");
    }
  }
  std::vector<size_t> chosen(segment.size(), 0);
  size_t begin = 0;
  while (begin < segment.size()) {
    size_t end = begin;
    while (end < segment.size() && segment[end] == segment[begin]) ++end;
    size_t slowest = 0;
    Duration longest;
    for (size_t c = 0; c < op_time.size(); ++c) {
      Duration sum;
      for (size_t i = begin; i < end; ++i) sum += op_time[c][i];
      if (c == 0 || sum > longest) {
        longest = sum;
        slowest = c;
      }
    }
    for (size_t i = begin; i < end; ++i) chosen[i] = slowest;
    begin = end;
  }
  return chosen;
}

Duration synchronised_compute_time(const std::vector<std::vector<Duration>>& op_time,
                                   const std::vector<int64_t>& segment) {
  const std::vector<size_t> chosen = critical_chips(op_time, segment);
  Duration total;
  for (size_t i = 0; i < chosen.size(); ++i) total += op_time[chosen[i]][i];
  return total;
}

}  // namespace scoville::engine
