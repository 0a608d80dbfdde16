#include "sim/engine/plan_search.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "sim/base/error.hpp"
#include "sim/base/pareto.hpp"
#include "sim/engine/serving_engines.hpp"

namespace scoville::engine {

namespace {

// The batch limits a load takes: a closed loop of N clients never has more than N sequences,
// so every limit above N is the same point (N).
std::vector<int64_t> limits_for(const PlanLoad& load, const std::vector<int64_t>& max_batch) {
  std::vector<int64_t> out;
  for (int64_t limit : max_batch) {
    const int64_t v = load.requests.kind == workloads::ArrivalKind::kClosedLoop
                          ? std::min(limit, load.requests.concurrency)
                          : limit;
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

PlanPoint evaluate(const ServingHardware& hw, const ServingEngine& engine,
                   const workloads::MappingConfig& mapping, const PlanQuery& q, size_t load,
                   int64_t max_batch) {
  const PlanLoad& l = q.loads[load];
  serving::ServingScenario scenario;
  scenario.workload = l.requests;
  scenario.system = engine.system;
  for (serving::PoolConfig& p : scenario.system.pools) p.scheduler.max_num_seqs = max_batch;
  scenario.metrics.tdp_per_chip = hw.chip.power.tdp;
  scenario.metrics.slo_ttft = q.ttft.limit;
  scenario.metrics.slo_tpot = q.tpot.limit;
  set_power_inputs(hw, scenario.metrics);

  PlanPoint out;
  out.load = load;
  out.max_batch = max_batch;
  serving::ServingPoint& point = out.point;
  point.mapping = serving::mapping_label(mapping);
  point.concurrency = l.requests.kind == workloads::ArrivalKind::kClosedLoop
                          ? l.requests.concurrency
                          : l.requests.max_concurrency;
  const workloads::PoolMapping& last = mapping.pools.back();
  point.tp = last.degrees.tp;
  point.ep = last.degrees.ep;
  point.attn_dp = last.degrees.attn_dp;
  point.chips = scenario.system.total_chips();
  if (scenario.system.disaggregated()) {
    out.prefill_chips = scenario.system.prefill_chips();
    out.decode_chips = scenario.system.decode_chips();
  }
  point.result = serving::run_serving(scenario, *engine.cost, q.seed);
  serving::fill_point_stats(point);
  // The per-token gaps made the ITL metrics and nothing after reads them (8 KB a request).
  for (serving::RequestRecord& r : point.result.trace.records) std::vector<Duration>().swap(r.itl);

  const serving::ServingMetrics& m = point.result.metrics;
  out.ttft_ms = at_percentile(m.ttft_ms, q.ttft.percentile);
  out.tpot_ms = at_percentile(m.tpot_ms, q.tpot.percentile);
  out.goodput = m.output_goodput.value_or(0.0);
  out.goodput_per_chip = out.goodput / static_cast<double>(point.chips);
  out.goodput_per_kw = out.goodput_per_chip * 1000.0 / hw.chip.power.tdp.si();
  // Every request must have completed for the percentiles to speak for the load.
  out.meets = m.completed > 0 && out.ttft_ms <= q.ttft.limit.si() * 1e3 &&
              out.tpot_ms <= q.tpot.limit.si() * 1e3;
  return out;
}

}  // namespace

double at_percentile(const serving::Distribution& d, int percentile) {
  switch (percentile) {
    case 50:
      return d.median;
    case 90:
      return d.p90;
    case 99:
      return d.p99;
    default:
      throw std::invalid_argument("at_percentile: expected 50, 90 or 99");
  }
}

int64_t plan_point_count(const PlanQuery& query) {
  int64_t n = 0;
  for (const PlanLoad& load : query.loads) {
    n += static_cast<int64_t>(limits_for(load, query.max_batch).size());
  }
  return n * static_cast<int64_t>(query.mappings.size());
}

void rank_plan(std::vector<PlanPoint>& points) {
  std::vector<size_t> order(points.size());
  std::iota(order.begin(), order.end(), 0);
  // Stable: equal goodput and TPOT keep the search order, so the ranking is deterministic.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const PlanPoint& x = points[a];
    const PlanPoint& y = points[b];
    if (x.load != y.load) return x.load < y.load;
    if (x.goodput_per_chip != y.goodput_per_chip) return x.goodput_per_chip > y.goodput_per_chip;
    return x.tpot_ms < y.tpot_ms;
  });
  std::vector<int64_t> next_rank;
  std::vector<double> intvty, goodput;
  std::vector<size_t> meeting;
  for (size_t i : order) {
    PlanPoint& p = points[i];
    p.rank = 0;
    p.pareto = false;
    if (!p.meets) continue;
    if (next_rank.size() <= p.load) next_rank.resize(p.load + 1, 1);
    p.rank = next_rank[p.load]++;
  }
  for (size_t i = 0; i < points.size(); ++i) {
    if (!points[i].meets) continue;
    meeting.push_back(i);
    intvty.push_back(points[i].point.result.metrics.intvty);
    goodput.push_back(points[i].goodput_per_chip);
  }
  for (size_t k : pareto_frontier(intvty, goodput)) points[meeting[k]].pareto = true;
}

PlanResult plan_search(const ServingHardware& hw, const workloads::ModelConfig& model,
                       const PlanQuery& query,
                       const std::function<void(const std::string&)>& step) {
  // The loads first: a trace that cannot be read is the user's input error, not a point of the
  // search to skip (the points' own InputErrors, such as a request that never fits a mapping's
  // KV cache, are).
  for (const PlanLoad& load : query.loads) {
    workloads::make_request_plan(load.requests, query.seed, "load " + load.label);
  }
  PlanResult out;
  for (const workloads::MappingConfig& mapping : query.mappings) {
    const std::string label = serving::mapping_label(mapping);
    std::optional<ServingEngine> engine;
    try {
      engine.emplace(make_engine(hw, model, mapping, query.scheduler));
    } catch (const InputError& e) {
      out.skipped.push_back(label + ": " + e.what());
      for (const PlanLoad& load : query.loads) {
        for (size_t i = 0; i < limits_for(load, query.max_batch).size(); ++i) step(label);
      }
      continue;
    }
    for (size_t l = 0; l < query.loads.size(); ++l) {
      for (int64_t limit : limits_for(query.loads[l], query.max_batch)) {
        const std::string point_label =
            label + " max_batch=" + std::to_string(limit) + " " + query.loads[l].label;
        try {
          out.points.push_back(evaluate(hw, *engine, mapping, query, l, limit));
        } catch (const InputError& e) {
          out.skipped.push_back(point_label + ": " + e.what());
        }
        step(point_label);
      }
    }
  }
  if (out.points.empty()) {
    std::string why;
    for (const std::string& s : out.skipped) why += "\n  " + s;
    throw InputError(SourceLocation{"<command line>", 0, 0}, "--system",
                     "no mapping of the search can serve this model here:" + why);
  }
  rank_plan(out.points);
  return out;
}

}  // namespace scoville::engine
