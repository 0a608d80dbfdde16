#include "models/network/topology.hpp"

#include <numeric>
#include <stdexcept>
#include <utility>

#include "sim/base/error.hpp"

namespace scoville::models {

namespace {

int64_t pair_key(int32_t from, int32_t to) {
  return (static_cast<int64_t>(from) << 32) | static_cast<uint32_t>(to);
}

struct UnionFind {
  explicit UnionFind(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  size_t find(size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void unite(size_t a, size_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
  std::vector<size_t> parent;
};

}  // namespace

Topology::Topology(std::string kind, int64_t endpoints)
    : kind_(std::move(kind)), endpoints_(endpoints), nodes_(endpoints), domain_size_(endpoints) {
  ring_order_.resize(static_cast<size_t>(endpoints));
  std::iota(ring_order_.begin(), ring_order_.end(), 0);
}

int32_t Topology::add_switch() { return static_cast<int32_t>(nodes_++); }

void Topology::add_link(const Link& l) {
  if (finalized_) throw std::logic_error("Topology::add_link after finalize");
  if (l.from == l.to || l.from < 0 || l.to < 0 || l.from >= nodes_ || l.to >= nodes_ ||
      l.cost < 1) {
    throw std::logic_error("Topology::add_link: bad link");
  }
  if (links_.size() >= kMaxLinks) {
    throw InputError(
        SourceLocation{}, "",
        "the network has more than " + std::to_string(kMaxLinks) + " links, too large to simulate");
  }
  const auto [it, inserted] =
      link_index_.emplace(pair_key(l.from, l.to), static_cast<int32_t>(links_.size()));
  if (inserted) {
    links_.push_back(l);
    return;
  }
  Link& existing = links_[static_cast<size_t>(it->second)];
  if (existing.latency != l.latency || existing.energy != l.energy || existing.cost != l.cost) {
    throw std::logic_error("Topology::add_link: parallel links with different parameters");
  }
  existing.bandwidth += l.bandwidth;
}

void Topology::add_duplex(int32_t a, int32_t b, Bandwidth bandwidth, Duration latency,
                          EnergyPerBit energy, int32_t cost) {
  add_link(Link{a, b, bandwidth, latency, energy, cost});
  add_link(Link{b, a, bandwidth, latency, energy, cost});
}

void Topology::set_ring_order(std::vector<int32_t> order) {
  if (static_cast<int64_t>(order.size()) != endpoints_) {
    throw std::logic_error("Topology::set_ring_order: not one entry per endpoint");
  }
  ring_order_ = std::move(order);
}

void Topology::add_symmetry_candidate(std::vector<int32_t> perm) {
  candidates_.push_back(std::move(perm));
}

int32_t Topology::find_link(int32_t from, int32_t to) const {
  const auto it = link_index_.find(pair_key(from, to));
  return it == link_index_.end() ? -1 : it->second;
}

const std::vector<int32_t>& Topology::out_links(int32_t node) const {
  return out_[static_cast<size_t>(node)];
}

const std::vector<int32_t>& Topology::in_links(int32_t node) const {
  return in_[static_cast<size_t>(node)];
}

bool Topology::is_automorphism(const std::vector<int32_t>& perm) const {
  if (static_cast<int64_t>(perm.size()) != nodes_) return false;
  std::vector<char> seen(perm.size(), 0);
  for (size_t v = 0; v < perm.size(); ++v) {
    const int32_t image = perm[v];
    if (image < 0 || image >= nodes_ || seen[static_cast<size_t>(image)]) return false;
    seen[static_cast<size_t>(image)] = 1;
    if ((static_cast<int64_t>(v) < endpoints_) != (image < endpoints_)) return false;
  }
  for (const Link& l : links_) {
    const int32_t id =
        find_link(perm[static_cast<size_t>(l.from)], perm[static_cast<size_t>(l.to)]);
    if (id < 0) return false;
    const Link& m = links_[static_cast<size_t>(id)];
    if (m.bandwidth != l.bandwidth || m.latency != l.latency || m.energy != l.energy ||
        m.cost != l.cost) {
      return false;
    }
  }
  return true;
}

void Topology::finalize() {
  if (finalized_) throw std::logic_error("Topology::finalize called twice");
  finalized_ = true;
  out_.assign(static_cast<size_t>(nodes_), {});
  in_.assign(static_cast<size_t>(nodes_), {});
  for (size_t i = 0; i < links_.size(); ++i) {
    out_[static_cast<size_t>(links_[i].from)].push_back(static_cast<int32_t>(i));
    in_[static_cast<size_t>(links_[i].to)].push_back(static_cast<int32_t>(i));
  }
  for (auto& perm : candidates_) {
    if (is_automorphism(perm)) automorphisms_.push_back(std::move(perm));
  }
  candidates_.clear();

  UnionFind node_sets(static_cast<size_t>(nodes_));
  UnionFind link_sets(links_.size());
  for (const auto& perm : automorphisms_) {
    for (size_t v = 0; v < perm.size(); ++v) node_sets.unite(v, static_cast<size_t>(perm[v]));
    for (size_t i = 0; i < links_.size(); ++i) {
      const Link& l = links_[i];
      link_sets.unite(i, static_cast<size_t>(find_link(perm[static_cast<size_t>(l.from)],
                                                       perm[static_cast<size_t>(l.to)])));
    }
  }
  endpoint_transitive_ = true;
  for (int64_t e = 0; e < endpoints_; ++e) {
    if (node_sets.find(static_cast<size_t>(e)) != 0) endpoint_transitive_ = false;
  }
  // Orbit ids numbered in order of their first link, so that they are deterministic.
  std::unordered_map<size_t, int32_t> orbit_of_root;
  link_orbit_.resize(links_.size());
  for (size_t i = 0; i < links_.size(); ++i) {
    const auto [it, inserted] =
        orbit_of_root.emplace(link_sets.find(i), static_cast<int32_t>(orbit_size_.size()));
    if (inserted) orbit_size_.push_back(0);
    link_orbit_[i] = it->second;
    ++orbit_size_[static_cast<size_t>(it->second)];
  }
}

}  // namespace scoville::models
