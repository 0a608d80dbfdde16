// The serving layer's discrete-event loop: continuous batching on one co-located pool, or on a
// prefill pool and a decode pool with a KV handoff between them. Time advances by iteration costs
// from the IterationCostModel; requests sent while a pool runs join at its next iteration
// boundary. The policy (vLLM v1's, see docs/serving.md):
//   - each iteration first serves the running sequences in admission order (decodes take 1 token,
//     or depth + 1 with MTP; a partly prefilled prompt takes the next chunk that fits the token
//     budget), then admits waiting sequences FIFO while the batch has room in sequences, tokens
//     and KV blocks; no admission in an iteration that had to preempt;
//   - a running sequence that needs a KV block when none is free preempts the most recently
//     admitted running sequence (possibly itself) by recompute: its blocks are freed, its work is
//     wasted, and it goes back to the front of the waiting queue to prefill its prompt and the
//     tokens it has generated so far;
//   - without chunked prefill a prompt is admitted only whole, within the token budget;
//   - KV blocks are held in models::KvBlockManager (one per attention-DP rank): admission takes
//     the first step's blocks, growth preempts the youngest sequences of the rank (on_evict);
//   - attention-DP (PoolConfig::attention_dp > 1): a sequence joins the least loaded rank when
//     admitted (KV blocks, then sequences, then lowest index) and preempts only on its rank; the
//     batch carries each sequence's rank, and the cost model prices the most loaded rank's
//     attention beside the shared FFN / MoE work of all ranks;
//   - disaggregated: the prefill pool computes the prompt and the first token, then the KV moves
//     to the decode pool (ServingSystem::kv_transfer_time); the client receives the first token
//     when it arrives there.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/serving/iteration_cost_model.hpp"
#include "sim/serving/request_record.hpp"
#include "sim/serving/scheduler_observer.hpp"
#include "sim/serving/scheduler_stats.hpp"
#include "sim/serving/serving_config.hpp"
#include "workloads/requests/request.hpp"

namespace scoville::serving {

struct ServingTrace {
  std::vector<RequestRecord> records;  // in plan order
  SchedulerStats stats;
};

class ContinuousBatchingScheduler {
 public:
  // Keeps references to both arguments; run() validates the system (InputError).
  ContinuousBatchingScheduler(const ServingSystem& system, const IterationCostModel& cost_model);

  // Serves every request of the plan to completion. Requests that can never be served (longer
  // than a pool's KV capacity, or than the token budget without chunked prefill) are refused up
  // front with InputError naming the request. `seed` drives the sampled MTP acceptance.
  // `observer`, when given, is told what happens (timelines); it changes no result.
  ServingTrace run(const workloads::RequestPlan& plan, uint64_t seed,
                   SchedulerObserver* observer = nullptr) const;

 private:
  const ServingSystem& system_;
  const IterationCostModel& cost_model_;
};

}  // namespace scoville::serving
