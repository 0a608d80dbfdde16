#include "sim/engine/inferencex_sweep.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <utility>

#include "sim/base/error.hpp"
#include "sim/config/mapping_loader.hpp"
#include "sim/engine/serving_engines.hpp"

namespace scoville::engine {

namespace {

workloads::MappingConfig single_pool(int64_t tp, int64_t ep, int64_t attn_dp) {
  workloads::PoolMapping p;
  p.pool = "default";
  p.chips = tp;
  p.degrees.tp = tp;
  p.degrees.ep = ep;
  p.degrees.attn_dp = attn_dp;
  p.where = SourceLocation{"<command line>", 0, 0};
  return workloads::MappingConfig{{p}};
}

workloads::PoolMapping pool_of(const std::string& name, int64_t chips, bool moe, int64_t attn_dp) {
  workloads::PoolMapping p = single_pool(chips, moe ? chips : 1, attn_dp).pools.front();
  p.pool = name;
  return p;
}

}  // namespace

std::vector<workloads::MappingConfig> disaggregated_mappings(bool moe, int64_t chips) {
  std::vector<workloads::MappingConfig> out;
  if (chips < 2) return out;
  int64_t top = 1;
  while (top * 2 <= chips / 2) top *= 2;
  std::vector<std::pair<int64_t, int64_t>> splits;  // (prefill, decode), no repeats
  for (int64_t decode : {top, top / 2}) {
    for (int64_t prefill : {decode, decode / 2, decode / 4}) {
      const std::pair<int64_t, int64_t> split{prefill, decode};
      if (decode < 1 || prefill < 1 || prefill + decode > chips) continue;
      if (std::find(splits.begin(), splits.end(), split) != splits.end()) continue;
      splits.push_back(split);
    }
  }
  for (const auto& [prefill, decode] : splits) {
    const std::vector<int64_t> attn =
        decode > 1 ? std::vector<int64_t>{1, decode} : std::vector<int64_t>{1};
    for (int64_t attn_dp : attn) {
      out.push_back(workloads::MappingConfig{
          {pool_of("prefill", prefill, moe, 1), pool_of("decode", decode, moe, attn_dp)}});
    }
  }
  return out;
}

std::vector<workloads::MappingConfig> sweep_mappings(const MappingChoice& choice,
                                                     const workloads::ModelConfig& model,
                                                     int64_t chips) {
  if (!choice.mapping_file.empty()) return {config::load_mapping(choice.mapping_file)};
  if (!choice.search) {
    return {single_pool(choice.tp != 0 ? choice.tp : chips, choice.ep, choice.attn_dp)};
  }
  const bool moe = model.ffn().type == workloads::FfnType::kMoe;
  std::vector<workloads::MappingConfig> out;
  for (int64_t tp = 1; tp <= chips; tp *= 2) {
    const std::vector<int64_t> eps =
        moe && tp > 1 ? std::vector<int64_t>{1, tp} : std::vector<int64_t>{1};
    const std::vector<int64_t> attn =
        tp > 1 ? std::vector<int64_t>{1, tp} : std::vector<int64_t>{1};
    for (int64_t ep : eps) {
      for (int64_t attn_dp : attn) out.push_back(single_pool(tp, ep, attn_dp));
    }
    // More chips than EP can split the experts over (ep = tp refused): attention-DP over all
    // of them, the experts replicated over tp / ep groups of the widest ep that divides both.
    const int64_t wide_ep = moe ? std::gcd(model.ffn().experts, tp) : 1;
    if (wide_ep > 1 && wide_ep < tp) out.push_back(single_pool(tp, wide_ep, tp));
  }
  for (workloads::MappingConfig& m : disaggregated_mappings(moe, chips)) {
    out.push_back(std::move(m));
  }
  return out;
}

SweepResult run_closed_loop_sweep(const ServingHardware& hw, const std::string& cycle_system,
                                  const workloads::ModelConfig& model,
                                  const std::vector<workloads::MappingConfig>& mappings,
                                  const serving::SchedulerConfig& scheduler,
                                  const ClosedLoopLoad& load, bool skip_infeasible,
                                  SweepHooks& hooks) {
  SweepResult out;
  std::vector<serving::ServingPoint>& points = out.points;
  std::vector<std::string>& skipped = out.skipped;
  const bool cycle = !cycle_system.empty();
  for (const workloads::MappingConfig& mapping : mappings) {
    const std::string label = serving::mapping_label(mapping);
    std::optional<ServingEngine> engine;
    try {
      engine.emplace(
          cycle ? make_cycle_engine(hw, cycle_system, model, mapping.pools.front(), scheduler)
                : make_engine(hw, model, mapping, scheduler));
    } catch (const InputError& e) {
      if (!skip_infeasible) throw;
      skipped.push_back(label + ": " + e.what());
      for (size_t i = 0; i < load.concurrency.size(); ++i) hooks.step(label);
      continue;
    }
    for (int64_t n : load.concurrency) {
      serving::ServingScenario scenario;
      scenario.workload.kind = workloads::ArrivalKind::kClosedLoop;
      scenario.workload.concurrency = n;
      scenario.workload.num_prompts = load.prompts_per_client * n;
      scenario.workload.lengths = {load.isl, load.osl, load.range_ratio};
      scenario.system = engine->system;
      for (serving::PoolConfig& p : scenario.system.pools) {
        p.scheduler.max_num_seqs = load.max_num_seqs != 0 ? load.max_num_seqs : n;
        // max_num_batched_tokens: per attention-DP rank, set by make_engine.
      }
      scenario.metrics.tdp_per_chip = hw.chip.power.tdp;
      set_power_inputs(hw, scenario.metrics);
      serving::ServingPoint point;
      point.mapping = label;
      point.concurrency = n;
      const workloads::PoolMapping& last = mapping.pools.back();
      point.tp = last.degrees.tp;
      point.ep = last.degrees.ep;
      point.attn_dp = last.degrees.attn_dp;
      point.chips = scenario.system.total_chips();
      // An observer only watches: the results are the same with and without it.
      serving::SchedulerObserver* observer = hooks.observer(label, n);
      try {
        point.result = serving::run_serving(scenario, *engine->cost, load.seed, observer);
      } catch (const InputError& e) {
        if (!skip_infeasible) throw;
        skipped.push_back(label + " at concurrency " + std::to_string(n) + ": " + e.what());
        hooks.step(label);
        continue;
      }
      if (observer != nullptr) hooks.observed(scenario, point);
      serving::fill_point_stats(point);
      // The per-token gaps made the ITL metrics (computed above) and nothing after them reads
      // them: kept for every point of a search they were most of its memory (8 KB a request).
      for (serving::RequestRecord& r : point.result.trace.records) {
        std::vector<Duration>().swap(r.itl);
      }
      points.push_back(std::move(point));
      hooks.step(label + " N=" + std::to_string(n));
    }
  }
  if (points.empty()) {
    std::string why;
    for (const std::string& s : skipped) why += "\n  " + s;
    throw InputError(SourceLocation{"<command line>", 0, 0}, "--search",
                     "no feasible mapping:" + why);
  }
  serving::mark_pareto(points);
  return out;
}

}  // namespace scoville::engine
