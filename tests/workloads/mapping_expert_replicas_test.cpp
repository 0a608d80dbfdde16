// Expert parallelism narrower than the pool (ep divides tp): tp / ep EP groups each hold every
// expert, so pools wider than the routed experts (jalapeno-2048's 256- to 2,048-chip pools) can
// run attention data-parallel over all their chips. What is still refused says why.
#include <catch2/catch.hpp>

#include <string>

#include "mapping_test_support.hpp"
#include "model_files.hpp"
#include "sim/base/error.hpp"
#include "workloads/mapping/map_iteration.hpp"
#include "workloads/mapping/memory_footprint.hpp"
#include "workloads/mapping/pool_mapping.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;
using namespace scoville::workloads;
using namespace scoville::workloads::testing;
using Catch::Matchers::Contains;

namespace {

std::string refusal(const ModelConfig& model, const PoolMapping& m) {
  try {
    validate_mapping(model, m);
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

double d(int64_t v) { return static_cast<double>(v); }

const TraceNode* find(const ChipTrace& t, const std::string& name) {
  for (const TraceNode& n : t.nodes) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("Pools wider than the routed experts are accepted with attention-DP and ep | tp") {
  for (const char* name : {"deepseek-r1", "kimi-k2.5", "gpt-oss-120b"}) {
    const ModelConfig model = load_model(model_file(name));
    const int64_t experts = model.ffn().experts;
    INFO(name << " with " << experts << " experts");
    // One expert per chip over the whole pool (ep = tp = experts), attention-DP everywhere.
    CHECK(refusal(model, pool(experts, experts, 1, 1, experts)) == "accepted");
    // Twice and four times as many chips as experts: 2 and 4 expert replicas.
    CHECK(refusal(model, pool(2 * experts, experts, 1, 1, 2 * experts)) == "accepted");
    CHECK(refusal(model, pool(4 * experts, experts, 1, 1, 4 * experts)) == "accepted");
    // ep = tp beyond the experts still cannot split them.
    CHECK_THAT(refusal(model, pool(2 * experts, 2 * experts, 1, 1, 2 * experts)),
               Contains("does not divide the " + std::to_string(experts) + " routed experts"));
  }
}

TEST_CASE("Narrow EP groups are refused unless they hold whole attention groups") {
  const ModelConfig model = load_model(model_file("gpt-oss-120b"));
  // Attention tensor-parallel over all 8 chips: an EP group of 4 would split attention groups.
  CHECK_THAT(refusal(model, pool(8, 4, 1, 1, 1)),
             Contains("ep 4 below tp 8 needs attention data parallelism"));
  // Attention groups of 4 chips (attn_dp 2): an EP group of 2 holds half of one.
  CHECK_THAT(refusal(model, pool(8, 2, 1, 1, 2)),
             Contains("ep 2 is not a multiple of the attention tp 4"));
  // Attention groups of 4 inside EP groups of 4: accepted.
  CHECK(refusal(model, pool(8, 4, 1, 1, 2)) == "accepted");
  // ep must divide tp.
  CHECK_THAT(refusal(model, pool(8, 16, 1, 1, 8)), Contains("must be 1 or divide tp 8"));
  // A dense model still has no experts to spread.
  const ModelConfig dense = load_model(model_file("llama-3.1-8b"));
  CHECK_THAT(refusal(dense, pool(8, 4, 1, 1, 8)), Contains("is dense"));
}

TEST_CASE("Expert replicas: each EP group runs its share of the tokens over its own ranks") {
  const ModelConfig model = load_model(model_file("gpt-oss-120b"));
  const int64_t tp = 8;
  const IterationShape decode{Phase::kDecode, 64, 1, 4096};
  const MappedIteration full = map_iteration(model, decode, pool(tp, tp, 1, 1, tp));
  for (const int64_t ep : {4, 2}) {
    INFO("ep " << ep);
    const MappedIteration half = map_iteration(model, decode, pool(tp, ep, 1, 1, tp));
    const ChipTrace& a = full.roles.front().trace;
    const ChipTrace& b = half.roles.front().trace;
    const TraceNode* up_a = find(a, "moe_experts_gate_up");
    const TraceNode* up_b = find(b, "moe_experts_gate_up");
    REQUIRE(up_a != nullptr);
    REQUIRE(up_b != nullptr);
    // Same expert FLOPs per chip (tokens / replicas over experts / ep), weights ep / tp more.
    CHECK(up_b->op.flops.si() == Approx(up_a->op.flops.si()).epsilon(1e-12));
    CHECK(up_b->op.weight_bytes.si() == Approx(up_a->op.weight_bytes.si() * d(tp / ep)));
    // The dispatch all-to-all spans the EP group only; each rank sends the same bytes share.
    const TraceNode* all_a = find(a, "moe_dispatch");
    const TraceNode* all_b = find(b, "moe_dispatch");
    REQUIRE(all_a != nullptr);
    REQUIRE(all_b != nullptr);
    CHECK(all_b->collective.group_size == ep);
    CHECK(all_b->collective.bytes.si() ==
          Approx(all_a->collective.bytes.si() * (d(ep - 1) / d(ep)) / (d(tp - 1) / d(tp))));
    // Resident routed-expert weights per chip: experts / ep of them.
    const auto fa = memory_footprint(model, full, gigabytes(10000));
    const auto fb = memory_footprint(model, half, gigabytes(10000));
    CHECK(fb.front().weights.si() > fa.front().weights.si());
  }
}

TEST_CASE("A drawn routing with expert replicas is refused and ep = tp is accepted") {
  const ModelConfig model = load_model(model_file("gpt-oss-120b"));
  const IterationShape decode{Phase::kDecode, 64, 1, 4096};
  RoutingConfig zipf;
  zipf.distribution = RoutingDistribution::kZipf;
  zipf.zipf_exponent = 1.2;
  CHECK_NOTHROW(map_iteration(model, decode, pool(8, 8, 1, 1, 8), zipf));
  try {
    map_iteration(model, decode, pool(8, 4, 1, 1, 8), zipf);
    FAIL("a drawn routing with ep 4 < tp 8 was accepted");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Contains("routing") && Contains("expert replicas"));
  }
  // The expectation keeps working with replicas.
  CHECK_NOTHROW(map_iteration(model, decode, pool(8, 4, 1, 1, 8), RoutingConfig{}));
}
