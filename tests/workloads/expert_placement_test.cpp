// Expert parallelism under a drawn routing: each EP rank's expert ops come from the experts it
// holds (contiguous placement), and together the ranks do exactly the layer's work.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <set>

#include "mapping_test_support.hpp"
#include "model_files.hpp"
#include "sim/base/rng.hpp"
#include "workloads/decompose.hpp"
#include "workloads/mapping/expert_placement.hpp"
#include "workloads/mapping/map_iteration.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;
using namespace scoville::workloads;
using namespace scoville::workloads::testing;

namespace {

RoutingConfig zipf(double s, uint64_t seed = 0) {
  RoutingConfig r;
  r.distribution = RoutingDistribution::kZipf;
  r.zipf_exponent = s;
  r.seed = seed;
  return r;
}

const Op& op_named(const IterationTrace& t, const std::string& name) {
  for (const Op& op : t.ops) {
    if (op.name == name) return op;
  }
  FAIL("no op " << name);
  return t.ops.front();
}

}  // namespace

TEST_CASE("the EP ranks' expert ops add up to the layer's pairs and touched experts' weights",
          "[mapping][moe]") {
  const ModelConfig model = load_model(model_file("gpt-oss-20b"));  // 32 experts, top-4
  const FfnConfig& f = model.ffn();
  const int64_t ep = 16;
  const int64_t tokens = 96;
  const IterationTrace trace = decompose_iteration(model, {Phase::kDecode, tokens, 1, 512});
  RngStream rng(5, "expert_placement_test");
  const std::vector<int64_t> counts =
      draw_tokens_per_expert(zipf(1.2), f.experts, f.top_k, tokens, rng);
  const int64_t touched =
      std::count_if(counts.begin(), counts.end(), [](int64_t c) { return c > 0; });
  const std::vector<RankExpertLoad> loads = rank_expert_loads(counts, ep);
  REQUIRE(loads.size() == static_cast<size_t>(ep));
  int64_t pairs = 0;
  int64_t touched_over_ranks = 0;
  for (const RankExpertLoad& l : loads) {
    pairs += l.pairs;
    touched_over_ranks += l.touched;
  }
  CHECK(pairs == tokens * f.top_k);
  CHECK(touched_over_ranks == touched);
  // Zipf puts the hottest experts (0 and 1) together on rank 0.
  CHECK(loads[0].pairs == counts[0] + counts[1]);
  CHECK(loads[0].pairs > pairs / ep);

  for (const char* name : {"moe_experts_gate_up", "moe_experts_act", "moe_experts_down"}) {
    INFO(name);
    const Op& replica = op_named(trace, name);
    const double per_expert = replica.weight_bytes.si() / static_cast<double>(replica.instances);
    double flops = 0;
    double weights = 0;
    double activations = 0;
    for (int64_t rank = 0; rank < ep; ++rank) {
      const Op op = rank_expert_op(replica, counts, ep, rank);
      flops += op.flops.si();
      weights += op.weight_bytes.si();
      activations += op.activation_in_bytes.si();
      const RankExpertLoad& l = loads[static_cast<size_t>(rank)];
      if (replica.kind == OpKind::kMatmul) {
        CHECK(op.instances == l.touched);
        CHECK(op.weight_bytes.si() == Approx(per_expert * static_cast<double>(l.touched)));
        CHECK(std::accumulate(op.tokens_per_instance.begin(), op.tokens_per_instance.end(),
                              int64_t{0}) == l.pairs);
        if (l.touched > 0) CHECK(op.m == (l.pairs + l.touched - 1) / l.touched);
        // FLOPs count the rank's real pairs: 2 x pairs x n x k.
        CHECK(op.flops.si() == Approx(2.0 * static_cast<double>(l.pairs) *
                                      static_cast<double>(op.n) * static_cast<double>(op.k)));
      }
      if (l.pairs == 0) CHECK(op.instances == 0);
    }
    // Together the ranks do the whole layer's work (all tokens x top_k pairs).
    CHECK(flops == Approx(replica.flops.si()).epsilon(1e-12));
    CHECK(activations == Approx(replica.activation_in_bytes.si()).epsilon(1e-12));
    if (replica.kind == OpKind::kMatmul) {
      CHECK(weights == Approx(per_expert * static_cast<double>(touched)));
    }
  }
  CHECK_THROWS_AS(rank_expert_loads(counts, 3), std::invalid_argument);  // 3 does not divide 32
}

