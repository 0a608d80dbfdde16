// The collective library's cost on top of the wire time (models/network/collective_library.hpp):
// the closed form per candidate, the tuner's choice, and how the choice moves with size and
// group size. Parameters are the test's own; expectations are derived from them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "models/network/network_model.hpp"
#include "models/network/topology_builders.hpp"
#include "network_fixtures.hpp"
#include "sim/base/error.hpp"

using namespace scoville;
using namespace scoville::models;
using namespace scoville::test;

namespace {

CollectiveLibraryParams test_library() {
  CollectiveLibraryParams l;
  l.launch = microseconds(10);
  l.protocols = {{"LL", microseconds(0.1), 0.3},
                 {"LL128", microseconds(1.3), 0.9},
                 {"Simple", microseconds(2.9), 1.0}};
  l.all_to_all_latency = microseconds(8);
  l.per_peer = microseconds(0.3);
  return l;
}

Topology switch_with(int64_t n, const CollectiveLibraryParams& library) {
  Topology t = build_topology(switch_spec(n));
  t.set_collective_library(library);
  return t;
}

CollectiveResult run(const Topology& t, const std::string& collective, Bytes size,
                     const std::string& algorithm = "", bool custom = true) {
  NetworkModel model(t);
  model.set_custom_kernels(custom);
  return model.run_collective(collective, make_communicator(t, 0), size, algorithm);
}

// The switch fixture's hop latency and port bandwidth (network_fixtures.hpp).
double hop() { return (2 * test_link().latency + test_switch(2).latency).si(); }
double port() { return std::min(test_link().bandwidth(), test_switch(2).port_bandwidth).si(); }

}  // namespace

TEST_CASE("library: a ring with a protocol costs launch + steps x (handshake + hop) + wire",
          "[network][collective][library]") {
  const CollectiveLibraryParams lib = test_library();
  const int64_t n = 8;
  const double N = static_cast<double>(n);
  for (const ProtocolParams& p : lib.protocols) {
    for (const Bytes size : {bytes(8), kib(64), mib(16)}) {
      // Force the protocol by leaving only it in the library.
      CollectiveLibraryParams one = lib;
      one.protocols = {p};
      Topology only = switch_with(n, one);
      const CollectiveResult r =
          NetworkModel(only).run_collective("all_reduce", make_communicator(only, 0), size, "ring");
      const double steps = 2 * (N - 1);
      const double expected = lib.launch.si() + steps * (p.per_step.si() + hop()) +
                              steps * size.si() / (N * port() * p.efficiency);
      CHECK(r.timing.time.si() == Approx(expected).epsilon(1e-9));
      CHECK(r.protocol == p.name);
      CHECK(r.library_time.si() == Approx(lib.launch.si() + steps * p.per_step.si()));
    }
  }
}

TEST_CASE("library: an 8-byte all-reduce is latency-bound, not the bare wire time",
          "[network][collective][library]") {
  const CollectiveLibraryParams lib = test_library();
  const Topology with = switch_with(8, lib);
  const Topology without = build_topology(switch_spec(8));
  const double bare = run(without, "all_reduce", bytes(8)).timing.time.si();
  const double modelled = run(with, "all_reduce", bytes(8)).timing.time.si();
  CHECK(bare < 2e-6);  // two hops of the direct all-pairs algorithm
  CHECK(modelled >= lib.launch.si());
  CHECK(run(with, "all_reduce", bytes(8)).protocol == "LL");  // least handshake per step
}

TEST_CASE("library: latency grows with the group size", "[network][collective][library]") {
  const CollectiveLibraryParams lib = test_library();
  double previous = 0;
  for (const int64_t n : {2, 4, 8, 16, 32, 64}) {
    const Topology t = switch_with(n, lib);
    const double all_reduce = run(t, "all_reduce", bytes(8)).timing.time.si();
    CHECK(all_reduce > previous);
    previous = all_reduce;
  }
  // All-to-all: one step, but a send/recv pair per peer.
  const double a2a_8 = run(switch_with(8, lib), "all_to_all", bytes(1024)).timing.time.si();
  const double a2a_64 = run(switch_with(64, lib), "all_to_all", bytes(1024)).timing.time.si();
  CHECK(a2a_64 - a2a_8 == Approx(56 * lib.per_peer.si()).epsilon(0.05));
}

