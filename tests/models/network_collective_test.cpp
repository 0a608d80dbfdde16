// Collectives on the flow model against the alpha-beta closed forms, congestion, and the
// symmetric reduction against the per-pair simulation.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/network/network_model.hpp"
#include "models/network/topology_builders.hpp"
#include "network_fixtures.hpp"
#include "sim/base/error.hpp"

using namespace scoville;
using namespace scoville::models;
using namespace scoville::test;

namespace {

// Uncongested cases must match the closed form within 1%; the model is exact here, so the
// check is much tighter.
constexpr double kTolerance = 1e-9;

double run(const Topology& t, const std::string& collective, const std::string& algorithm,
           Bytes size, int64_t ranks = 0) {
  const NetworkModel model(t);
  return model.run_collective(collective, make_communicator(t, ranks), size, algorithm)
      .timing.time.si();
}

double log2i(int64_t n) { return std::ceil(std::log2(static_cast<double>(n))); }

}  // namespace

TEST_CASE("collectives on a switch equal the alpha-beta closed forms", "[network][collective]") {
  const int64_t n = 8;
  const TopologySpec spec = switch_spec(n);
  const Topology t = build_topology(spec);
  const double a = (2 * spec.link.latency + spec.switch_params->latency).si();
  const double B = std::min(spec.link.bandwidth(), spec.switch_params->port_bandwidth).si();
  const double N = static_cast<double>(n);
  for (const Bytes size : {bytes(64), kib(64), mib(64)}) {
    const double S = size.si();
    INFO("size " << S);
    CHECK(run(t, "all_reduce", "ring", size) ==
          Approx(2 * (N - 1) * (a + S / N / B)).epsilon(kTolerance));
    CHECK(run(t, "all_reduce", "tree", size) ==
          Approx(2 * log2i(n) * (a + S / B)).epsilon(kTolerance));
    // Direct: each chip's n-1 flows share its one uplink.
    CHECK(run(t, "all_reduce", "direct", size) ==
          Approx(2 * (a + (N - 1) * (S / N) / B)).epsilon(kTolerance));
    double rhd = 0;
    for (double part = 2; part <= N; part *= 2) rhd += 2 * (a + S / part / B);
    CHECK(run(t, "all_reduce", "recursive_halving_doubling", size) ==
          Approx(rhd).epsilon(kTolerance));
    CHECK(run(t, "all_gather", "ring", size) ==
          Approx((N - 1) * (a + S / N / B)).epsilon(kTolerance));
    CHECK(run(t, "reduce_scatter", "ring", size) ==
          Approx((N - 1) * (a + S / N / B)).epsilon(kTolerance));
    double rd = 0;
    for (double d = 1; d < N; d *= 2) rd += a + d * S / N / B;
    CHECK(run(t, "all_gather", "recursive_doubling", size) == Approx(rd).epsilon(kTolerance));
    CHECK(run(t, "reduce_scatter", "recursive_halving", size) ==
          Approx(rhd / 2).epsilon(kTolerance));
    CHECK(run(t, "all_to_all", "direct", size) ==
          Approx(a + (N - 1) * (S / N) / B).epsilon(kTolerance));
    CHECK(run(t, "broadcast", "tree", size) == Approx(log2i(n) * (a + S / B)).epsilon(kTolerance));
    const double C = static_cast<double>(kBroadcastChunks);
    CHECK(run(t, "broadcast", "ring", size) ==
          Approx((C + N - 2) * (a + S / C / B)).epsilon(kTolerance));
    CHECK(run(t, "broadcast", "direct", size) == Approx(a + (N - 1) * S / B).epsilon(kTolerance));
    CHECK(run(t, "send_recv", "direct", size) == Approx(a + S / B).epsilon(kTolerance));
  }
}

TEST_CASE("a ring on a torus and a full mesh is one hop per step", "[network][collective]") {
  const Bytes size = mib(16);
  const double S = size.si();
  for (const TopologySpec& spec : {torus_spec({4, 4}), torus_spec({4, 2, 2}), full_mesh_spec(8)}) {
    INFO(spec.kind);
    const Topology t = build_topology(spec);
    const double N = static_cast<double>(t.endpoints());
    const double a = spec.link.latency.si(), B = spec.link.bandwidth().si();
    CHECK(run(t, "all_reduce", "ring", size) ==
          Approx(2 * (N - 1) * (a + S / N / B)).epsilon(kTolerance));
    CHECK(run(t, "all_gather", "ring", size) ==
          Approx((N - 1) * (a + S / N / B)).epsilon(kTolerance));
  }
  // On a full mesh every pair has its own link: all-to-all is one message time.
  const TopologySpec mesh = full_mesh_spec(8);
  const Topology t = build_topology(mesh);
  CHECK(run(t, "all_to_all", "direct", size) ==
        Approx(mesh.link.latency.si() + S / 8 / mesh.link.bandwidth().si()).epsilon(kTolerance));
}

