// Times schedules of transfers on a topology with the flow model: every step's transfers are
// routed (ECMP) and share links max-min fairly; a step ends when its last transfer is delivered.
//
// Symmetric reduction: a uniform all-pairs step over every endpoint of an endpoint-transitive
// topology is timed from the n-1 flows into endpoint 0 alone. Each stands for its class of n
// flows; its load on a link orbit O is n x (its fraction on O) / |O|, which is every link's load
// in O because the max-min rates are unique and therefore invariant under the automorphisms.
// Exact, not an approximation (the per-pair simulation is tested equal); O(n) flows, not O(n^2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/network/collective.hpp"
#include "models/network/flow_replay.hpp"
#include "models/network/router.hpp"
#include "models/network/topology.hpp"

namespace scoville::models {

struct StepResult {
  Duration time;          // one run of the step (repeat not applied)
  Energy energy;          // one run, all flows
  int64_t flows = 0;      // transfers the step stands for
  int64_t simulated = 0;  // flows the flow model handled
  bool symmetric = false;
};

struct ScheduleResult {
  Duration time;
  Energy energy;
  int64_t steps = 0;            // including repeats
  int64_t flows = 0;            // transfers, including repeats
  int64_t simulated_flows = 0;  // flows the flow model handled (repeats simulated once)
  bool symmetric = false;       // any step used the symmetric reduction
};

struct CollectiveResult {
  std::string collective;
  std::string algorithm;
  // With a collective library (Topology::collective_library): the protocol ("" when the
  // algorithm has its own), the library's time (launch, per-step handshakes, NVLS or custom
  // kernel latency) and the protocol's wire efficiency. timing.time = library_time + the wire
  // time of the algorithm's schedule expanded for size / efficiency bytes.
  std::string protocol;
  Duration library_time;
  double efficiency = 1.0;
  Bytes size;
  int64_t ranks = 0;
  ScheduleResult timing;
  Bandwidth algbw;  // size / time
  Bandwidth busbw;  // algbw x the collective's bus factor
};

class NetworkModel {
 public:
  explicit NetworkModel(const Topology& topology) : topology_(&topology), router_(topology) {}

  // `use_symmetry` false forces a flow per pair (for checking the reduction).
  StepResult time_step(const Step& step, bool use_symmetry = true) const;
  ScheduleResult time_schedule(const Schedule& schedule, bool use_symmetry = true) const;

  // Runs `collective` with `algorithm` (empty: the policy's choice, the fastest applicable
  // algorithm, ties to the first registered). With a collective library every (algorithm,
  // protocol) pair the library offers is a candidate and the policy is NCCL's tuner: the least
  // predicted time. Throws InputError for an unknown or inapplicable algorithm.
  CollectiveResult run_collective(const std::string& collective, const Communicator& comm,
                                  Bytes size, const std::string& algorithm = "",
                                  bool use_symmetry = true) const;

  // false: leave out the serving stacks' custom all-reduce kernels (one_shot, two-shot direct)
  // and time NCCL alone, as nccl-tests measures it. Default true: what serving runs.
  void set_custom_kernels(bool on) { custom_kernels_ = on; }

  const Topology& topology() const { return *topology_; }
  const Router& router() const { return router_; }

 private:
  StepResult time_symmetric(const Step& step) const;
  StepResult time_flows(const std::vector<Transfer>& transfers) const;

  const Topology* topology_;
  Router router_;
  bool custom_kernels_ = true;
};

// The flows of a timed collective, replayed step by step on the topology for a timeline: the
// algorithm `result` chose, expanded for the bytes its protocol puts on the wire
// (size / efficiency), as its timing was computed. At most `max_flows` flows per step
// (InputError, key "chips", beyond).
Replay replay_collective(const Topology& topology, const Communicator& comm,
                         const CollectiveResult& result, size_t max_flows);

}  // namespace scoville::models
