// Topology builders, registered by name: switch, full_mesh, torus2d, torus3d, fat_tree,
// dragonfly, hierarchical. A TopologySpec carries the union of their parameters; each builder
// reads the ones it needs and throws InputError (key path relative to the network section, no
// file location: the loader adds it) for values it cannot build.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/network/network_params.hpp"
#include "models/network/topology.hpp"
#include "sim/base/registry.hpp"

namespace scoville::models {

struct TopologySpec {
  std::string kind;
  int64_t endpoints = 0;
  LinkParams link;  // chip-to-chip, chip-to-switch and switch-to-switch cables
  std::optional<SwitchParams> switch_params;  // switch, fat_tree, dragonfly
  std::optional<NicParams> nic;               // when set, endpoint-to-switch links are NIC links
  std::vector<int64_t> dims;                  // torus2d, torus3d: extent per dimension (x fastest)
  int64_t tiers = 2;                          // fat_tree: 2 or 3
  double oversubscription = 1.0;              // fat_tree: leaf down ports per up port
  int64_t routers_per_group = 0;              // dragonfly
  int64_t endpoints_per_router = 0;
  int64_t global_links_per_router = 0;
  // hierarchical: `domains` copies of `local` (endpoints = domains x local->endpoints), every
  // chip with a NIC into `scale_out` (whose endpoints are the NICs).
  std::shared_ptr<const TopologySpec> local;
  std::shared_ptr<const TopologySpec> scale_out;
  int64_t domains = 0;
  bool rail_optimised = false;  // NIC i of every domain on the same leaf switches
};

using TopologyRegistry = Registry<Topology, const TopologySpec&>;

// The registry with every builder (registered once, explicitly, on first use).
const TopologyRegistry& topology_registry();
// Builds, finalizes and returns the topology `spec.kind` names.
Topology build_topology(const TopologySpec& spec);

// Fat-tree leaf ports towards endpoints for a radix and oversubscription (throws InputError
// when they do not divide the radix into whole ports).
int64_t fat_tree_down_ports(int64_t radix, double oversubscription);

}  // namespace scoville::models
