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

  // Throws std::logic_error when dst cannot be reached from src. Memoised: a wide collective
  // routes the same pairs at every message size (a 128-chip search spent a sixth of its time
  // here); the reference stays valid until the next call of route().
  const Route& route(int32_t src, int32_t dst) const;
  const Topology& topology() const { return *topology_; }

 private:
  Route compute_route(int32_t src, int32_t dst) const;
  const std::vector<int64_t>& distances_to(int32_t dst) const;

  const Topology* topology_;
  mutable std::unordered_map<int32_t, std::vector<int64_t>> distances_;
  // Routes by src * 2^32 + dst, at most kMaxRoutes (dropped when full: a pure function).
  static constexpr size_t kMaxRoutes = size_t{1} << 18;
  mutable std::unordered_map<uint64_t, Route> routes_;
};

}  // namespace scoville::models
