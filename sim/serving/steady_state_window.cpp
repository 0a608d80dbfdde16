#include "sim/serving/steady_state_window.hpp"

#include <algorithm>
#include <map>

namespace scoville::serving {

namespace {

double overlap_s(Duration a0, Duration a1, Duration b0, Duration b1) {
  return std::max(0.0, std::min(a1, b1).si() - std::max(a0, b0).si());
}

}  // namespace

std::optional<MeasurementWindow> steady_state_window(const std::vector<RequestRecord>& records,
                                                     int64_t max_num_seqs) {
  const auto n = static_cast<int64_t>(records.size());
  // The benchmark's end: the (N - B - 1)-th request finished; its start: the B-th first token.
  // N - B - 1 may be below B (ML.ENERGY's GPT-OSS runs at B = 256 send N = 396 or 594): while
  // fewer than N - B requests have finished, B + 1 or more are unfinished and the batch is full.
  const int64_t finished_rank = n - max_num_seqs - 1;
  if (max_num_seqs < 1 || finished_rank < 1) return std::nullopt;
  std::vector<double> first, finished;
  for (const RequestRecord& r : records) {
    first.push_back(r.first_token.si());
    finished.push_back(r.finished.si());
  }
  std::sort(first.begin(), first.end());
  std::sort(finished.begin(), finished.end());
  const MeasurementWindow w{Duration(first[static_cast<size_t>(max_num_seqs - 1)]),
                            Duration(finished[static_cast<size_t>(finished_rank - 1)])};
  if (!(w.end > w.start)) return std::nullopt;
  return w;
}

void IterationEnergyLog::on_iteration(const ObservedIteration& iteration) {
  entries_.push_back(Entry{iteration.pool, iteration.start, iteration.end, iteration.energy});
}

WindowTotals window_totals(const MeasurementWindow& window,
                           const std::vector<IterationEnergyLog::Entry>& iterations,
                           const std::vector<RequestRecord>& records,
                           const std::vector<double>& idle_power_w) {
  WindowTotals t;
  t.time = window.end - window.start;
  const double span_s = t.time.si();
  // Per pool: the iterations' energy inside the window, and the time they cover there.
  std::map<int, double> busy_s;
  double joules = 0;
  for (const IterationEnergyLog::Entry& it : iterations) {
    const double length_s = (it.end - it.start).si();
    const double inside_s = overlap_s(it.start, it.end, window.start, window.end);
    if (!(length_s > 0) || !(inside_s > 0)) continue;
    joules += it.energy.si() * inside_s / length_s;
    busy_s[it.pool] += inside_s;
  }
  for (size_t pool = 0; pool < idle_power_w.size(); ++pool) {
    const double idle_s = std::max(0.0, span_s - busy_s[static_cast<int>(pool)]);
    joules += idle_power_w[pool] * idle_s;
  }
  t.energy = Energy(joules);
  double tokens = 0;
  for (const RequestRecord& r : records) {
    if (r.output_tokens < 1) continue;
    if (r.first_token >= window.start && r.first_token <= window.end) tokens += 1;
    if (r.itl.empty()) continue;
    const double per_delivery =
        static_cast<double>(r.output_tokens - 1) / static_cast<double>(r.itl.size());
    Duration at = r.first_token;
    for (const Duration gap : r.itl) {
      at += gap;
      if (at > window.end) break;
      if (at >= window.start) tokens += per_delivery;
    }
  }
  t.output_tokens = tokens;
  return t;
}

}  // namespace scoville::serving
