#include "models/network/router.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <stdexcept>

namespace scoville::models {

namespace {
constexpr int64_t kUnreachable = std::numeric_limits<int64_t>::max();
}

const std::vector<int64_t>& Router::distances_to(int32_t dst) const {
  const auto found = distances_.find(dst);
  if (found != distances_.end()) return found->second;
  const Topology& t = *topology_;
  std::vector<int64_t> dist(static_cast<size_t>(t.nodes()), kUnreachable);
  using Entry = std::pair<int64_t, int32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  dist[static_cast<size_t>(dst)] = 0;
  queue.push({0, dst});
  while (!queue.empty()) {
    const auto [d, v] = queue.top();
    queue.pop();
    if (d != dist[static_cast<size_t>(v)]) continue;
    for (int32_t id : t.in_links(v)) {
      const Link& l = t.link(id);
      const int64_t nd = d + l.cost;
      if (nd < dist[static_cast<size_t>(l.from)]) {
        dist[static_cast<size_t>(l.from)] = nd;
        queue.push({nd, l.from});
      }
    }
  }
  return distances_.emplace(dst, std::move(dist)).first->second;
}

const Route& Router::route(int32_t src, int32_t dst) const {
  const uint64_t key =
      (static_cast<uint64_t>(static_cast<uint32_t>(src)) << 32) | static_cast<uint32_t>(dst);
  auto it = routes_.find(key);
  if (it != routes_.end()) return it->second;
  if (routes_.size() >= kMaxRoutes) routes_.clear();
  return routes_.emplace(key, compute_route(src, dst)).first->second;
}

Route Router::compute_route(int32_t src, int32_t dst) const {
  Route r;
  if (src == dst) return r;
  const Topology& t = *topology_;
  const std::vector<int64_t>& dist = distances_to(dst);
  if (dist[static_cast<size_t>(src)] == kUnreachable) {
    throw std::logic_error("no path from node " + std::to_string(src) + " to " +
                           std::to_string(dst));
  }
  // Visit nodes farthest first: every next hop is strictly nearer, so a node's share is complete
  // when it is visited.
  std::map<int64_t, std::vector<int32_t>, std::greater<int64_t>> frontier;
  std::unordered_map<int32_t, std::pair<double, double>> share;  // node -> (fraction, latency)
  share[src] = {1.0, 0.0};
  frontier[dist[static_cast<size_t>(src)]].push_back(src);
  std::map<int32_t, double> on_link;
  while (!frontier.empty()) {
    auto level = frontier.begin();
    std::vector<int32_t> nodes = std::move(level->second);
    frontier.erase(level);
    for (int32_t v : nodes) {
      if (v == dst) continue;
      const auto [fraction, latency] = share[v];
      std::vector<int32_t> next;
      for (int32_t id : t.out_links(v)) {
        const Link& l = t.link(id);
        if (dist[static_cast<size_t>(l.to)] != kUnreachable &&
            dist[static_cast<size_t>(l.to)] + l.cost == dist[static_cast<size_t>(v)]) {
          next.push_back(id);
        }
      }
      const double part = fraction / static_cast<double>(next.size());
      for (int32_t id : next) {
        const Link& l = t.link(id);
        on_link[id] += part;
        auto [it, inserted] = share.try_emplace(l.to, 0.0, 0.0);
        if (inserted) frontier[dist[static_cast<size_t>(l.to)]].push_back(l.to);
        it->second.first += part;
        it->second.second = std::max(it->second.second, latency + l.latency.si());
      }
    }
  }
  r.links.assign(on_link.begin(), on_link.end());
  r.latency = Duration(share[dst].second);
  // Hops on one least-cost path: follow the first next hop.
  for (int32_t v = src; v != dst;) {
    for (int32_t id : t.out_links(v)) {
      const Link& l = t.link(id);
      if (dist[static_cast<size_t>(l.to)] != kUnreachable &&
          dist[static_cast<size_t>(l.to)] + l.cost == dist[static_cast<size_t>(v)]) {
        v = l.to;
        ++r.hops;
        break;
      }
    }
  }
  return r;
}

}  // namespace scoville::models
