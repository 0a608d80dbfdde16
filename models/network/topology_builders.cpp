#include "models/network/topology_builders.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/base/error.hpp"

namespace scoville::models {

namespace {

[[noreturn]] void fail(const std::string& key, const std::string& message) {
  throw InputError(SourceLocation{}, key, message);
}

const SwitchParams& require_switch(const TopologySpec& s) {
  if (!s.switch_params) fail("switch", "topology '" + s.kind + "' needs a switch");
  return *s.switch_params;
}

// Endpoint-to-switch and back: the NIC's figures when there is one, else the link's; bandwidth
// capped by the switch port. The switch's latency and energy go on the link entering it.
void attach_endpoint(Topology& t, int32_t endpoint, int32_t sw, const TopologySpec& s,
                     int32_t cost = 1) {
  const SwitchParams& p = *s.switch_params;
  Bandwidth bw = s.nic ? s.nic->bandwidth : s.link.bandwidth();
  bw = std::min(bw, p.port_bandwidth);
  const Duration latency = s.nic ? s.nic->latency : s.link.latency;
  const EnergyPerBit energy = s.nic ? s.nic->energy : s.link.energy;
  t.add_link(Link{endpoint, sw, bw, latency + p.latency, energy + p.energy, cost});
  t.add_link(Link{sw, endpoint, bw, latency, energy, cost});
}

// Switch-to-switch cable at the port bandwidth (lanes of the link beyond it are not usable).
void join_switches(Topology& t, int32_t a, int32_t b, const TopologySpec& s, int32_t cost = 1) {
  const SwitchParams& p = *s.switch_params;
  const Bandwidth bw = std::min(s.link.bandwidth(), p.port_bandwidth);
  t.add_link(Link{a, b, bw, s.link.latency + p.latency, s.link.energy + p.energy, cost});
  t.add_link(Link{b, a, bw, s.link.latency + p.latency, s.link.energy + p.energy, cost});
}

std::vector<int32_t> identity(int64_t n) {
  std::vector<int32_t> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  return p;
}

// Endpoints cyclically shifted within consecutive blocks of `block` ids (other nodes fixed).
std::vector<int32_t> block_shift(int64_t nodes, int64_t endpoints, int64_t block) {
  std::vector<int32_t> p = identity(nodes);
  for (int64_t e = 0; e < endpoints; ++e) {
    p[static_cast<size_t>(e)] = static_cast<int32_t>(e / block * block + (e % block + 1) % block);
  }
  return p;
}

Topology build_switch(const TopologySpec& s) {
  const SwitchParams& p = require_switch(s);
  if (s.endpoints > p.radix) {
    fail("switch.radix", "a single switch of radix " + std::to_string(p.radix) +
                             " cannot connect " + std::to_string(s.endpoints) + " chips");
  }
  Topology t("switch", s.endpoints);
  const int32_t sw = t.add_switch();
  for (int32_t e = 0; e < s.endpoints; ++e) attach_endpoint(t, e, sw, s);
  t.add_symmetry_candidate(block_shift(t.nodes(), s.endpoints, s.endpoints));
  return t;
}

Topology build_full_mesh(const TopologySpec& s) {
  Topology t("full_mesh", s.endpoints);
  for (int32_t a = 0; a < s.endpoints; ++a) {
    for (int32_t b = 0; b < s.endpoints; ++b) {
      if (a != b) t.add_link(Link{a, b, s.link.bandwidth(), s.link.latency, s.link.energy, 1});
    }
  }
  t.add_symmetry_candidate(block_shift(s.endpoints, s.endpoints, s.endpoints));
  return t;
}

// A Hamiltonian cycle with unit steps: a boustrophedon over x within each y row, rows reversed
// plane by plane. It closes with one hop when the row count (and the plane count) is even.
std::vector<int32_t> torus_snake(const std::vector<int64_t>& d) {
  const int64_t X = d[0], Y = d[1], Z = d.size() > 2 ? d[2] : 1;
  std::vector<int32_t> plane;
  for (int64_t y = 0; y < Y; ++y) {
    for (int64_t i = 0; i < X; ++i)
      plane.push_back(static_cast<int32_t>(y * X + (y % 2 == 0 ? i : X - 1 - i)));
  }
  std::vector<int32_t> order;
  for (int64_t z = 0; z < Z; ++z) {
    for (int64_t i = 0; i < X * Y; ++i) {
      const int32_t v = plane[static_cast<size_t>(z % 2 == 0 ? i : X * Y - 1 - i)];
      order.push_back(static_cast<int32_t>(z * X * Y + v));
    }
  }
  return order;
}

Topology build_torus(const TopologySpec& s, size_t rank) {
  const std::string kind = rank == 2 ? "torus2d" : "torus3d";
  if (s.dims.size() != rank) {
    fail("dims", kind + " needs " + std::to_string(rank) + " extents, got " +
                     std::to_string(s.dims.size()));
  }
  int64_t n = 1;
  for (int64_t d : s.dims) n *= d;
  if (n != s.endpoints) {
    fail("dims", "the extents multiply to " + std::to_string(n) + " chips, but the domain has " +
                     std::to_string(s.endpoints));
  }
  Topology t(kind, n);
  std::vector<int64_t> stride(rank, 1);
  for (size_t k = 1; k < rank; ++k) stride[k] = stride[k - 1] * s.dims[k - 1];
  auto shifted = [&](int64_t node, size_t k) {
    const int64_t c = node / stride[k] % s.dims[k];
    return node + ((c + 1) % s.dims[k] - c) * stride[k];
  };
  for (int64_t v = 0; v < n; ++v) {
    for (size_t k = 0; k < rank; ++k) {
      if (s.dims[k] < 2) continue;
      // A ring of two is two cables between the same pair: they merge into one double link.
      t.add_duplex(static_cast<int32_t>(v), static_cast<int32_t>(shifted(v, k)), s.link.bandwidth(),
                   s.link.latency, s.link.energy);
    }
  }
  for (size_t k = 0; k < rank; ++k) {
    std::vector<int32_t> perm(static_cast<size_t>(n));
    for (int64_t v = 0; v < n; ++v)
      perm[static_cast<size_t>(v)] = static_cast<int32_t>(shifted(v, k));
    t.add_symmetry_candidate(std::move(perm));
  }
  const bool closes = s.dims[1] % 2 == 0 && (rank == 2 || s.dims[2] % 2 == 0);
  if (closes) t.set_ring_order(torus_snake(s.dims));
  return t;
}

}  // namespace

int64_t fat_tree_down_ports(int64_t radix, double oversubscription) {
  const double down = static_cast<double>(radix) * oversubscription / (1.0 + oversubscription);
  if (oversubscription < 1.0 || std::abs(down - std::round(down)) > 1e-9 || down < 1 ||
      down >= static_cast<double>(radix)) {
    fail("oversubscription", "radix " + std::to_string(radix) + " with oversubscription " +
                                 std::to_string(oversubscription) +
                                 " does not split into whole down and up ports");
  }
  return static_cast<int64_t>(std::round(down));
}

namespace {

// Folded Clos. Leaves have `down` endpoint ports and radix-down up ports; with 2 tiers every leaf
// has one cable to each spine; with 3 tiers leaves form pods of radix/2 under radix-down
// aggregation switches, and aggregation switch a of every pod joins core group a.
Topology build_fat_tree(const TopologySpec& s) {
  const SwitchParams& p = require_switch(s);
  const int64_t down = fat_tree_down_ports(p.radix, s.oversubscription);
  const int64_t up = p.radix - down;
  if (s.endpoints % down != 0) {
    fail("endpoints", std::to_string(s.endpoints) + " endpoints do not fill leaves of " +
                          std::to_string(down) + " down ports");
  }
  const int64_t leaves = s.endpoints / down;
  Topology t("fat_tree", s.endpoints);
  std::vector<int32_t> leaf(static_cast<size_t>(leaves));
  for (auto& l : leaf) l = t.add_switch();
  for (int64_t e = 0; e < s.endpoints; ++e) {
    attach_endpoint(t, static_cast<int32_t>(e), leaf[static_cast<size_t>(e / down)], s);
  }
  auto node_perm = [&]() { return identity(t.nodes()); };
  if (s.tiers == 2) {
    if (leaves > p.radix) {
      fail("tiers", std::to_string(leaves) + " leaves exceed a spine's radix " +
                        std::to_string(p.radix) + "; use tiers: 3");
    }
    std::vector<int32_t> spine(static_cast<size_t>(up));
    for (auto& sp : spine) sp = t.add_switch();
    for (int32_t l : leaf) {
      for (int32_t sp : spine) join_switches(t, l, sp, s);
    }
    t.add_symmetry_candidate(block_shift(t.nodes(), s.endpoints, down));
    std::vector<int32_t> leaves_shift = node_perm();
    for (int64_t e = 0; e < s.endpoints; ++e) {
      leaves_shift[static_cast<size_t>(e)] = static_cast<int32_t>((e + down) % s.endpoints);
    }
    for (int64_t l = 0; l < leaves; ++l) {
      leaves_shift[static_cast<size_t>(leaf[static_cast<size_t>(l)])] =
          leaf[static_cast<size_t>((l + 1) % leaves)];
    }
    t.add_symmetry_candidate(leaves_shift);
    std::vector<int32_t> spine_shift = node_perm();
    for (int64_t k = 0; k < up; ++k) {
      spine_shift[static_cast<size_t>(spine[static_cast<size_t>(k)])] =
          spine[static_cast<size_t>((k + 1) % up)];
    }
    t.add_symmetry_candidate(spine_shift);
    return t;
  }
  if (s.tiers != 3) fail("tiers", "a fat tree has 2 or 3 tiers");
  const int64_t pod_leaves = std::min(leaves, p.radix / 2);
  if (leaves % pod_leaves != 0) {
    fail("endpoints",
         std::to_string(leaves) + " leaves do not fill pods of " + std::to_string(pod_leaves));
  }
  const int64_t pods = leaves / pod_leaves;
  if (pods > p.radix) fail("endpoints", "more pods than a core switch has ports");
  // agg[pod][a], core[a][c]
  std::vector<int32_t> agg(static_cast<size_t>(pods * up));
  for (auto& a : agg) a = t.add_switch();
  std::vector<int32_t> core(static_cast<size_t>(up * pod_leaves));
  for (auto& c : core) c = t.add_switch();
  for (int64_t q = 0; q < pods; ++q) {
    for (int64_t a = 0; a < up; ++a) {
      const int32_t ag = agg[static_cast<size_t>(q * up + a)];
      for (int64_t j = 0; j < pod_leaves; ++j) {
        join_switches(t, leaf[static_cast<size_t>(q * pod_leaves + j)], ag, s);
      }
      for (int64_t c = 0; c < pod_leaves; ++c) {
        join_switches(t, ag, core[static_cast<size_t>(a * pod_leaves + c)], s);
      }
    }
  }
  t.add_symmetry_candidate(block_shift(t.nodes(), s.endpoints, down));
  // Leaves rotate within their pod; pods rotate (cores fixed); aggregation index and core group
  // rotate together; cores rotate within their group.
  std::vector<int32_t> in_pod = node_perm(), pod_shift = node_perm(), agg_shift = node_perm(),
                       core_shift = node_perm();
  const int64_t pod_endpoints = pod_leaves * down;
  for (int64_t e = 0; e < s.endpoints; ++e) {
    in_pod[static_cast<size_t>(e)] = static_cast<int32_t>(
        e / pod_endpoints * pod_endpoints + (e % pod_endpoints + down) % pod_endpoints);
    pod_shift[static_cast<size_t>(e)] = static_cast<int32_t>((e + pod_endpoints) % s.endpoints);
  }
  for (int64_t l = 0; l < leaves; ++l) {
    const int64_t q = l / pod_leaves, j = l % pod_leaves;
    in_pod[static_cast<size_t>(leaf[static_cast<size_t>(l)])] =
        leaf[static_cast<size_t>(q * pod_leaves + (j + 1) % pod_leaves)];
    pod_shift[static_cast<size_t>(leaf[static_cast<size_t>(l)])] =
        leaf[static_cast<size_t>((l + pod_leaves) % leaves)];
  }
  for (int64_t q = 0; q < pods; ++q) {
    for (int64_t a = 0; a < up; ++a) {
      const int32_t ag = agg[static_cast<size_t>(q * up + a)];
      pod_shift[static_cast<size_t>(ag)] = agg[static_cast<size_t>((q + 1) % pods * up + a)];
      agg_shift[static_cast<size_t>(ag)] = agg[static_cast<size_t>(q * up + (a + 1) % up)];
    }
  }
  for (int64_t a = 0; a < up; ++a) {
    for (int64_t c = 0; c < pod_leaves; ++c) {
      const int32_t co = core[static_cast<size_t>(a * pod_leaves + c)];
      agg_shift[static_cast<size_t>(co)] = core[static_cast<size_t>((a + 1) % up * pod_leaves + c)];
      core_shift[static_cast<size_t>(co)] =
          core[static_cast<size_t>(a * pod_leaves + (c + 1) % pod_leaves)];
    }
  }
  for (auto* perm : {&in_pod, &pod_shift, &agg_shift, &core_shift}) t.add_symmetry_candidate(*perm);
  return t;
}

// Groups of `a` routers, fully meshed; `h` global cables per router; group i's global cable k
// goes to group i+k+1 (mod g), so each pair of groups shares one cable when g = a*h + 1.
Topology build_dragonfly(const TopologySpec& s) {
  const SwitchParams& p = require_switch(s);
  const int64_t a = s.routers_per_group, ep = s.endpoints_per_router, h = s.global_links_per_router;
  if (a < 1 || ep < 1 || h < 1) {
    fail("routers_per_group",
         "dragonfly needs routers_per_group, endpoints_per_router and "
         "global_links_per_router >= 1");
  }
  if (ep + (a - 1) + h > p.radix) fail("switch.radix", "router radix too small for the dragonfly");
  if (s.endpoints % (a * ep) != 0) {
    fail("endpoints", "endpoints must be a whole number of groups of " + std::to_string(a * ep));
  }
  const int64_t g = s.endpoints / (a * ep);
  if (g - 1 > a * h) {
    fail("endpoints", std::to_string(g) + " groups need more than " + std::to_string(a * h) +
                          " global cables per group");
  }
  Topology t("dragonfly", s.endpoints);
  std::vector<int32_t> router(static_cast<size_t>(g * a));
  for (auto& r : router) r = t.add_switch();
  auto R = [&](int64_t group, int64_t r) { return router[static_cast<size_t>(group * a + r)]; };
  for (int64_t e = 0; e < s.endpoints; ++e)
    attach_endpoint(t, static_cast<int32_t>(e), router[static_cast<size_t>(e / ep)], s);
  for (int64_t q = 0; q < g; ++q) {
    for (int64_t i = 0; i < a; ++i) {
      for (int64_t j = 0; j < a; ++j) {
        if (i != j) {
          t.add_link(Link{R(q, i), R(q, j), std::min(s.link.bandwidth(), p.port_bandwidth),
                          s.link.latency + p.latency, s.link.energy + p.energy, 1});
        }
      }
    }
    for (int64_t k = 0; k + 1 < g; ++k) {
      const int64_t other = (q + k + 1) % g;
      t.add_link(Link{R(q, k % a), R(other, (g - 2 - k) % a),
                      std::min(s.link.bandwidth(), p.port_bandwidth), s.link.latency + p.latency,
                      s.link.energy + p.energy, 1});
    }
  }
  std::vector<int32_t> group_shift = identity(t.nodes());
  for (int64_t e = 0; e < s.endpoints; ++e) {
    group_shift[static_cast<size_t>(e)] = static_cast<int32_t>((e + a * ep) % s.endpoints);
  }
  for (int64_t q = 0; q < g; ++q) {
    for (int64_t i = 0; i < a; ++i) group_shift[static_cast<size_t>(R(q, i))] = R((q + 1) % g, i);
  }
  t.add_symmetry_candidate(group_shift);
  t.add_symmetry_candidate(block_shift(t.nodes(), s.endpoints, ep));
  return t;
}

// Runs `build`, prefixing the key paths of its input errors with `section`.
template <class F>
Topology within(const std::string& section, F build) {
  try {
    return build();
  } catch (const InputError& e) {
    std::vector<Diagnostic> out = e.diagnostics();
    for (Diagnostic& d : out) d.key_path = section + (d.key_path.empty() ? "" : "." + d.key_path);
    throw InputError(out);
  }
}

// `domains` copies of the local topology, each chip with a NIC into the scale-out topology.
// Scale-out links cost more than any local path, so traffic within a domain stays local and
// traffic between domains crosses the fewest fabric hops (rail-aligned: it first moves locally
// to the chip on the destination's rail, as NCCL's PXN does).
Topology build_hierarchical(const TopologySpec& s) {
  if (!s.local || !s.scale_out) fail("", "hierarchical needs a local and a scale_out topology");
  const Topology local = within("local", [&] { return build_topology(*s.local); });
  const int64_t size = local.endpoints(), D = s.domains;
  if (D < 1) fail("scale_out.domains", "at least one domain");
  const int64_t N = size * D;
  TopologySpec so_spec = *s.scale_out;
  so_spec.endpoints = N;
  const Topology so = within("scale_out", [&] { return build_topology(so_spec); });

  // position[chip] = the scale-out endpoint (NIC port) the chip's NIC is cabled to.
  std::vector<int64_t> position(static_cast<size_t>(N));
  std::iota(position.begin(), position.end(), 0);
  if (s.rail_optimised) {
    if (so_spec.kind != "fat_tree" || !so_spec.switch_params) {
      fail("scale_out.rail_optimised", "rail optimisation needs a fat_tree scale-out");
    }
    const int64_t down =
        fat_tree_down_ports(so_spec.switch_params->radix, so_spec.oversubscription);
    if (down % D != 0 || size % (down / D) != 0) {
      fail("scale_out.rail_optimised", "a leaf's " + std::to_string(down) +
                                           " ports do not hold the same chips of all " +
                                           std::to_string(D) + " domains");
    }
    // A leaf holds chips i, i + rails, i + 2 rails, ... of every domain: chip i's rail is
    // i mod rails. That grouping is preserved by the local topology's translations.
    const int64_t per_leaf = down / D, rails = size / per_leaf;
    for (int64_t k = 0; k < D; ++k) {
      for (int64_t i = 0; i < size; ++i) {
        position[static_cast<size_t>(k * size + i)] = (i % rails) * down + (i / rails) * D + k;
      }
    }
  }
  std::vector<int64_t> chip_at(static_cast<size_t>(N));
  for (int64_t c = 0; c < N; ++c)
    chip_at[static_cast<size_t>(position[static_cast<size_t>(c)])] = c;

  Topology t("hierarchical", N);
  t.set_domain_size(size);
  const int64_t local_switches = local.switches();
  for (int64_t i = 0; i < D * local_switches + so.switches(); ++i) t.add_switch();
  auto local_node = [&](int64_t k, int64_t v) {
    return static_cast<int32_t>(v < size ? k * size + v : N + k * local_switches + (v - size));
  };
  auto so_node = [&](int64_t v) {
    return static_cast<int32_t>(v < N ? chip_at[static_cast<size_t>(v)]
                                      : N + D * local_switches + (v - N));
  };
  for (int64_t k = 0; k < D; ++k) {
    for (const Link& l : local.links()) {
      t.add_link(Link{local_node(k, l.from), local_node(k, l.to), l.bandwidth, l.latency, l.energy,
                      l.cost});
    }
  }
  // Any simple local path costs less than one fabric link.
  int64_t local_cost = 0;
  for (const Link& l : local.links()) local_cost += l.cost;
  const int32_t fabric_cost = static_cast<int32_t>(std::min<int64_t>(local_cost + 1, 1 << 20));
  for (const Link& l : so.links()) {
    t.add_link(Link{so_node(l.from), so_node(l.to), l.bandwidth, l.latency, l.energy,
                    l.cost * fabric_cost});
  }
  std::vector<int32_t> order;
  for (int64_t k = 0; k < D; ++k) {
    for (int32_t v : local.ring_order()) order.push_back(local_node(k, v));
  }
  t.set_ring_order(std::move(order));

  // Candidate automorphisms: a chip permutation moves each NIC, and a leaf follows its NICs.
  auto with_fabric = [&](std::vector<int32_t> perm) {
    for (int64_t p = 0; p < N; ++p) {
      const int32_t image_chip = perm[static_cast<size_t>(chip_at[static_cast<size_t>(p)])];
      const int64_t image_pos = position[static_cast<size_t>(image_chip)];
      for (int32_t id : so.out_links(static_cast<int32_t>(p))) {
        const int32_t leaf = so.link(id).to;
        const int32_t image_leaf =
            so.link(so.out_links(static_cast<int32_t>(image_pos)).front()).to;
        perm[static_cast<size_t>(so_node(leaf))] = so_node(image_leaf);
      }
    }
    return perm;
  };
  std::vector<int32_t> base = identity(t.nodes());
  for (const auto& g : local.automorphism_list()) {
    std::vector<int32_t> perm = base;
    for (int64_t k = 0; k < D; ++k) {
      for (int64_t v = 0; v < local.nodes(); ++v) {
        perm[static_cast<size_t>(local_node(k, v))] = local_node(k, g[static_cast<size_t>(v)]);
      }
    }
    t.add_symmetry_candidate(with_fabric(std::move(perm)));
  }
  if (D > 1) {
    std::vector<int32_t> perm = base;
    for (int64_t k = 0; k < D; ++k) {
      for (int64_t v = 0; v < local.nodes(); ++v) {
        perm[static_cast<size_t>(local_node(k, v))] = local_node((k + 1) % D, v);
      }
    }
    t.add_symmetry_candidate(with_fabric(std::move(perm)));
  }
  for (const auto& g : so.automorphism_list()) {
    bool fixes_endpoints = true;
    for (int64_t p = 0; p < N; ++p)
      fixes_endpoints = fixes_endpoints && g[static_cast<size_t>(p)] == p;
    if (!fixes_endpoints) continue;
    std::vector<int32_t> perm = base;
    for (int64_t v = N; v < so.nodes(); ++v)
      perm[static_cast<size_t>(so_node(v))] = so_node(g[static_cast<size_t>(v)]);
    t.add_symmetry_candidate(std::move(perm));
  }
  return t;
}

TopologyRegistry make_registry() {
  TopologyRegistry r("topology");
  r.add("switch", build_switch);
  r.add("full_mesh", build_full_mesh);
  r.add("torus2d", [](const TopologySpec& s) { return build_torus(s, 2); });
  r.add("torus3d", [](const TopologySpec& s) { return build_torus(s, 3); });
  r.add("fat_tree", build_fat_tree);
  r.add("dragonfly", build_dragonfly);
  r.add("hierarchical", build_hierarchical);
  return r;
}

}  // namespace

const TopologyRegistry& topology_registry() {
  static const TopologyRegistry registry = make_registry();
  return registry;
}

Topology build_topology(const TopologySpec& spec) {
  const TopologyRegistry& r = topology_registry();
  if (!r.contains(spec.kind)) {
    std::string known;
    for (const std::string& n : r.names()) known += (known.empty() ? "" : ", ") + n;
    fail("topology", "unknown topology '" + spec.kind + "'; known: " + known);
  }
  if (spec.endpoints < 1 && spec.kind != "hierarchical") fail("size", "at least one chip");
  Topology t = r.create(spec.kind, spec);
  t.finalize();
  return t;
}

}  // namespace scoville::models
