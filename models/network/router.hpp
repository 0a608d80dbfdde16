// Minimal routing with equal-cost multipath: a flow from s to d follows every least-cost path,
// split evenly at each node among its next hops on those paths (ECMP with ideal per-packet
// spreading). Deterministic, and the same for every automorphism of the topology, which the
// symmetric timing relies on. Distances to a destination are computed once and cached.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/network/topology.hpp"

namespace scoville::models {

struct Route {
  std::vector<std::pair<int32_t, double>> links;  // (link id, fraction of the flow), by link id
  Duration latency;                               // the slowest least-cost path, one way
  int64_t hops = 0;                               // links on a least-cost path
};

class Router {
 public:
  explicit Router(const Topology& topology) : topology_(&topology) {}

  // Throws std::logic_error when dst cannot be reached from src.
  Route route(int32_t src, int32_t dst) const;
  const Topology& topology() const { return *topology_; }

 private:
  const std::vector<int64_t>& distances_to(int32_t dst) const;

  const Topology* topology_;
  mutable std::unordered_map<int32_t, std::vector<int64_t>> distances_;
};

}  // namespace scoville::models
