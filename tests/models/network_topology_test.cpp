// Topology builders, routing and the symmetry they declare.
#include <catch2/catch.hpp>

#include "models/network/router.hpp"
#include "models/network/topology_builders.hpp"
#include "network_fixtures.hpp"
#include "sim/base/error.hpp"

using namespace scoville;
using namespace scoville::models;
using namespace scoville::test;

TEST_CASE("a switched domain has one up and one down link per chip", "[network][topology]") {
  const TopologySpec spec = switch_spec(8);
  const Topology t = build_topology(spec);
  CHECK(t.endpoints() == spec.endpoints);
  CHECK(t.switches() == 1);
  CHECK(t.link_count() == 2 * spec.endpoints);
  CHECK(t.endpoint_transitive());
  CHECK(t.orbit_count() == 2);
  const Route r = Router(t).route(0, 5);
  CHECK(r.hops == 2);
  CHECK(r.latency.si() == Approx((2 * spec.link.latency + spec.switch_params->latency).si()));
}

TEST_CASE("a switch too small for the domain is an input error", "[network][topology]") {
  TopologySpec spec = switch_spec(8);
  spec.switch_params->radix = 4;
  CHECK_THROWS_AS(build_topology(spec), InputError);
}

TEST_CASE("an unknown topology lists the known ones", "[network][topology]") {
  TopologySpec spec = switch_spec(4);
  spec.kind = "hypercube";
  try {
    build_topology(spec);
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string m = e.diagnostics().front().message;
    CHECK(m.find("hypercube") != std::string::npos);
    CHECK(m.find("torus3d") != std::string::npos);
    CHECK(m.find("dragonfly") != std::string::npos);
  }
}

TEST_CASE("torus extents must multiply to the chip count", "[network][topology]") {
  TopologySpec spec = torus_spec({4, 4});
  spec.endpoints = 15;
  CHECK_THROWS_AS(build_topology(spec), InputError);
}

TEST_CASE("the torus ring order steps one hop at a time", "[network][topology]") {
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{4, 4}, std::vector<int64_t>{8, 2}, std::vector<int64_t>{4, 4, 4}}) {
    const Topology t = build_topology(torus_spec(dims));
    const Router router(t);
    const auto& ring = t.ring_order();
    REQUIRE(static_cast<int64_t>(ring.size()) == t.endpoints());
    for (size_t i = 0; i < ring.size(); ++i) {
      CHECK(router.route(ring[i], ring[(i + 1) % ring.size()]).hops == 1);
    }
    CHECK(t.endpoint_transitive());
    // Each chip has two links per dimension of extent > 2 (one merged link for extent 2).
    int64_t per_chip = 0;
    for (int64_t d : dims) per_chip += d > 2 ? 2 : (d == 2 ? 1 : 0);
    CHECK(t.link_count() == t.endpoints() * per_chip);
  }
}

TEST_CASE("a torus route splits evenly over the shortest paths", "[network][topology]") {
  const Topology t = build_topology(torus_spec({4, 4}));
  // From (0,0) to (1,1): two shortest paths of two hops, each link carries half.
  const Route r = Router(t).route(0, 5);
  CHECK(r.hops == 2);
  REQUIRE(r.links.size() == 4);
  for (const auto& [link, fraction] : r.links) CHECK(fraction == Approx(0.5));
}

TEST_CASE("fat tree port counts follow radix and oversubscription", "[network][topology]") {
  const int64_t radix = 16;
  const double o = 3.0;
  const int64_t down = fat_tree_down_ports(radix, o);
  CHECK(down == 12);
  const int64_t n = 4 * down;
  const Topology t = build_topology(fat_tree_spec(n, radix, o));
  const int64_t leaves = n / down, spines = radix - down;
  CHECK(t.switches() == leaves + spines);
  CHECK(t.link_count() == 2 * n + 2 * leaves * spines);
  CHECK(t.endpoint_transitive());
  CHECK_THROWS_AS(fat_tree_down_ports(16, 2.0), InputError);  // 16 x 2/3 is not whole
}

TEST_CASE("a three-tier fat tree routes across pods in six hops", "[network][topology]") {
  const int64_t radix = 8, down = 4;
  const int64_t pods = 2, pod_leaves = radix / 2;
  const Topology t = build_topology(fat_tree_spec(pods * pod_leaves * down, radix, 1.0, 3));
  CHECK(t.endpoint_transitive());
  const Router router(t);
  CHECK(router.route(0, 1).hops == 2);                  // same leaf
  CHECK(router.route(0, down).hops == 4);               // same pod
  CHECK(router.route(0, pod_leaves * down).hops == 6);  // other pod
}

TEST_CASE("dragonfly minimal routes take at most one global hop", "[network][topology]") {
  TopologySpec s;
  s.kind = "dragonfly";
  s.routers_per_group = 4;
  s.endpoints_per_router = 2;
  s.global_links_per_router = 2;
  const int64_t groups = s.routers_per_group * s.global_links_per_router + 1;
  s.endpoints = groups * s.routers_per_group * s.endpoints_per_router;
  s.link = test_link();
  s.switch_params = test_switch(16);
  const Topology t = build_topology(s);
  const Router router(t);
  int64_t longest = 0;
  for (int32_t d = 1; d < t.endpoints(); ++d) longest = std::max(longest, router.route(0, d).hops);
  CHECK(longest == 5);  // chip, local, global, local, chip
}

TEST_CASE("a rail-optimised hierarchy is symmetric and keeps local traffic local",
          "[network][topology]") {
  const TopologySpec local = torus_spec({4, 4});
  const Topology t = build_topology(hierarchical_spec(local, 4, 16));
  CHECK(t.endpoints() == 64);
  CHECK(t.domain_size() == 16);
  CHECK(t.endpoint_transitive());
  const Router router(t);
  // Within a domain: torus hops only (the farthest chip is 2 + 2 hops away).
  CHECK(router.route(0, 10).hops == 4);
  // The same chip of the next domain shares a leaf: chip, leaf, chip.
  const Route r = router.route(0, 16);
  CHECK(r.hops == 2);
  CHECK(r.latency.si() == Approx((2 * test_nic().latency + test_switch(16).latency).si()));
}
