// A schedule replayed flow by flow, for timelines: every transfer of every step (all-pairs steps
// expanded, repeats laid out one after another) with when it started, finished sending and was
// delivered, and the links it crossed. Timing is the same flow model NetworkModel uses without
// the symmetric reduction, so the replay's end equals time_schedule(schedule, false).time.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "models/network/collective.hpp"
#include "models/network/router.hpp"
#include "models/network/topology.hpp"

namespace scoville::models {

struct FlowRecord {
  int32_t src = 0;  // endpoint ids
  int32_t dst = 0;
  Bytes bytes;
  int64_t step = 0;  // index among the laid-out steps (repeats counted)
  Duration start;
  Duration transmitted;                           // last byte sent
  Duration delivered;                             // last byte arrived (transmitted + path latency)
  std::vector<std::pair<int32_t, double>> links;  // (link id, fraction of the flow)
};

struct StepSpan {
  std::string label;
  Duration start;
  Duration end;
  int64_t flows = 0;
};

struct Replay {
  std::vector<StepSpan> steps;
  std::vector<FlowRecord> flows;  // at most max_flows, the first ones in time
  int64_t flows_not_recorded = 0;
  Duration end;
};

// Steps run back to back: each starts when the previous one's last transfer is delivered.
// Throws InputError (key "chips") when one step would need more than kMaxReplayFlows flows.
constexpr int64_t kMaxReplayFlows = int64_t{1} << 20;
Replay replay_schedule(const Topology& topology, const Router& router, const Schedule& schedule,
                       size_t max_flows);

}  // namespace scoville::models
