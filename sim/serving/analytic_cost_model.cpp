#include "sim/serving/analytic_cost_model.hpp"

#include <algorithm>
#include <vector>

#include "sim/base/error.hpp"

namespace scoville::serving {

AnalyticCostModel::AnalyticCostModel(AnalyticCostParams params) : params_(params) {
  Diagnostics d;
  const auto check = [&](double v, const char* key) {
    if (!(v >= 0.0)) d.error({}, std::string("cost_model.") + key, "expected a non-negative value");
  };
  if (!(params_.fixed.si() > 0.0)) d.error({}, "cost_model.fixed", "expected a positive duration");
  check(params_.prefill_token_time.si(), "prefill_token_time");
  check(params_.decode_sequence_time.si(), "decode_sequence_time");
  check(params_.decode_token_time.si(), "decode_token_time");
  check(params_.kv_token_time.si(), "kv_token_time");
  check(params_.pool_power.si(), "pool_power");
  check(params_.energy_per_token.si(), "energy_per_token");
  d.throw_if_any();
}

IterationCost AnalyticCostModel::cost(const IterationBatch& batch) const {
  // Attention runs per rank on 1 / attention_dp of the chips; the iteration waits for the rank
  // with the most KV to read.
  const int64_t ranks = std::max<int64_t>(1, batch.attention_dp);
  std::vector<int64_t> per_rank(static_cast<size_t>(ranks), 0);
  for (const SequenceWork& s : batch.sequences) {
    const int64_t r = std::min(std::max<int64_t>(0, s.rank), ranks - 1);
    per_rank[static_cast<size_t>(r)] += s.context_after;
  }
  const int64_t kv_tokens = ranks * *std::max_element(per_rank.begin(), per_rank.end());
  const int64_t prefill = batch.prefill_tokens();
  const int64_t decode = batch.decode_tokens();
  IterationCost c;
  c.breakdown = {
      {"fixed", params_.fixed},
      {"prefill", params_.prefill_token_time * static_cast<double>(prefill)},
      {"decode_sequences",
       params_.decode_sequence_time * static_cast<double>(batch.decode_sequences())},
      {"decode_tokens", params_.decode_token_time * static_cast<double>(decode)},
      {"kv_read", params_.kv_token_time * static_cast<double>(kv_tokens)},
  };
  for (const auto& part : c.breakdown) c.time += part.second;
  c.energy = params_.pool_power * c.time +
             params_.energy_per_token * static_cast<double>(prefill + decode);
  // For power management: pool_power is the static part, the per-token energy is on-chip
  // dynamic, and the per-token compute terms are what a lower clock stretches.
  IterationPowerParts parts;
  parts.energy.static_energy = params_.pool_power * c.time;
  parts.energy.matrix = params_.energy_per_token * static_cast<double>(prefill + decode);
  parts.clock_bound_time = params_.prefill_token_time * static_cast<double>(prefill) +
                           params_.decode_token_time * static_cast<double>(decode);
  c.power = parts;
  return c;
}

}  // namespace scoville::serving
