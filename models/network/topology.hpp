// A network graph: endpoints (chips, ids 0..endpoints-1) and switches joined by directed links.
// Each link carries its per-direction bandwidth, the latency and energy of one traversal (a
// switch's forwarding latency and energy sit on the links entering it) and a routing cost.
//
// Symmetry: builders offer candidate automorphisms (node permutations). finalize() keeps those
// that map every link onto a link with identical parameters, and groups links into orbits under
// the group they generate. When that group moves endpoint 0 to every endpoint, a traffic pattern
// that every automorphism preserves (uniform all-pairs) can be timed from the flows into one
// endpoint (see NetworkModel), which is exact because max-min fair rates are unique and so
// inherit the symmetry.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/network/collective_library.hpp"
#include "sim/base/units.hpp"

namespace scoville::models {

struct Link {
  int32_t from = 0;
  int32_t to = 0;
  Bandwidth bandwidth;  // per direction
  Duration latency;
  EnergyPerBit energy;
  int32_t cost = 1;  // routing metric (>= 1): shortest paths minimise the sum
};

class Topology {
 public:
  // More links than this is refused as input (a full mesh or a Clos far beyond any system).
  static constexpr size_t kMaxLinks = size_t{1} << 24;

  Topology(std::string kind, int64_t endpoints);

  const std::string& kind() const { return kind_; }
  int64_t endpoints() const { return endpoints_; }
  int64_t nodes() const { return nodes_; }
  int64_t switches() const { return nodes_ - endpoints_; }
  int64_t link_count() const { return static_cast<int64_t>(links_.size()); }
  const Link& link(int32_t id) const { return links_[static_cast<size_t>(id)]; }
  const std::vector<Link>& links() const { return links_; }
  bool is_endpoint(int32_t node) const { return node < endpoints_; }

  int32_t add_switch();
  // A directed link. A second link between the same ordered pair adds its bandwidth to the
  // first (parallel cables behave as one wider link); the other parameters must then agree.
  void add_link(const Link& link);
  // Both directions with the same parameters.
  void add_duplex(int32_t a, int32_t b, Bandwidth bandwidth, Duration latency, EnergyPerBit energy,
                  int32_t cost = 1);

  // Endpoints are grouped in domains of this many consecutive ids (hierarchical systems);
  // a flat topology is one domain.
  int64_t domain_size() const { return domain_size_; }
  void set_domain_size(int64_t size) { domain_size_ = size; }
  // The ring order collectives use: a Hamiltonian cycle of endpoints with neighbours one hop
  // apart where the builder knows one (torus snake), else endpoint id order.
  const std::vector<int32_t>& ring_order() const { return ring_order_; }
  void set_ring_order(std::vector<int32_t> order);

  // A candidate automorphism: perm[node] = image. Checked in finalize().
  void add_symmetry_candidate(std::vector<int32_t> perm);
  // Builds adjacency, keeps the verified automorphisms and computes link orbits. Call once,
  // after the last link.
  void finalize();

  const std::vector<int32_t>& out_links(int32_t node) const;
  const std::vector<int32_t>& in_links(int32_t node) const;
  int32_t find_link(int32_t from, int32_t to) const;  // -1 if none

  // True when the verified automorphisms move endpoint 0 onto every endpoint.
  bool endpoint_transitive() const { return endpoint_transitive_; }

  // The collective library the system's chips run (network.collectives): it travels with the
  // topology so that every network model of the system (`scoville net`, the serving pricer, the
  // system engine) times collectives the same way. Absent: wire time alone.
  const std::optional<CollectiveLibraryParams>& collective_library() const { return library_; }
  void set_collective_library(std::optional<CollectiveLibraryParams> library) {
    library_ = std::move(library);
  }
  const std::vector<std::vector<int32_t>>& automorphism_list() const { return automorphisms_; }
  int32_t link_orbit(int32_t link) const { return link_orbit_[static_cast<size_t>(link)]; }
  int64_t orbit_count() const { return static_cast<int64_t>(orbit_size_.size()); }
  int64_t orbit_size(int32_t orbit) const { return orbit_size_[static_cast<size_t>(orbit)]; }

 private:
  bool is_automorphism(const std::vector<int32_t>& perm) const;

  std::string kind_;
  int64_t endpoints_ = 0;
  int64_t nodes_ = 0;
  int64_t domain_size_ = 0;
  std::vector<Link> links_;
  std::unordered_map<int64_t, int32_t> link_index_;  // (from << 32 | to) -> link id
  std::vector<std::vector<int32_t>> out_;
  std::vector<std::vector<int32_t>> in_;
  std::vector<int32_t> ring_order_;
  std::vector<std::vector<int32_t>> candidates_;
  std::vector<std::vector<int32_t>> automorphisms_;
  std::vector<int32_t> link_orbit_;
  std::vector<int64_t> orbit_size_;
  bool endpoint_transitive_ = false;
  bool finalized_ = false;
  std::optional<CollectiveLibraryParams> library_;
};

}  // namespace scoville::models
