// An optional window into the serving scheduler, for timelines (`serve --trace`): what each
// iteration ran, which sequences a preemption evicted and when a KV hand-over left and arrived.
// The scheduler only reports; an observer cannot change a decision, so results are bit-identical
// with and without one. Null by default (ContinuousBatchingScheduler::run, run_serving).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/base/units.hpp"
#include "sim/serving/iteration_cost_model.hpp"

namespace scoville::serving {

// One sequence's part of an iteration.
struct ObservedSequence {
  int64_t request = 0;  // index into the plan and the records
  SequencePhase phase = SequencePhase::kDecode;
  int64_t new_tokens = 0;
};

struct ObservedIteration {
  int pool = 0;  // index into ServingSystem::pools
  Duration start;
  Duration end;
  Energy energy;
  std::vector<ObservedSequence> sequences;  // in batch order
  int64_t kv_blocks_used = 0;               // held by the pool's sequences during the iteration
  int64_t running = 0;                      // sequences admitted to the pool
  int64_t waiting = 0;                      // sequences in the pool's queue (not admitted)
};

struct ObservedKvTransfer {
  int64_t request = 0;  // index into the plan and the records
  int from_pool = 0;
  int to_pool = 0;
  Duration start;    // the prefill iteration's end
  Duration arrival;  // when the decode pool holds the KV (the first token reaches the client)
  int64_t tokens = 0;
  Bytes bytes;
};

class SchedulerObserver {
 public:
  virtual ~SchedulerObserver() = default;
  // Called when an iteration is scheduled (its end is known then).
  virtual void on_iteration(const ObservedIteration& iteration) = 0;
  // A running sequence of `pool` lost its KV at `at` and went back to the queue (recompute).
  virtual void on_preemption(int pool, int64_t request, Duration at) = 0;
  virtual void on_kv_transfer(const ObservedKvTransfer& transfer) = 0;
};

}  // namespace scoville::serving