TEST_CASE("library: protocol switch points are monotone in the message size",
          "[network][collective][library]") {
  const Topology t = switch_with(8, test_library());
  const std::vector<std::string> order = {"LL", "LL128", "Simple"};
  size_t rank = 0;
  std::vector<std::string> seen;
  for (int k = 3; k <= 32; ++k) {
    const CollectiveResult r = run(t, "all_reduce", bytes(std::ldexp(1.0, k)), "ring");
    const auto at = std::find(order.begin(), order.end(), r.protocol);
    REQUIRE(at != order.end());
    const auto here = static_cast<size_t>(at - order.begin());
    CHECK(here >= rank);  // never back to a lower-latency protocol as the size grows
    rank = here;
    if (seen.empty() || seen.back() != r.protocol) seen.push_back(r.protocol);
  }
  CHECK(seen.front() == "LL");
  CHECK(seen.back() == "Simple");
}

TEST_CASE("library: NVLS beats the ring at small sizes on a large switch that has it",
          "[network][collective][library]") {
  CollectiveLibraryParams lib = test_library();
  lib.nvls = CallCostParams{microseconds(18), 0.8};
  const Topology t = switch_with(72, lib);
  const CollectiveResult ring = run(t, "all_reduce", bytes(8), "ring");
  const CollectiveResult nvls = run(t, "all_reduce", bytes(8), "nvls");
  CHECK(nvls.timing.time < ring.timing.time);
  CHECK(run(t, "all_reduce", bytes(8)).algorithm == "nvls");
  // Without NVLS in the library it is neither chosen nor accepted.
  const Topology plain = switch_with(72, test_library());
  CHECK(run(plain, "all_reduce", bytes(8)).algorithm == "ring");
  CHECK_THROWS_AS(run(plain, "all_reduce", bytes(8), "nvls"), InputError);
  // Nor on a system without a library.
  CHECK_THROWS_AS(run(build_topology(switch_spec(8)), "all_reduce", bytes(8), "nvls"), InputError);
}

TEST_CASE("library: custom one-shot kernels serve small all-reduces unless NCCL alone is asked",
          "[network][collective][library]") {
  CollectiveLibraryParams lib = test_library();
  lib.custom_all_reduce = CallCostParams{microseconds(5), 0.5};
  const Topology t = switch_with(8, lib);
  const CollectiveResult served = run(t, "all_reduce", bytes(1024));
  CHECK(served.algorithm == "one_shot");
  // One step: every rank reads S / efficiency from each of its 7 peers over its port.
  const double expected = 5e-6 + hop() + 7 * 1024.0 / (port() * 0.5);
  CHECK(served.timing.time.si() == Approx(expected).epsilon(1e-9));
  const CollectiveResult nccl = run(t, "all_reduce", bytes(1024), "", false);
  CHECK(nccl.algorithm == "ring");
  CHECK(nccl.timing.time > served.timing.time);
}

TEST_CASE("library: an all-pairs all-reduce uses every link of a full mesh, NCCL-only included",
          "[network][collective][library]") {
  CollectiveLibraryParams lib = test_library();
  lib.all_pairs = CallCostParams{microseconds(70), 0.7};
  Topology mesh = build_topology(full_mesh_spec(8));
  mesh.set_collective_library(lib);
  const double link = test_link().bandwidth().si();
  const double lat = test_link().latency.si();
  // Two all-pairs steps, each rank sending S / 8 / efficiency to each peer on its own link.
  const Bytes big = bytes(256.0 * 1024 * 1024);
  for (const bool custom : {true, false}) {
    const CollectiveResult r = run(mesh, "all_reduce", big, "", custom);
    CHECK(r.algorithm == "direct");
    CHECK(r.protocol == "all-pairs");
    const double expected = 70e-6 + 2 * lat + 2 * big.si() / 8 / (link * 0.7);
    CHECK(r.timing.time.si() == Approx(expected).epsilon(1e-9));
  }
  // The ring's steps use one link each: the all-pairs call is about 7 x 0.7 / 1.0 faster at
  // this size, and slower than the ring's LL at 8 B (its 70 us against the ring's launch).
  const CollectiveResult ring = run(mesh, "all_reduce", big, "ring");
  CHECK(ring.timing.time.si() > 4.0 * run(mesh, "all_reduce", big).timing.time.si());
  CHECK(run(mesh, "all_reduce", bytes(8)).algorithm == "ring");
  // All-reduce only; without the entry the library has no such candidate.
  CHECK(run(mesh, "all_gather", big).algorithm == "ring");
  Topology plain = build_topology(full_mesh_spec(8));
  plain.set_collective_library(test_library());
  CHECK(run(plain, "all_reduce", big).algorithm == "ring");
}
