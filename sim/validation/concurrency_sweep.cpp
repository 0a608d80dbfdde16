#include "sim/validation/concurrency_sweep.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "sim/base/error.hpp"
#include "sim/config/data_paths.hpp"

namespace scoville::validation {

namespace {

bool within(const SweptPoint& p, const LatencyLimits& limits) {
  return p.p99_ttft_ms <= limits.ttft_ms && p.p99_tpot_ms <= limits.tpot_ms;
}

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f", v);
  return b;
}

}  // namespace

std::optional<size_t> choose_point(const std::vector<SweptPoint>& points,
                                   const std::optional<LatencyLimits>& limits) {
  std::optional<size_t> best;
  for (size_t i = 0; i < points.size(); ++i) {
    if (limits && !within(points[i], *limits)) continue;
    if (!best || points[i].throughput > points[*best].throughput) best = i;
  }
  return best;
}

SweepOutcome sweep_concurrency(const std::function<SweptPoint(int64_t)>& run,
                               const std::optional<LatencyLimits>& limits,
                               int64_t max_concurrency) {
  SweepOutcome out;
  double best_tput = 0;
  int flat = 0, over_tpot = 0;
  for (int64_t c = 1; c <= max_concurrency; c *= 2) {
    SweptPoint p;
    try {
      p = run(c);
    } catch (const InputError& e) {
      if (out.points.empty()) out.why_not = e.what();
      break;
    }
    p.concurrency = c;
    out.points.push_back(p);
    flat = p.throughput > best_tput * (1.0 + kPlateauGain) ? 0 : flat + 1;
    best_tput = std::max(best_tput, p.throughput);
    over_tpot = limits && p.p99_tpot_ms > limits->tpot_ms ? over_tpot + 1 : 0;
    if (flat >= 2 || over_tpot >= 2) break;
  }
  out.best = choose_point(out.points, limits);
  if (!out.best && out.why_not.empty()) {
    if (out.points.empty()) {
      out.why_not = "no concurrency could be simulated";
    } else {
      // The point closest to the limits: the lowest concurrency's.
      const SweptPoint& p = out.points.front();
      out.why_not = "no concurrency from 1 to " + std::to_string(out.points.back().concurrency) +
                    " meets p99 TTFT <= " + fmt(limits->ttft_ms) +
                    " ms and p99 TPOT <= " + fmt(limits->tpot_ms) + " ms (at 1: TTFT " +
                    fmt(p.p99_ttft_ms) + " ms, TPOT " + fmt(p.p99_tpot_ms) + " ms)";
    }
  }
  return out;
}

SweptRow predict_swept_row(const RowPlan& plan, const engine::ServingHardware& hw,
                           int64_t prompts_per_client) {
  SweptRow out;
  out.plan = plan;
  std::vector<int64_t> replicas{plan.replica_chips};
  if (plan.scenario != RowScenario::kBestThroughput) {
    int64_t most =
        std::min(kMaxSweepReplicaChips, hw.system_chips > 0 ? hw.system_chips : plan.replica_chips);
    if (plan.row_chips > 0) most = std::min(most, plan.row_chips);
    most = std::max(most, plan.replica_chips);
    // The smallest replica whose HBM holds the weights with room for the KV cache.
    const workloads::ModelConfig model = row_model(plan, config::DataPaths::from_environment());
    const double hbm = hw.chip.hbm.capacity.si();
    int64_t least = plan.replica_chips;
    while (least * 2 <= most &&
           model.weight_bytes().si() > kMaxWeightShareOfHbm * hbm * static_cast<double>(least)) {
      least *= 2;
    }
    replicas.clear();
    for (int64_t r = least; r <= most; r *= 2) replicas.push_back(r);
  }
  std::string why_not;
  for (const int64_t replica : replicas) {
    RowPlan base = plan;
    base.replica_chips = replica;
    const SweepOutcome sweep = sweep_concurrency(
        [&](int64_t concurrency) {
          RowPlan at = base;
          at.concurrency = concurrency;
          RowSimulator sim(at, hw, prompts_per_client);
          const RowPrediction r = sim.run(hw.efficiency);
          SweptPoint p;
          p.replica_chips = replica;
          p.throughput = r.throughput;
          p.intvty = r.intvty;
          p.p99_ttft_ms = r.p99_ttft_ms;
          p.p99_tpot_ms = r.p99_tpot_ms;
          return p;
        },
        plan.limits, kMaxSweepConcurrency);
    out.points.insert(out.points.end(), sweep.points.begin(), sweep.points.end());
    if (why_not.empty()) why_not = sweep.why_not;
  }
  const std::optional<size_t> best = choose_point(out.points, plan.limits);
  if (!best) {
    const std::string replicas_tried = replicas.size() == 1
                                           ? std::to_string(replicas.front()) + "-chip replica"
                                           : std::to_string(replicas.front()) + " to " +
                                                 std::to_string(replicas.back()) + "-chip replicas";
    throw InputError(SourceLocation{}, "", why_not + " (" + replicas_tried + ")");
  }
  const SweptPoint& p = out.points[*best];
  out.plan.replica_chips = p.replica_chips;
  out.plan.concurrency = p.concurrency;
  out.predicted.throughput = p.throughput;
  out.predicted.intvty = p.intvty;
  out.predicted.p99_ttft_ms = p.p99_ttft_ms;
  out.predicted.p99_tpot_ms = p.p99_tpot_ms;
  return out;
}

}  // namespace scoville::validation
