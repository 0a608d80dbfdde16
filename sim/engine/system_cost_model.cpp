#include "sim/engine/system_cost_model.hpp"

#include <algorithm>
#include <cmath>

namespace scoville::engine {

namespace {

template <typename Q>
Q mix(Q a, Q b, double w) {
  return Q(a.si() + (b.si() - a.si()) * w);
}

int64_t rounded_mean(int64_t sum, int64_t count) { return (sum + count / 2) / count; }

}  // namespace

SystemIterationResult interpolate(const SystemIterationResult& a, const SystemIterationResult& b,
                                  double w) {
  SystemIterationResult r = a;
  r.time = mix(a.time, b.time, w);
  r.hardware_time = mix(a.hardware_time, b.hardware_time, w);
  r.software_time = mix(a.software_time, b.software_time, w);
  r.compute_time = mix(a.compute_time, b.compute_time, w);
  r.hbm_time = mix(a.hbm_time, b.hbm_time, w);
  r.local_network_time = mix(a.local_network_time, b.local_network_time, w);
  r.scale_out_time = mix(a.scale_out_time, b.scale_out_time, w);
  r.kv_transfer_time = mix(a.kv_transfer_time, b.kv_transfer_time, w);
  r.kv_transfer_energy = mix(a.kv_transfer_energy, b.kv_transfer_energy, w);
  r.kv_transfer_bytes = mix(a.kv_transfer_bytes, b.kv_transfer_bytes, w);
  r.compute_energy = mix(a.compute_energy, b.compute_energy, w);
  r.hbm_energy = mix(a.hbm_energy, b.hbm_energy, w);
  r.local_network_energy = mix(a.local_network_energy, b.local_network_energy, w);
  r.scale_out_energy = mix(a.scale_out_energy, b.scale_out_energy, w);
  r.static_energy = mix(a.static_energy, b.static_energy, w);
  r.energy = mix(a.energy, b.energy, w);
  r.flops = mix(a.flops, b.flops, w);
  r.hbm_bytes = mix(a.hbm_bytes, b.hbm_bytes, w);
  r.network_bytes = mix(a.network_bytes, b.network_bytes, w);
  return r;
}

SystemCostModel::SystemCostModel(SystemSetup setup, IterationCacheOptions cache)
    : engine_(std::make_unique<SystemEngine>(std::move(setup))), options_(cache) {}

std::pair<int64_t, int64_t> SystemCostModel::bracket(int64_t context) const {
  if (!options_.enabled || context <= options_.exact_context) return {context, context};
  // Grid: exact_context x 2^(i / points_per_doubling), rounded to whole tokens.
  const double base = static_cast<double>(options_.exact_context);
  const double steps = static_cast<double>(options_.points_per_doubling);
  const double i = std::floor(std::log2(static_cast<double>(context) / base) * steps);
  int64_t lo = std::llround(base * std::exp2(i / steps));
  int64_t hi = std::llround(base * std::exp2((i + 1) / steps));
  // Rounding of the logarithm may put context just outside [lo, hi].
  if (lo > context) lo = context;
  if (hi < context) hi = context;
  if (lo == context) hi = context;
  return {lo, hi};
}

SystemIterationResult SystemCostModel::simulate(const workloads::IterationShape& shape) const {
  const auto key =
      std::make_tuple(static_cast<int>(shape.phase), shape.batch, shape.new_tokens, shape.context);
  const auto it = cache_.find(key);
  if (it != cache_.end() && options_.enabled) {
    ++cache_hits_;
    return it->second;
  }
  ++engine_runs_;
  const SystemIterationResult r = engine_->run(shape);
  if (options_.enabled) cache_.emplace(key, r);
  return r;
}

SystemIterationResult SystemCostModel::run(const workloads::IterationShape& shape) const {
  const auto [lo, hi] = bracket(shape.context);
  // A prefill chunk's context includes its own tokens: a grid point below them is no shape.
  if (lo == hi || lo < shape.new_tokens) return simulate(shape);
  workloads::IterationShape a = shape;
  workloads::IterationShape b = shape;
  a.context = lo;
  b.context = hi;
  const double w = static_cast<double>(shape.context - lo) / static_cast<double>(hi - lo);
  return interpolate(simulate(a), simulate(b), w);
}

serving::IterationCost SystemCostModel::cost(const serving::IterationBatch& batch) const {
  const workloads::ParallelDegrees& deg = engine_->setup().mapping.degrees;
  const int64_t min_batch = deg.dp * deg.attn_dp;
  serving::IterationCost out;
  Duration compute, hbm, local, scale_out, kv, software;
  // For power management: the engine does not split on-chip energy by unit, so all of it is
  // carried as `matrix` (it scales with V^2 as a whole); network and KV moves as `link`.
  serving::IterationPowerParts parts;
  for (const serving::SequencePhase phase :
       {serving::SequencePhase::kPrefill, serving::SequencePhase::kDecode}) {
    int64_t count = 0;
    int64_t new_tokens = 0;
    int64_t context = 0;
    for (const serving::SequenceWork& s : batch.sequences) {
      if (s.phase != phase) continue;
      ++count;
      new_tokens += s.new_tokens;
      context += s.context_after;
    }
    if (count == 0) continue;
    workloads::IterationShape shape;
    shape.phase = phase == serving::SequencePhase::kPrefill ? workloads::Phase::kPrefill
                                                            : workloads::Phase::kDecode;
    shape.batch = std::max(count, min_batch);
    shape.new_tokens = std::max<int64_t>(1, rounded_mean(new_tokens, count));
    shape.context = std::max(shape.new_tokens, rounded_mean(context, count));
    const SystemIterationResult r = run(shape);
    out.time += r.time;
    out.energy += r.energy;
    compute += r.compute_time;
    hbm += r.hbm_time;
    local += r.local_network_time;
    scale_out += r.scale_out_time;
    kv += r.kv_transfer_time;
    software += r.software_time;
    parts.energy.matrix += r.compute_energy;
    parts.energy.hbm += r.hbm_energy;
    parts.energy.link += r.local_network_energy + r.scale_out_energy + r.kv_transfer_energy;
    parts.energy.static_energy += r.static_energy;
    parts.clock_bound_time += r.compute_time;
  }
  out.power = parts;
  out.breakdown = {{"compute", compute},     {"hbm", hbm},        {"local_network", local},
                   {"scale_out", scale_out}, {"kv_transfer", kv}, {"software", software}};
  return out;
}

}  // namespace scoville::engine
