#include "sim/serving/serving_point.hpp"

#include <algorithm>
#include <limits>

#include "sim/base/pareto.hpp"

namespace scoville::serving {

namespace {

double d(int64_t v) { return static_cast<double>(v); }

}  // namespace

std::string mapping_label(const workloads::MappingConfig& mapping) {
  std::string out;
  for (const workloads::PoolMapping& p : mapping.pools) {
    if (!out.empty()) out += "+";
    if (mapping.pools.size() > 1) out += p.pool + ":";
    out += "tp" + std::to_string(p.degrees.tp);
    if (p.degrees.ep > 1) out += "-ep" + std::to_string(p.degrees.ep);
    if (p.degrees.attn_dp > 1) out += "-dpa" + std::to_string(p.degrees.attn_dp);
    if (p.degrees.pp > 1) out += "-pp" + std::to_string(p.degrees.pp);
    if (p.chips != p.degrees.tp * p.degrees.pp) out += "-c" + std::to_string(p.chips);
  }
  return out;
}

void fill_point_stats(ServingPoint& point) {
  // Sweep over sends (+1) and finishes (-1); a finish at the same time as a send comes first,
  // as the client frees its slot before sending the next request.
  std::vector<std::pair<double, int>> events;
  double sum_e2el = 0;
  for (const serving::RequestRecord& r : point.result.trace.records) {
    events.push_back({r.sent.si(), +1});
    events.push_back({r.finished.si(), -1});
    sum_e2el += r.e2el().si();
  }
  std::sort(events.begin(), events.end());
  int64_t in_flight = 0;
  double area = 0, last = events.empty() ? 0.0 : events.front().first;
  for (const auto& [t, delta] : events) {
    area += d(in_flight) * (t - last);
    last = t;
    in_flight += delta;
    point.max_in_flight = std::max(point.max_in_flight, in_flight);
  }
  const serving::ServingMetrics& m = point.result.metrics;
  point.mean_in_flight = m.duration_s > 0 ? area / m.duration_s : 0.0;
  const double mean_e2el = m.completed > 0 ? sum_e2el / d(m.completed) : 0.0;
  point.littles_law_n = m.request_throughput * mean_e2el;
}

void mark_pareto(std::vector<ServingPoint>& points) {
  std::vector<double> intvty, tput;
  for (const ServingPoint& p : points) {
    intvty.push_back(p.result.metrics.intvty);
    tput.push_back(p.result.metrics.tput_per_chip);
  }
  for (ServingPoint& p : points) p.pareto = false;
  for (size_t i : pareto_frontier(intvty, tput)) points[i].pareto = true;
}

}  // namespace scoville::serving
