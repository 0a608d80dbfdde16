// Totals of one serving run, for the metrics and for checking the scheduler's behaviour.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/base/units.hpp"
#include "sim/serving/serving_power.hpp"

namespace scoville::serving {

struct PoolStats {
  int64_t iterations = 0;
  Duration busy_time;            // sum of iteration times
  Energy iteration_energy;       // from the cost model, wasted work included
  Duration idle_time;            // window - busy_time (>= 0)
  Energy idle_energy;            // idle_power_per_chip x chips x idle_time
  int64_t prefill_tokens = 0;    // prompt tokens computed (recomputation included)
  int64_t decode_positions = 0;  // positions verified by decode steps (k + 1 each with MTP)
  int64_t decode_steps = 0;      // sequence-steps of decode
  int64_t drafted_tokens = 0;    // tokens the MTP draws granted, before capping at the output end
  int64_t max_batch_tokens = 0;  // largest iteration, in tokens
  int64_t max_batch_sequences = 0;
  int64_t preemptions = 0;
  int64_t wasted_tokens = 0;      // tokens whose KV was dropped by preemption (to be recomputed)
  int64_t prefix_hit_tokens = 0;  // prompt tokens found in the prefix cache (not computed)
  int64_t admitted_prompt_tokens = 0;  // prompt tokens of first admissions (hits included)
  // MTP: positions verified but not accepted, and their share of their iterations' energy
  // (each iteration's energy spread evenly over the positions it computed).
  int64_t rejected_positions = 0;
  Energy rejected_draft_energy;
  PoolPowerReport power;  // per phase: power by component, throttling, clock
};

struct SchedulerStats {
  std::vector<PoolStats> pools;  // as ServingSystem::pools
  Duration window_start;         // first request sent
  Duration window_end;           // last request finished
  int64_t max_in_flight = 0;     // most requests sent and not finished at one time
  int64_t kv_transfers = 0;
  Bytes kv_transfer_bytes;

  Duration window() const { return window_end - window_start; }
  Energy total_energy() const;
};

}  // namespace scoville::serving
