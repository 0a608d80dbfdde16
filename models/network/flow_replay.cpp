#include "models/network/flow_replay.hpp"

#include "models/network/flow_model.hpp"
#include "sim/base/error.hpp"

namespace scoville::models {

namespace {

std::vector<Transfer> transfers_of(const Step& step) {
  std::vector<Transfer> out = step.transfers;
  const auto members = static_cast<int64_t>(step.all_pairs_members.size());
  if (members * (members - 1) > kMaxReplayFlows) {
    throw InputError(SourceLocation{}, "chips",
                     std::to_string(members) + " ranks exchanging all-pairs need " +
                         std::to_string(members * (members - 1)) +
                         " flows per step, too many to show one by one in a timeline");
  }
  for (int32_t a : step.all_pairs_members) {
    for (int32_t b : step.all_pairs_members) {
      if (a != b) out.push_back({a, b, step.all_pairs_bytes});
    }
  }
  return out;
}

}  // namespace

Replay replay_schedule(const Topology& topology, const Router& router, const Schedule& schedule,
                       size_t max_flows) {
  std::vector<Bandwidth> capacity;
  for (const Link& l : topology.links()) capacity.push_back(l.bandwidth);
  Replay out;
  Duration origin;
  int64_t index = 0;
  for (const Step& step : schedule) {
    const std::vector<Transfer> transfers = transfers_of(step);
    std::vector<Route> routes;
    FlowModel model(capacity);
    for (const Transfer& t : transfers) {
      routes.push_back(router.route(t.src, t.dst));
      model.add_flow(FlowDemand{routes.back().links, t.bytes, routes.back().latency});
    }
    const Duration length = model.run_to_completion();
    // A repeated step takes the same time each time: time it once, lay it out `repeat` times.
    for (int64_t k = 0; k < step.repeat; ++k, ++index) {
      out.steps.push_back(
          {step.label, origin, origin + length, static_cast<int64_t>(transfers.size())});
      for (size_t f = 0; f < transfers.size(); ++f) {
        if (out.flows.size() >= max_flows) {
          ++out.flows_not_recorded;
          continue;
        }
        const auto id = static_cast<int32_t>(f);
        out.flows.push_back(FlowRecord{transfers[f].src, transfers[f].dst, transfers[f].bytes,
                                       index, origin, origin + model.transmitted_at(id),
                                       origin + model.delivered_at(id), routes[f].links});
      }
      origin += length;
    }
  }
  out.end = origin;
  return out;
}

}  // namespace scoville::models
