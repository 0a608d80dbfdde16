// Flow-level network timing: max-min fair sharing of resources (links, or orbits of links in
// the symmetric reduction) by progressive filling, recomputed at every arrival and completion.
//
// A flow is `bytes` at `weight`-free rate r; it loads resource j with usage_j * r, where usage is
// the fraction of the flow crossing link j (ECMP splits) or, for a flow standing for a class of
// symmetric flows, the class's load per link of an orbit. Its transmission ends when its bytes
// have been sent; it is delivered `latency` later (the per-hop alpha of its path), so a small
// message is latency-bound and a large one bandwidth-bound. Pure C++; NetworkModule drives it in
// SystemC time.
#pragma once

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "sim/base/units.hpp"

namespace scoville::models {

struct FlowDemand {
  std::vector<std::pair<int32_t, double>> usage;  // (resource, load per unit of flow rate)
  Bytes bytes;
  Duration latency;
};

class FlowModel {
 public:
  explicit FlowModel(std::vector<Bandwidth> capacities);

  // Starts a flow at the current time; returns its id (0, 1, 2, ... in call order).
  int32_t add_flow(FlowDemand demand);
  // Time at which the next active flow finishes transmitting (infinity when none is active).
  // Recomputes the max-min rates first if flows arrived or left.
  Duration next_completion();
  // Moves time forward to `t` (no later than next_completion()); returns the flows whose
  // transmission ended at `t`, in id order.
  std::vector<int32_t> advance(Duration t);

  Duration now() const { return Duration(now_); }
  bool idle() const { return active_.empty(); }
  Bandwidth rate(int32_t flow) const { return Bandwidth(flows_[static_cast<size_t>(flow)].rate); }
  Duration transmitted_at(int32_t flow) const {
    return Duration(flows_[static_cast<size_t>(flow)].done_at);
  }
  Duration delivered_at(int32_t flow) const;
  int64_t rate_updates() const { return rate_updates_; }

  // Runs every flow added so far to completion; returns the time the last one is delivered.
  Duration run_to_completion();

 private:
  struct Flow {
    FlowDemand demand;
    double remaining = 0;  // bytes
    double rate = 0;       // B/s
    double done_at = std::numeric_limits<double>::infinity();
  };
  void assign_rates();

  std::vector<double> capacity_;
  std::vector<Flow> flows_;
  std::vector<int32_t> active_;
  double now_ = 0;
  bool rates_valid_ = true;
  int64_t rate_updates_ = 0;
};

}  // namespace scoville::models
