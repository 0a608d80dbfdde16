// Registry: named factories for open sets, explicit registration, helpful unknown-name errors.
#include <catch2/catch.hpp>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/base/registry.hpp"

using namespace scoville;
using Catch::Contains;

namespace {

struct Topology {
  virtual ~Topology() = default;
  virtual int hops(int nodes) const = 0;
};
struct Ring : Topology {
  int hops(int nodes) const override { return nodes / 2; }
};
struct FullyConnected : Topology {
  int hops(int /*nodes*/) const override { return 1; }
};

using TopologyRegistry = Registry<std::unique_ptr<Topology>>;

void register_all(TopologyRegistry& registry) {
  registry.add("ring", [] { return std::make_unique<Ring>(); });
  registry.add("fully_connected", [] { return std::make_unique<FullyConnected>(); });
}

}  // namespace

TEST_CASE("registered factories create their products", "[registry]") {
  TopologyRegistry registry("topology");
  register_all(registry);
  const int nodes = 8;
  CHECK(registry.create("ring")->hops(nodes) == nodes / 2);
  CHECK(registry.create("fully_connected")->hops(nodes) == 1);
  // Each call makes a fresh product.
  CHECK(registry.create("ring") != registry.create("ring"));
}

TEST_CASE("contains and names", "[registry]") {
  TopologyRegistry registry("topology");
  CHECK(registry.names().empty());
  CHECK_FALSE(registry.contains("ring"));
  register_all(registry);
  CHECK(registry.contains("ring"));
  CHECK(registry.contains("fully_connected"));
  CHECK_FALSE(registry.contains("Ring"));  // names are case-sensitive
  CHECK_FALSE(registry.contains(""));
  // Sorted, so listings and error messages are stable.
  CHECK(registry.names() == std::vector<std::string>{"fully_connected", "ring"});
}

TEST_CASE("an unknown name lists the known ones", "[registry]") {
  TopologyRegistry registry("topology");
  register_all(registry);
  CHECK_THROWS_AS(registry.create("torus"), std::out_of_range);
  CHECK_THROWS_WITH(registry.create("torus"),
                    "unknown topology 'torus'; known: fully_connected, ring");
}

TEST_CASE("an empty registry says so", "[registry]") {
  TopologyRegistry registry("collective");
  CHECK_THROWS_WITH(registry.create("allreduce"), "unknown collective 'allreduce'; known: ");
}

TEST_CASE("registering a name twice is a programming error", "[registry]") {
  TopologyRegistry registry("topology");
  register_all(registry);
  CHECK_THROWS_AS(registry.add("ring", [] { return std::make_unique<Ring>(); }), std::logic_error);
  CHECK_THROWS_WITH(registry.add("ring", [] { return std::make_unique<Ring>(); }),
                    "topology 'ring' registered twice");
  // The first registration is kept.
  CHECK(registry.names().size() == 2);
}

TEST_CASE("factories receive the create() arguments", "[registry]") {
  Registry<double, double, int> scale("scaling");
  scale.add("linear", [](double base, int n) { return base * n; });
  scale.add("constant", [](double base, int /*n*/) { return base; });
  const double base = 2.5;
  const int n = 4;
  CHECK(scale.create("linear", base, n) == base * n);
  CHECK(scale.create("constant", base, n) == base);
}