TEST_CASE("a drawn routing changes only the EP ranks' routed experts in the mapping",
          "[mapping][moe]") {
  const ModelConfig model = load_model(model_file("gpt-oss-20b"));
  const PoolMapping mapping = pool(8, 8, 1, 2, 1);  // two replicas of 8, ep = tp = 8
  const IterationShape shape{Phase::kDecode, 21, 1, 1024};
  const MappedIteration expected = map_iteration(model, shape, mapping);
  const MappedIteration drawn = map_iteration(model, shape, mapping, zipf(1.2, 3));
  CHECK(expected.ep_loads.empty());
  REQUIRE(drawn.roles.size() == expected.roles.size());
  // One draw per replica batch (11 and 10 sequences) and MoE layer.
  CHECK(drawn.ep_loads.size() == static_cast<size_t>(2 * model.layers()));
  for (const auto& load : drawn.ep_loads) CHECK(load.imbalance() >= 1.0);
  for (size_t r = 0; r < drawn.roles.size(); ++r) {
    const ChipRole& a = expected.roles[r];
    const ChipRole& b = drawn.roles[r];
    CHECK(a.rank_experts.empty());
    // Three routed-expert nodes per MoE layer, one op per rank of the role.
    REQUIRE(b.rank_experts.size() == static_cast<size_t>(3 * model.layers()));
    std::set<size_t> expert_nodes;
    for (const RankExpertOps& v : b.rank_experts) {
      CHECK(v.per_rank.size() == b.ranks.size());
      CHECK(b.trace.nodes[v.node].op.name.rfind("moe_experts", 0) == 0);
      expert_nodes.insert(v.node);
    }
    REQUIRE(a.trace.nodes.size() == b.trace.nodes.size());
    for (size_t n = 0; n < a.trace.nodes.size(); ++n) {
      if (expert_nodes.count(n) != 0) continue;
      INFO(a.trace.nodes[n].name);
      CHECK(a.trace.nodes[n].op.flops.si() == b.trace.nodes[n].op.flops.si());
      CHECK(a.trace.nodes[n].op.weight_bytes.si() == b.trace.nodes[n].op.weight_bytes.si());
      CHECK(a.trace.nodes[n].collective.bytes.si() == b.trace.nodes[n].collective.bytes.si());
    }
  }
  // The same seed draws the same routing; a bad one is refused with the key named.
  const MappedIteration again = map_iteration(model, shape, mapping, zipf(1.2, 3));
  CHECK(again.ep_loads.front().ranks.front().pairs == drawn.ep_loads.front().ranks.front().pairs);
  CHECK_THROWS_AS(map_iteration(model, shape, mapping, zipf(9.0)), InputError);
}

TEST_CASE("routing specs parse as the command line writes them", "[moe]") {
  CHECK(parse_routing_spec("expected").distribution == RoutingDistribution::kExpected);
  CHECK(parse_routing_spec("uniform").distribution == RoutingDistribution::kUniform);
  CHECK(parse_routing_spec("zipf").zipf_exponent == 1.0);
  CHECK(parse_routing_spec("zipf:1.5").zipf_exponent == 1.5);
  CHECK(to_spec(parse_routing_spec("zipf:1.5")) == "zipf:1.5");
  CHECK(to_spec(parse_routing_spec("uniform")) == "uniform");
  for (const char* bad : {"zipf:", "zipf:x", "zipf:-1", "zipf:9", "zipf:1.2x", "histogram", ""}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_routing_spec(bad), std::invalid_argument);
  }
}
