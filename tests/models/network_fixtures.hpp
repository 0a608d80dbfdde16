// Small topologies for the network tests, with parameters the tests derive expectations from.
#pragma once

#include <memory>

#include "models/network/topology_builders.hpp"

namespace scoville::test {

inline models::LinkParams test_link() {
  models::LinkParams l;
  l.lanes = 4;
  l.bandwidth_per_lane = gigabytes_per_second(25);  // 100 GB/s per direction
  l.latency = nanoseconds(100);
  l.energy = picojoules_per_bit(2);
  return l;
}

inline models::SwitchParams test_switch(int64_t radix) {
  models::SwitchParams s;
  s.radix = radix;
  s.port_bandwidth = gigabytes_per_second(100);
  s.latency = nanoseconds(300);
  s.energy = picojoules_per_bit(5);
  return s;
}

inline models::NicParams test_nic() {
  models::NicParams n;
  n.bandwidth = gigabytes_per_second(50);
  n.latency = nanoseconds(700);
  n.energy = picojoules_per_bit(8);
  return n;
}

inline models::TopologySpec switch_spec(int64_t n) {
  models::TopologySpec s;
  s.kind = "switch";
  s.endpoints = n;
  s.link = test_link();
  s.switch_params = test_switch(n);
  return s;
}

inline models::TopologySpec torus_spec(std::vector<int64_t> dims) {
  models::TopologySpec s;
  s.kind = dims.size() == 2 ? "torus2d" : "torus3d";
  s.endpoints = 1;
  for (int64_t d : dims) s.endpoints *= d;
  s.dims = std::move(dims);
  s.link = test_link();
  return s;
}

inline models::TopologySpec full_mesh_spec(int64_t n) {
  models::TopologySpec s;
  s.kind = "full_mesh";
  s.endpoints = n;
  s.link = test_link();
  return s;
}

inline models::TopologySpec fat_tree_spec(int64_t n, int64_t radix, double oversubscription,
                                          int64_t tiers = 2) {
  models::TopologySpec s;
  s.kind = "fat_tree";
  s.endpoints = n;
  s.link = test_link();
  s.switch_params = test_switch(radix);
  s.oversubscription = oversubscription;
  s.tiers = tiers;
  return s;
}

// `domains` copies of `local`, NICs on a rail-optimised 2-tier fat tree.
inline models::TopologySpec hierarchical_spec(const models::TopologySpec& local, int64_t domains,
                                              int64_t radix) {
  models::TopologySpec so = fat_tree_spec(0, radix, 1.0);
  so.nic = test_nic();
  models::TopologySpec s;
  s.kind = "hierarchical";
  s.endpoints = local.endpoints * domains;
  s.local = std::make_shared<models::TopologySpec>(local);
  s.scale_out = std::make_shared<models::TopologySpec>(so);
  s.domains = domains;
  s.rail_optimised = true;
  return s;
}

}  // namespace scoville::test