TEST_CASE("all-to-all on a full fat tree is bound by each chip's link", "[network][collective]") {
  const int64_t radix = 8;
  for (int64_t tiers : {2, 3}) {
    const int64_t n = tiers == 2 ? 32 : 32;
    const TopologySpec spec = fat_tree_spec(n, radix, 1.0, tiers);
    const Topology t = build_topology(spec);
    const double l = spec.link.latency.si(), s = spec.switch_params->latency.si();
    const double B = spec.link.bandwidth().si(), N = static_cast<double>(n);
    const Bytes size = mib(32);
    // The slowest flow crosses the top tier: 2 x tiers links, 2 x tiers - 1 switches.
    const double alpha =
        2.0 * static_cast<double>(tiers) * l + (2.0 * static_cast<double>(tiers) - 1) * s;
    CHECK(run(t, "all_to_all", "direct", size) ==
          Approx(alpha + (N - 1) * size.si() / N / B).epsilon(kTolerance));
  }
}

TEST_CASE("all-to-all over an oversubscribed fat tree is slower by the oversubscription factor",
          "[network][collective]") {
  const int64_t radix_full = 24, radix_over = 16;
  const double o = 3.0;
  const int64_t d = fat_tree_down_ports(radix_over, o);  // 12 down, 4 up
  REQUIRE(fat_tree_down_ports(radix_full, 1.0) == d);    // the same leaves, 12 up
  const int64_t n = 4 * d;
  const TopologySpec full = fat_tree_spec(n, radix_full, 1.0);
  const TopologySpec over = fat_tree_spec(n, radix_over, o);
  const Bytes size = mib(48);
  const double l = full.link.latency.si(), s = full.switch_params->latency.si();
  const double alpha = 4 * l + 3 * s, B = full.link.bandwidth().si();
  const double N = static_cast<double>(n), D = static_cast<double>(d), S = size.si();
  const double t_full = run(build_topology(full), "all_to_all", "direct", size) - alpha;
  const double t_over = run(build_topology(over), "all_to_all", "direct", size) - alpha;
  CHECK(t_full == Approx((N - 1) * S / N / B).epsilon(kTolerance));
  // Cross-leaf flows are held to the leaf's uplinks: d (n - d) flows share (d / o) links.
  CHECK(t_over == Approx(S / N * D * (N - D) / (D / o * B)).epsilon(kTolerance));
  // The cross-leaf traffic, (n - d) / (n - 1) of it, is o times slower.
  CHECK(t_over / t_full == Approx(o * (N - D) / (N - 1)).epsilon(kTolerance));
}

TEST_CASE("hierarchical all-reduce is local, then scale-out, then local", "[network][collective]") {
  const int64_t L = 8, D = 4;
  const TopologySpec local = switch_spec(L);
  const Topology t = build_topology(hierarchical_spec(local, D, 16));
  const Bytes size = mib(64);
  const double S = size.si(), Ld = static_cast<double>(L), Dd = static_cast<double>(D);
  const double a_local = (2 * local.link.latency + local.switch_params->latency).si();
  const double B_local = local.link.bandwidth().si();
  const double a_nic = (2 * test_nic().latency + test_switch(16).latency).si();
  const double B_nic = test_nic().bandwidth.si();
  const double expected =
      2 * (Ld - 1) * (a_local + S / Ld / B_local) + 2 * (Dd - 1) * (a_nic + S / (Ld * Dd) / B_nic);
  CHECK(run(t, "all_reduce", "hierarchical", size) == Approx(expected).epsilon(kTolerance));
}

TEST_CASE("the symmetric all-pairs timing equals the per-pair simulation on 64 chips",
          "[network][collective][symmetry]") {
  const std::vector<TopologySpec> specs = {switch_spec(64),
                                           torus_spec({4, 4, 4}),
                                           torus_spec({8, 8}),
                                           fat_tree_spec(48, 16, 3.0),
                                           fat_tree_spec(64, 8, 1.0, 3),
                                           hierarchical_spec(torus_spec({4, 4}), 4, 16)};
  for (const TopologySpec& spec : specs) {
    INFO(spec.kind << " " << spec.endpoints);
    const Topology t = build_topology(spec);
    REQUIRE(t.endpoint_transitive());
    const NetworkModel model(t);
    const Communicator comm = make_communicator(t, 0);
    for (const Bytes size : {bytes(64), mib(64)}) {
      for (const std::string collective : {"all_to_all", "all_gather"}) {
        const CollectiveResult fast = model.run_collective(collective, comm, size, "direct", true);
        const CollectiveResult slow = model.run_collective(collective, comm, size, "direct", false);
        CHECK(fast.timing.symmetric);
        CHECK_FALSE(slow.timing.symmetric);
        CHECK(fast.timing.simulated_flows == t.endpoints() - 1);
        CHECK(slow.timing.simulated_flows == t.endpoints() * (t.endpoints() - 1));
        CHECK(fast.timing.time.si() == Approx(slow.timing.time.si()).epsilon(1e-9));
        CHECK(fast.timing.energy.si() == Approx(slow.timing.energy.si()).epsilon(1e-9));
      }
    }
  }
}

