// What a serving study needs besides the hardware's cost model: the requests, the pools and their
// scheduler limits, and the inputs of the per-chip / per-kW / per-dollar metrics. Plain data; the
// YAML scenario reader (later) fills it, tests fill it directly. validate() reports every problem
// at once as InputError with the key path of the field.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/kv/kv_block_manager.hpp"
#include "models/power/system_power.hpp"
#include "sim/base/units.hpp"
#include "sim/serving/iteration_cost_model.hpp"
#include "sim/serving/serving_power.hpp"
#include "workloads/requests/request_pattern.hpp"

namespace scoville::serving {

// Multi-token prediction / speculative decoding. Each decode step verifies depth + 1 positions;
// each draft is accepted with probability `acceptance`, independently, until the first rejection
// (the standard model of Leviathan et al., 2023). Tokens gained per step: 1 + accepted drafts,
// with expectation (1 - a^(k+1)) / (1 - a) (k + 1 when a = 1).
struct MtpConfig {
  enum class Mode {
    kExpected,  // each sequence gains the expectation per step, carried as a fraction
    kSampled,   // each step draws the accepted drafts from RngStream "serving.mtp"
  };
  int64_t depth = 0;  // 0: no MTP
  double acceptance = 0.0;
  Mode mode = Mode::kExpected;

  double expected_tokens_per_step() const;
};

// vLLM-style limits of one engine (pool).
struct SchedulerConfig {
  int64_t max_num_seqs = 256;             // sequences in a batch
  int64_t max_num_batched_tokens = 8192;  // token budget of one iteration (prefill + decode)
  bool chunked_prefill = true;            // split prompts across iterations within the budget
  // Which running sequences an iteration serves first (sim/serving/scheduling_policy.hpp):
  // "fcfs" (vLLM v1) or "decode-first" (TensorRT-LLM).
  std::string policy = "fcfs";
  // Prefix caching (vLLM's automatic prefix caching, SGLang's radix cache): a request admitted for
  // the first time skips the prompt tokens already cached, in whole KV blocks, and at least its
  // last prompt token is computed. With `prefix_caching` on, a request whose trace gives its
  // prefix blocks (Mooncake hash_ids) hits on the leading blocks an earlier request has
  // prefilled (the cache holds every block seen: an upper bound); any other request hits on
  // `prefix_hit_rate` of its prompt (a shared system prompt, say). Off by default: InferenceX's
  // random prompts share nothing. The cached tokens still take KV blocks in the request's account
  // (shared blocks are not deduplicated: a lower bound on free KV).
  bool prefix_caching = false;
  double prefix_hit_rate = 0.0;  // in [0, 1)
  // A disaggregated system's hand-off policy: the engine builders copy it to
  // ServingSystem::handoff (one per system, not per pool).
  std::string handoff = "queue-at-decode";
  int64_t kv_block_tokens = 16;  // tokens per KV block
  MtpConfig mtp;
};

struct PoolConfig {
  std::string name;
  PoolRole role = PoolRole::kColocated;
  int64_t chips = 1;
  int64_t kv_capacity_blocks = 1 << 20;  // KV blocks the pool holds, all its chips together
  // Attention-DP ranks (the mapping's attn_dp): each holds kv_capacity_blocks / attention_dp
  // blocks and its own sequences; all step together (docs/serving.md, attention-DP).
  int64_t attention_dp = 1;
  // KV blocks each admitted sequence holds whatever its length: a linear-attention model's
  // recurrent state in blocks of the same bytes (pool_state_blocks_per_sequence); 0 for models
  // whose cache grows with the context alone.
  int64_t state_blocks_per_sequence = 0;
  // Layers whose cache stops growing at a bound (sliding window, attention chunk): a sequence
  // holds their part of its blocks only up to that bound (pool_bounded_kv_layers); empty when
  // every KV layer keeps the whole context.
  std::vector<models::BoundedKvLayers> bounded_kv_layers;
  Power idle_power_per_chip;  // drawn while the pool runs no iteration
  PoolPower power;            // DVFS and cap controller (not managed: none)
  SchedulerConfig scheduler;
};

// A finished prefill's KV cache moving to the decode pool.
struct KvTransfer {
  int64_t request_id = 0;
  int64_t tokens = 0;  // tokens whose KV moves
  Bytes bytes;  // the prefill pool's KV of the sequence (bounded layers to their bound) + its state
};
// The network's answer: how long the transfer takes (the systems issue's KV placement and
// topology plug in here). Must return a non-negative, finite duration.
using KvTransferTime = std::function<Duration(const KvTransfer&)>;

struct ServingSystem {
  // One kColocated pool, or one kPrefill pool and one kDecode pool (disaggregated).
  std::vector<PoolConfig> pools;
  Bytes kv_bytes_per_token;         // disaggregated: sizes the KV handoff
  Bytes state_bytes_per_sequence;   // disaggregated: a linear-attention state moves with the KV
  KvTransferTime kv_transfer_time;  // disaggregated: required
  // Disaggregated: when the prefill pool may start a request (sim/serving/scheduling_policy.hpp):
  // "queue-at-decode" admits freely and prefilled requests wait for a decode slot;
  // "reserve-decode-slot" starts prefill only with one of the decode pool's max_num_seqs slots
  // held until the request finishes (TensorRT-LLM under Dynamo's decode-first flow, SGLang's
  // decode-side pre-allocation), so a full decode pool queues requests before their first token
  // rather than between tokens (docs/serving.md).
  std::string handoff = "queue-at-decode";

  bool disaggregated() const;
  int64_t total_chips() const;
  int64_t prefill_chips() const;  // chips that run prefill (all chips when co-located)
  int64_t decode_chips() const;   // chips that run decode (all chips when co-located)
};

// Inputs of the derived metrics. Absent optionals leave their metrics out.
struct MetricInputs {
  // Goodput service-level objectives (vLLM --goodput): a request is good when it meets every
  // objective given. No objective given: goodput is not reported.
  std::optional<Duration> slo_ttft;
  std::optional<Duration> slo_tpot;
  std::optional<Duration> slo_e2el;
  std::optional<Power> tdp_per_chip;           // package TDP: tput_per_kw_tdp
  std::optional<Power> all_in_power_per_chip;  // InferenceX all-in provisioned power per chip
  double pue = 1.0;                            // applied to all_in_power_per_chip
  // A system file's power section (hosts, NICs, switches, pools, PUE) over `system_chips`
  // chips: all-in figures from it (the CLI sets it only when all_in_power_per_chip is not
  // given; when both are, this one is used).
  std::optional<models::SystemPowerParams> system_power;
  int64_t system_chips = 0;
  std::optional<double> price_per_chip_hour;  // USD per chip-hour: cost_per_mtok
};

struct ServingScenario {
  workloads::RequestPattern workload;
  ServingSystem system;
  MetricInputs metrics;
};

// Checks everything that does not need the requests: limits, pools, MTP, metric inputs.
void validate(const ServingScenario& scenario);
// The system's part of it (pools, limits, KV handoff).
void validate(const ServingSystem& system);

}  // namespace scoville::serving
