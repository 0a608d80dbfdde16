#include "sim/serving/serving_config.hpp"

#include <algorithm>
#include <cmath>

#include "sim/base/error.hpp"
#include "sim/serving/scheduling_policy.hpp"

namespace scoville::serving {

double MtpConfig::expected_tokens_per_step() const {
  if (depth == 0) return 1.0;
  if (acceptance >= 1.0) return static_cast<double>(depth + 1);
  return (1.0 - std::pow(acceptance, static_cast<double>(depth + 1))) / (1.0 - acceptance);
}

bool ServingSystem::disaggregated() const {
  return pools.size() == 2 && pools[0].role != PoolRole::kColocated;
}

int64_t ServingSystem::total_chips() const {
  int64_t n = 0;
  for (const PoolConfig& p : pools) n += p.chips;
  return n;
}

int64_t ServingSystem::prefill_chips() const {
  int64_t n = 0;
  for (const PoolConfig& p : pools) n += p.role != PoolRole::kDecode ? p.chips : 0;
  return n;
}

int64_t ServingSystem::decode_chips() const {
  int64_t n = 0;
  for (const PoolConfig& p : pools) n += p.role != PoolRole::kPrefill ? p.chips : 0;
  return n;
}

namespace {

constexpr int64_t kMaxCount = int64_t{1} << 40;  // keeps token and block sums exact in int64

void validate_pool(const PoolConfig& p, const std::string& key, Diagnostics& d) {
  const SourceLocation where{};
  const SchedulerConfig& s = p.scheduler;
  if (p.chips < 1 || p.chips > kMaxCount) d.error(where, key + ".chips", "expected >= 1 chips");
  if (p.kv_capacity_blocks < 1 || p.kv_capacity_blocks > kMaxCount) {
    d.error(where, key + ".kv_capacity_blocks", "expected a positive number of KV blocks");
  }
  if (p.attention_dp < 1 || p.attention_dp > p.chips) {
    d.error(where, key + ".attention_dp", "expected 1 to chips attention-DP ranks");
  } else if (p.kv_capacity_blocks / p.attention_dp < 1) {
    d.error(where, key + ".kv_capacity_blocks",
            "expected at least one KV block per attention-DP rank (" +
                std::to_string(p.attention_dp) + " ranks)");
  }
  if (p.state_blocks_per_sequence < 0 || p.state_blocks_per_sequence > kMaxCount) {
    d.error(where, key + ".state_blocks_per_sequence", "expected a non-negative number of blocks");
  }
  double bounded_shares = 0.0;
  for (size_t i = 0; i < p.bounded_kv_layers.size(); ++i) {
    const models::BoundedKvLayers& b = p.bounded_kv_layers[i];
    const std::string k = key + ".bounded_kv_layers[" + std::to_string(i) + "]";
    if (!(b.share > 0.0 && b.share <= 1.0))
      d.error(where, k + ".share", "expected a share in (0, 1]");
    if (b.max_tokens < 1 || b.max_tokens > kMaxCount) {
      d.error(where, k + ".max_tokens", "expected a positive number of tokens");
    }
    if (b.share > 0.0 && b.share <= 1.0) bounded_shares += b.share;
  }
  if (bounded_shares > 1.0 + 1e-9) {
    d.error(where, key + ".bounded_kv_layers", "expected shares that sum to at most 1");
  }
  if (!(p.idle_power_per_chip.si() >= 0.0) || !std::isfinite(p.idle_power_per_chip.si())) {
    d.error(where, key + ".idle_power_per_chip", "expected a non-negative power");
  }
  if (s.max_num_seqs < 1 || s.max_num_seqs > kMaxCount) {
    d.error(where, key + ".max_num_seqs", "expected a positive number of sequences");
  }
  // The budget is split over the attention-DP ranks, each scheduling its own share.
  const int64_t ranks = std::max<int64_t>(1, p.attention_dp);
  if (s.max_num_batched_tokens < 1 || s.max_num_batched_tokens > kMaxCount) {
    d.error(where, key + ".max_num_batched_tokens", "expected a positive number of tokens");
  } else if (s.max_num_batched_tokens < ranks) {
    d.error(
        where, key + ".max_num_batched_tokens",
        "expected at least one token per attention-DP rank (" + std::to_string(ranks) + " ranks)");
  }
  if (s.kv_block_tokens < 1 || s.kv_block_tokens > kMaxCount) {
    d.error(where, key + ".kv_block_tokens", "expected a positive number of tokens per block");
  }
  if (s.mtp.depth < 0 || s.mtp.depth > 64) {
    d.error(where, key + ".mtp.depth", "expected a draft depth in [0, 64]");
  } else if (s.mtp.depth + 1 > s.max_num_batched_tokens / ranks) {
    d.error(where, key + ".mtp.depth",
            "depth + 1 verified positions exceed max_num_batched_tokens" +
                std::string(ranks > 1 ? " per attention-DP rank" : "") + ": no decode step fits");
  }
  if (!(s.mtp.acceptance >= 0.0 && s.mtp.acceptance <= 1.0)) {
    d.error(where, key + ".mtp.acceptance", "expected an acceptance rate in [0, 1]");
  }
  if (!(s.prefix_hit_rate >= 0.0 && s.prefix_hit_rate < 1.0)) {
    d.error(where, key + ".prefix_hit_rate", "expected a share of the prompt in [0, 1)");
  }
  if (!is_batching_policy(s.policy)) {
    d.error(where, key + ".policy",
            "expected " + list_of_choices(batching_policy_names()) + ", found '" + s.policy + "'");
  }
}

}  // namespace

namespace {

void validate_system(const ServingSystem& sys, Diagnostics& d) {
  const SourceLocation where{};
  const bool colocated = sys.pools.size() == 1 && sys.pools[0].role == PoolRole::kColocated;
  const bool split = sys.pools.size() == 2 && sys.pools[0].role == PoolRole::kPrefill &&
                     sys.pools[1].role == PoolRole::kDecode;
  if (!colocated && !split) {
    d.error(where, "system.pools",
            "expected one co-located pool, or a prefill pool followed by a decode pool");
  }
  for (size_t i = 0; i < sys.pools.size(); ++i) {
    validate_pool(sys.pools[i], "system.pools[" + std::to_string(i) + "]", d);
  }
  if (!is_handoff_policy(sys.handoff)) {
    d.error(
        where, "system.handoff",
        "expected " + list_of_choices(handoff_policy_names()) + ", found '" + sys.handoff + "'");
  }
  if (split) {
    if (!sys.kv_transfer_time) {
      d.error(where, "system.kv_transfer_time", "a disaggregated system needs a KV transfer model");
    }
    if (!(sys.kv_bytes_per_token.si() > 0.0) || !std::isfinite(sys.kv_bytes_per_token.si())) {
      d.error(where, "system.kv_bytes_per_token", "expected a positive size in bytes");
    }
    if (!(sys.state_bytes_per_sequence.si() >= 0.0) ||
        !std::isfinite(sys.state_bytes_per_sequence.si())) {
      d.error(where, "system.state_bytes_per_sequence", "expected a non-negative size in bytes");
    }
  }
}

}  // namespace

void validate(const ServingSystem& system) {
  Diagnostics d;
  validate_system(system, d);
  d.throw_if_any();
}

void validate(const ServingScenario& scenario) {
  Diagnostics d;
  const SourceLocation where{};
  validate_system(scenario.system, d);
  const MetricInputs& m = scenario.metrics;
  const auto positive = [&](const std::optional<Duration>& v, const char* key) {
    if (v && !(v->si() > 0.0)) d.error(where, key, "expected a positive duration");
  };
  positive(m.slo_ttft, "metrics.slo_ttft");
  positive(m.slo_tpot, "metrics.slo_tpot");
  positive(m.slo_e2el, "metrics.slo_e2el");
  if (m.tdp_per_chip && !(m.tdp_per_chip->si() > 0.0)) {
    d.error(where, "metrics.tdp_per_chip", "expected a positive power");
  }
  if (m.all_in_power_per_chip && !(m.all_in_power_per_chip->si() > 0.0)) {
    d.error(where, "metrics.all_in_power_per_chip", "expected a positive power");
  }
  if (!(m.pue >= 1.0) || !std::isfinite(m.pue)) {
    d.error(where, "metrics.pue", "expected a power usage effectiveness >= 1");
  }
  if (m.price_per_chip_hour && !(*m.price_per_chip_hour >= 0.0)) {
    d.error(where, "metrics.price_per_chip_hour", "expected a non-negative price");
  }
  d.throw_if_any();
}

}  // namespace scoville::serving