TEST_CASE("a uniform all-to-allv equals the all-to-all", "[network][collective]") {
  const Topology t = build_topology(fat_tree_spec(32, 8, 1.0));
  const NetworkModel model(t);
  const Communicator comm = make_communicator(t, 0);
  const Bytes size = mib(4);
  const auto n = static_cast<size_t>(comm.size());
  std::vector<std::vector<Bytes>> sizes(n, std::vector<Bytes>(n, size / static_cast<double>(n)));
  CHECK(model.time_schedule(all_to_allv(comm, sizes)).time.si() ==
        Approx(run(t, "all_to_all", "direct", size)).epsilon(1e-9));
  // Doubling one pair's traffic cannot make the exchange faster.
  sizes[0][1] = sizes[0][1] * 8.0;
  CHECK(model.time_schedule(all_to_allv(comm, sizes)).time.si() >
        run(t, "all_to_all", "direct", size));
}

TEST_CASE("the policy picks the fastest applicable algorithm", "[network][collective]") {
  const Topology t = build_topology(switch_spec(8));
  const NetworkModel model(t);
  const Communicator comm = make_communicator(t, 0);
  for (const Bytes size : {bytes(8), mib(256)}) {
    const CollectiveResult chosen = model.run_collective("all_reduce", comm, size);
    for (const std::string algorithm : {"ring", "tree", "direct", "recursive_halving_doubling"}) {
      CHECK(chosen.timing.time.si() <= run(t, "all_reduce", algorithm, size));
    }
  }
  // Latency-bound: the logarithmic algorithms win; bandwidth-bound: not the tree.
  CHECK(model.run_collective("all_reduce", comm, bytes(8)).algorithm != "ring");
  CHECK(model.run_collective("all_reduce", comm, mib(256)).algorithm != "tree");
}

TEST_CASE("bad collective requests are input errors", "[network][collective]") {
  const Topology t = build_topology(switch_spec(6));
  const NetworkModel model(t);
  const Communicator comm = make_communicator(t, 0);
  CHECK_THROWS_AS(model.run_collective("all_mix", comm, mib(1)), InputError);
  CHECK_THROWS_AS(model.run_collective("all_reduce", comm, mib(1), "butterfly"), InputError);
  // 6 ranks: no recursive halving/doubling, and one domain: no hierarchical.
  CHECK_THROWS_AS(model.run_collective("all_reduce", comm, mib(1), "recursive_halving_doubling"),
                  InputError);
  CHECK_THROWS_AS(model.run_collective("all_reduce", comm, mib(1), "hierarchical"), InputError);
  CHECK_THROWS_AS(make_communicator(t, 7), InputError);
  CHECK(model.run_collective("all_reduce", make_communicator(t, 4), mib(1)).ranks == 4);
}

TEST_CASE("a communicator from an offset takes its own endpoints and their domains",
          "[network][collective]") {
  const int64_t L = 8, D = 2;
  const Topology t = build_topology(hierarchical_spec(switch_spec(L), D, 16));
  // Endpoints [4, 12) straddle the two domains: half in each.
  const Communicator straddling = make_communicator(t, L, L / 2);
  CHECK(straddling.size() == L);
  for (int32_t e : straddling.ring) {
    CHECK(e >= L / 2);
    CHECK(e < L + L / 2);
  }
  REQUIRE(straddling.domains.size() == 2);
  CHECK(straddling.domains[0].size() == static_cast<size_t>(L / 2));
  // The same size at offset L fills the second domain alone.
  const Communicator aligned = make_communicator(t, L, L);
  CHECK(aligned.domains.size() == 1);
  CHECK(aligned.ring.front() >= L);
  // Crossing the scale-out costs time that a group inside one domain does not pay.
  const NetworkModel model(t);
  const double inside = model.run_collective("all_reduce", aligned, mib(16)).timing.time.si();
  const double across = model.run_collective("all_reduce", straddling, mib(16)).timing.time.si();
  CHECK(across > inside);
  CHECK_THROWS_AS(make_communicator(t, L, L + 1), InputError);
  CHECK_THROWS_AS(make_communicator(t, L, -1), InputError);
}
