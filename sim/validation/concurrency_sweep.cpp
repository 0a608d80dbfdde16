#include "sim/validation/concurrency_sweep.hpp"

#include <algorithm>
#include <cmath>
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

// Whether the throughput has stopped rising: two points in a row without kPlateauGain.
struct PlateauWatch {
  double best_tput = 0;
  int flat = 0;
  bool flat_after(const SweptPoint& p) {
    flat = p.throughput > best_tput * (1.0 + kPlateauGain) ? 0 : flat + 1;
    best_tput = std::max(best_tput, p.throughput);
    return flat >= 2;
  }
};

// Runs `run` at concurrencies 1, 2, 4, ... up to max_concurrency (and at max_concurrency itself
// when it is not a power of two), until `stop_after` says so of the point just run or a point
// cannot be priced (InputError: the first point's error is the reason when no point ran).
SweepOutcome sweep_doubling(const std::function<SweptPoint(int64_t)>& run, int64_t max_concurrency,
                            const std::function<bool(const SweptPoint&)>& stop_after) {
  SweepOutcome out;
  std::vector<int64_t> levels;
  for (int64_t c = 1; c <= max_concurrency; c *= 2) levels.push_back(c);
  // A limit between two doublings (a search's conc-end of 48) is run itself.
  if (!levels.empty() && levels.back() != max_concurrency) levels.push_back(max_concurrency);
  for (const int64_t c : levels) {
    SweptPoint p;
    try {
      p = run(c);
    } catch (const InputError& e) {
      if (out.points.empty()) out.why_not = e.what();
      break;
    }
    p.concurrency = c;
    out.points.push_back(p);
    if (stop_after(p)) break;
  }
  return out;
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
  PlateauWatch plateau;
  int over_tpot = 0;
  SweepOutcome out = sweep_doubling(run, max_concurrency, [&](const SweptPoint& p) {
    over_tpot = limits && p.p99_tpot_ms > limits->tpot_ms ? over_tpot + 1 : 0;
    return plateau.flat_after(p) || over_tpot >= 2;
  });
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

std::optional<SweptPoint> point_at_interactivity(const std::vector<SweptPoint>& points,
                                                 double target, std::string* why_not) {
  std::optional<size_t> last_within;  // the last point (in sweep order) at or above the target
  std::optional<size_t> best_within;  // the highest throughput at or above the target
  for (size_t i = 0; i < points.size(); ++i) {
    if (points[i].intvty < target) break;
    last_within = i;
    if (!best_within || points[i].throughput > points[*best_within].throughput) best_within = i;
  }
  if (!last_within) {
    if (why_not != nullptr) {
      *why_not = points.empty() ? "no concurrency could be simulated"
                                : "no concurrency reaches " + fmt(target) + " tok/s/user (at " +
                                      std::to_string(points.front().concurrency) + ": " +
                                      fmt(points.front().intvty) + ")";
    }
    return std::nullopt;
  }
  SweptPoint out = points[*best_within];
  const size_t i = *last_within;
  if (i + 1 < points.size() && points[i].intvty > target && points[i + 1].intvty > 0 &&
      points[i].throughput > 0 && points[i + 1].throughput > 0) {
    const SweptPoint& a = points[i];
    const SweptPoint& b = points[i + 1];
    const double f =
        (std::log(a.intvty) - std::log(target)) / (std::log(a.intvty) - std::log(b.intvty));
    const double tput =
        std::exp(std::log(a.throughput) + f * (std::log(b.throughput) - std::log(a.throughput)));
    if (tput > out.throughput) {
      out = a;
      out.throughput = tput;
      out.intvty = target;
      out.p99_ttft_ms = a.p99_ttft_ms + f * (b.p99_ttft_ms - a.p99_ttft_ms);
      out.p99_tpot_ms = a.p99_tpot_ms + f * (b.p99_tpot_ms - a.p99_tpot_ms);
    }
  }
  return out;
}

RateSearch search_poisson_rate(const std::function<SweptPoint(double)>& run, double max_rate,
                               const LatencyLimits& limits) {
  RateSearch out;
  if (!(max_rate > 0)) {
    out.why_not = "no closed-loop throughput to start the rate search from";
    return out;
  }
  double lo = 0, hi = max_rate;  // highest rate within the limits so far; lowest beyond them
  const auto try_rate = [&](double rate) {
    SweptPoint p;
    bool ok = false;
    try {
      p = run(rate);
      ok = within(p, limits);
    } catch (const InputError& e) {
      if (out.why_not.empty()) out.why_not = e.what();
      return false;
    }
    p.rate = rate;
    out.points.push_back(p);
    if (ok && (!out.best || rate > out.points[*out.best].rate)) out.best = out.points.size() - 1;
    return ok;
  };
  if (try_rate(max_rate)) return out;
  for (int step = 0; step < kRateSearchSteps; ++step) {
    const double mid = 0.5 * (lo + hi);
    (try_rate(mid) ? lo : hi) = mid;
  }
  if (!out.best && out.why_not.empty()) {
    const SweptPoint& p = out.points.back();  // the lowest rate tried
    out.why_not = "no Poisson rate down to " + fmt(hi * 1e3) + " requests per 1000 s meets p99 " +
                  "TTFT <= " + fmt(limits.ttft_ms) + " ms and p99 TPOT <= " + fmt(limits.tpot_ms) +
                  " ms (there: TTFT " + fmt(p.p99_ttft_ms) + " ms, TPOT " + fmt(p.p99_tpot_ms) +
                  " ms)";
  }
  return out;
}

SweepOutcome sweep_to_interactivity(const std::function<SweptPoint(int64_t)>& run, double target,
                                    int64_t max_concurrency) {
  PlateauWatch plateau;
  return sweep_doubling(run, max_concurrency, [&](const SweptPoint& p) {
    return p.intvty < target || plateau.flat_after(p);
  });
}

int64_t max_concurrency_on(const RowPlan& plan, int64_t replica_chips) {
  for (const SearchedReplica& s : plan.searched) {
    if (s.replica_chips == replica_chips) return s.max_concurrency;
  }
  return kMaxSweepConcurrency;
}

std::vector<int64_t> swept_replicas(const RowPlan& plan, int64_t system_chips, double weight_bytes,
                                    double hbm_bytes) {
  if (plan.scenario == RowScenario::kBestThroughput && !plan.searched.empty()) {
    std::vector<int64_t> replicas;
    for (const SearchedReplica& s : plan.searched) replicas.push_back(s.replica_chips);
    return replicas;
  }
  if (plan.scenario == RowScenario::kBestThroughput ||
      plan.scenario == RowScenario::kAtInteractivity || plan.replica_published) {
    return {plan.replica_chips};
  }
  int64_t most =
      std::min(kMaxSweepReplicaChips, system_chips > 0 ? system_chips : plan.replica_chips);
  if (plan.row_chips > 0) most = std::min(most, plan.row_chips);
  most = std::max(most, plan.replica_chips);
  // The smallest replica whose HBM holds the weights with room for the KV cache.
  int64_t least = plan.replica_chips;
  while (least * 2 <= most &&
         weight_bytes > kMaxWeightShareOfHbm * hbm_bytes * static_cast<double>(least)) {
    least *= 2;
  }
  std::vector<int64_t> replicas;
  for (int64_t r = least; r <= most; r *= 2) replicas.push_back(r);
  return replicas;
}

SweptRow predict_swept_row(const RowPlan& plan, const engine::ServingHardware& hw,
                           int64_t prompts_per_client) {
  SweptRow out;
  out.plan = plan;
  const workloads::ModelConfig model = row_model(plan, config::DataPaths::from_environment());
  const std::vector<int64_t> replicas =
      swept_replicas(plan, hw.system_chips, model.weight_bytes().si(), hw.chip.hbm.capacity.si());
  // One point on `replica` chips: a closed loop of `concurrency` clients, or with `rate` > 0
  // Poisson arrivals at that rate with `concurrency` as the batch limit.
  const auto simulate = [&plan, &hw, prompts_per_client](int64_t replica, int64_t concurrency,
                                                         double rate) {
    RowPlan at = plan;
    at.replica_chips = replica;
    at.concurrency = concurrency;
    at.arrival_rate = rate;
    RowSimulator sim(at, hw, prompts_per_client);
    const RowPrediction r = sim.run(hw.efficiency);
    SweptPoint p;
    p.concurrency = concurrency;
    p.replica_chips = replica;
    p.rate = rate;
    p.throughput = r.throughput;
    p.intvty = r.intvty;
    p.p99_ttft_ms = r.p99_ttft_ms;
    p.p99_tpot_ms = r.p99_tpot_ms;
    return p;
  };
  const auto run_on = [&simulate](int64_t replica) {
    return [&simulate, replica](int64_t concurrency) { return simulate(replica, concurrency, 0); };
  };
  const auto predicted_at = [&out](const SweptPoint& p) {
    out.plan.replica_chips = p.replica_chips;
    out.plan.concurrency = p.concurrency;
    out.plan.arrival_rate = p.rate;
    out.predicted.throughput = p.throughput;
    out.predicted.intvty = p.intvty;
    out.predicted.p99_ttft_ms = p.p99_ttft_ms;
    out.predicted.p99_tpot_ms = p.p99_tpot_ms;
  };
  if (plan.scenario == RowScenario::kAtInteractivity) {
    const double target = plan.target_intvty.value_or(0);
    const SweepOutcome sweep =
        sweep_to_interactivity(run_on(plan.replica_chips), target, kMaxSweepConcurrency);
    out.points = sweep.points;
    std::string why_not = sweep.why_not;
    const std::optional<SweptPoint> p =
        point_at_interactivity(sweep.points, target, why_not.empty() ? &why_not : nullptr);
    if (!p) {
      throw InputError(SourceLocation{}, "",
                       why_not + " (" + std::to_string(plan.replica_chips) + "-chip replica)");
    }
    predicted_at(*p);
    return out;
  }
  std::string why_not;
  for (const int64_t replica : replicas) {
    const SweepOutcome sweep =
        sweep_concurrency(run_on(replica), plan.limits, max_concurrency_on(plan, replica));
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
  const bool poisson = plan.limits && (plan.scenario == RowScenario::kServer ||
                                       plan.scenario == RowScenario::kInteractive);
  if (!poisson) {
    predicted_at(out.points[*best]);
    return out;
  }
  // LoadGen's Poisson load on the closed loop's best replica and batch limit, from the
  // replica's highest closed-loop throughput (in requests per second) down.
  const SweptPoint chosen = out.points[*best];
  double max_rate = 0;
  for (const SweptPoint& p : out.points) {
    if (p.replica_chips != chosen.replica_chips || !(plan.osl > 0)) continue;
    max_rate = std::max(max_rate, p.throughput * static_cast<double>(p.replica_chips) /
                                      static_cast<double>(plan.osl));
  }
  const RateSearch search = search_poisson_rate(
      [&](double rate) { return simulate(chosen.replica_chips, chosen.concurrency, rate); },
      max_rate, *plan.limits);
  out.points.insert(out.points.end(), search.points.begin(), search.points.end());
  if (!search.best) {
    throw InputError(SourceLocation{}, "",
                     search.why_not + " (" + std::to_string(chosen.replica_chips) +
                         "-chip replica, batch limit " + std::to_string(chosen.concurrency) + ")");
  }
  predicted_at(search.points[*search.best]);
  return out;
}

}  // namespace scoville::validation
