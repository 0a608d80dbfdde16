// Sharding conserves work: summed over every chip of the pool (each role counted by its
// multiplicity), each op's FLOPs and weight bytes equal the unsharded ones, times the number of
// copies docs/mapping.md says a real stack keeps (1 for every op that is split).
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "mapping_test_support.hpp"
#include "model_files.hpp"
#include "workloads/decompose.hpp"
#include "workloads/mapping/map_iteration.hpp"
#include "workloads/mapping/memory_footprint.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;
using namespace scoville::workloads;
using namespace scoville::workloads::testing;

namespace {

struct Sums {
  std::map<std::string, double> flops;
  std::map<std::string, double> weights;
};

Sums over_chips(const MappedIteration& mapped) {
  Sums s;
  for (const ChipRole& role : mapped.roles) {
    const double copies = static_cast<double>(role.trace.multiplicity);
    for (const TraceNode& node : role.trace.nodes) {
      if (node.kind != TraceNodeKind::kCompute) continue;
      s.flops[node.op.name] += copies * node.op.flops.si();
      s.weights[node.op.name] += copies * node.op.weight_bytes.si();
    }
  }
  return s;
}

bool in(const std::string& name, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (name == n) return true;
  }
  return false;
}

// MLA's latent down-projections and norms: whole on every attention-TP rank (vLLM).
bool mla_replicated(const std::string& name) {
  return in(name, {"attn_q_down", "attn_kv_down", "attn_q_norm", "attn_kv_norm"});
}

// Copies of an op's work the mapping keeps, per docs/mapping.md.
double flop_copies(const ModelConfig& model, const std::string& name, const ParallelDegrees& d,
                   bool expert_parallel) {
  const double attn_tp = static_cast<double>(d.tp / d.attn_dp);
  if (name == "attn_rope" && model.attention().type == AttentionType::kMla) {
    // The query heads are split, the one shared RoPE key is rotated on every rank.
    const double heads = static_cast<double>(model.attention().heads);
    return (heads + attn_tp) / (heads + 1.0);
  }
  if (mla_replicated(name)) return attn_tp;
  if (in(name, {"attn_norm", "attn_residual", "ffn_norm", "ffn_residual", "final_norm"})) {
    return d.sequence_parallel ? 1.0 : attn_tp;  // sequence parallel splits their tokens
  }
  if (!expert_parallel && in(name, {"moe_router", "moe_topk", "moe_combine"})) {
    return static_cast<double>(d.tp);
  }
  return 1.0;
}
double weight_copies(const std::string& name, const ParallelDegrees& d) {
  if (in(name, {"attn_norm", "ffn_norm", "final_norm", "moe_router"}) || mla_replicated(name)) {
    return static_cast<double>(d.tp);
  }
  // With ep > 1 the shared experts run on each rank's own tokens, with whole weights.
  if (d.ep > 1 && name.rfind("moe_shared", 0) == 0) return static_cast<double>(d.tp);
  if (name.rfind("attn_", 0) == 0 || name == "lm_head") return static_cast<double>(d.attn_dp);
  // ep < tp: tp / ep EP groups, each with the whole expert set.
  if (d.ep > 1 && name.rfind("moe_experts", 0) == 0) return static_cast<double>(d.tp / d.ep);
  return 1.0;
}

void check_conservation(const ModelConfig& model, const IterationShape& shape,
                        const PoolMapping& mapping) {
  INFO(model.name() << (mapping.degrees.sequence_parallel ? " sp" : "") << " tp "
                    << mapping.degrees.tp << " ep " << mapping.degrees.ep << " pp "
                    << mapping.degrees.pp << " dp " << mapping.degrees.dp << " attn_dp "
                    << mapping.degrees.attn_dp);
  const ParallelDegrees& d = mapping.degrees;
  IterationShape replica_shape = shape;
  replica_shape.batch = shape.batch / d.dp;
  const IterationTrace replica = decompose_iteration(model, replica_shape);
  const IterationTrace whole = decompose_iteration(model, shape);
  const bool expert_parallel = d.ep > 1;

  Sums expected;
  for (const Op& op : replica.ops) {
    const double dp = static_cast<double>(d.dp);
    expected.flops[op.name] += dp * op.flops.si() * flop_copies(model, op.name, d, expert_parallel);
    expected.weights[op.name] += dp * op.weight_bytes.si() * weight_copies(op.name, d);
  }
  const Sums actual = over_chips(map_iteration(model, shape, mapping));
  REQUIRE(actual.flops.size() == expected.flops.size());
  for (const auto& [name, flops] : expected.flops) {
    INFO(name);
    CHECK(actual.flops.at(name) == Approx(flops).epsilon(1e-12));
    CHECK(actual.weights.at(name) == Approx(expected.weights.at(name)).epsilon(1e-12));
  }

  // Without tensor parallelism nothing is repeated: the totals are the unsharded ones. With
  // sequence parallelism no FLOP is repeated in a dense model (each rank still reads the norm
  // weights).
  if (d.tp == 1 || (d.sequence_parallel && model.ffn().type == FfnType::kDense)) {
    double flops = 0.0;
    double weights = 0.0;
    for (const auto& [name, v] : actual.flops) flops += v;
    for (const auto& [name, v] : actual.weights) weights += v;
    CHECK(flops == Approx(whole.total_flops().si()).epsilon(1e-12));
    if (d.tp == 1) {
      CHECK(weights ==
            Approx(static_cast<double>(d.dp) * replica.total_weight_bytes().si()).epsilon(1e-12));
    }
  }
}

}  // namespace

TEST_CASE("Sharding llama-3.1-8b conserves FLOPs and weight bytes for TP, PP and DP") {
  const ModelConfig model = load_model(model_file("llama-3.1-8b"));
  const IterationShape decode{Phase::kDecode, 16, 1, 2048};
  const IterationShape prefill{Phase::kPrefill, 4, 512, 512};
  for (const IterationShape& shape : {decode, prefill}) {
    check_conservation(model, shape, pool(1, 1, 1, 1, 1));
    check_conservation(model, shape, pool(8, 1, 1, 1, 1));
    check_conservation(model, shape, pool(1, 1, 4, 1, 1));
    check_conservation(model, shape, pool(1, 1, 3, 2, 1));  // 32 layers over 3 stages
    check_conservation(model, shape, pool(2, 1, 2, 2, 1));
    check_conservation(model, shape, pool(4, 1, 1, 1, 2));
    check_conservation(model, shape, pool(4, 1, 1, 1, 4));
    check_conservation(model, shape, pool(8, 1, 1, 1, 1, true));
    check_conservation(model, shape, pool(2, 1, 2, 2, 1, true));
  }
}

TEST_CASE("Sharding gpt-oss-120b conserves FLOPs and weight bytes for TP, EP, PP and DP") {
  const ModelConfig model = load_model(model_file("gpt-oss-120b"));
  const IterationShape decode{Phase::kDecode, 32, 1, 4096};
  const IterationShape prefill{Phase::kPrefill, 8, 256, 256};
  for (const IterationShape& shape : {decode, prefill}) {
    check_conservation(model, shape, pool(4, 1, 1, 1, 1));
    check_conservation(model, shape, pool(4, 4, 1, 1, 1));
    check_conservation(model, shape, pool(8, 8, 1, 1, 8));
    check_conservation(model, shape, pool(2, 2, 2, 2, 1));
    check_conservation(model, shape, pool(4, 4, 1, 2, 2));
    check_conservation(model, shape, pool(1, 1, 2, 4, 1));
    check_conservation(model, shape, pool(4, 1, 1, 1, 1, true));
    check_conservation(model, shape, pool(4, 4, 2, 1, 1, true));
    check_conservation(model, shape, pool(8, 4, 1, 1, 8));  // 2 expert replicas
    check_conservation(model, shape, pool(8, 2, 1, 1, 4));  // 4 replicas, attention tp 2
  }
}

TEST_CASE("Sharding an MLA model with shared experts conserves FLOPs and weight bytes") {
  // The shipped DeepSeek R1 file: MLA, shared experts, dense first layers, MXFP4 experts.
  const ModelConfig model = load_model(model_file("deepseek-r1"));
  const IterationShape decode{Phase::kDecode, 32, 1, 4096};
  const IterationShape prefill{Phase::kPrefill, 8, 128, 128};
  for (const IterationShape& shape : {decode, prefill}) {
    check_conservation(model, shape, pool(8, 1, 1, 1, 1));
    check_conservation(model, shape, pool(8, 8, 1, 1, 8));
    check_conservation(model, shape, pool(4, 4, 2, 1, 1, true));
    check_conservation(model, shape, pool(1, 1, 4, 2, 1));
    check_conservation(model, shape, pool(8, 4, 1, 1, 8));  // 2 expert replicas
  }
  const auto resident_sum = [&](const PoolMapping& m) {
    double total = 0.0;
    for (const MemoryFootprint& f :
         memory_footprint(model, map_iteration(model, decode, m), gigabytes(10000))) {
      total += static_cast<double>(f.multiplicity) * f.weights.si();
    }
    return total;
  };
  CHECK(resident_sum(pool(1, 1, 1, 1, 1)) == Approx(model.weight_bytes().si()).epsilon(1e-12));
  CHECK(resident_sum(pool(1, 1, 4, 1, 1)) == Approx(model.weight_bytes().si()).epsilon(1e-12));
}

TEST_CASE("Roles cover every chip once and identical ranks share one trace") {
  const ModelConfig model = load_model(model_file("llama-3.1-8b"));
  // 7 sequences over 2 replicas x 2 attention groups: shares 2, 2, 2, 1.
  const MappedIteration mapped =
      map_iteration(model, IterationShape{Phase::kDecode, 7, 1, 1024}, pool(4, 1, 2, 2, 2));
  std::map<int64_t, int> seen;
  int64_t chips = 0;
  for (const ChipRole& role : mapped.roles) {
    CHECK(role.trace.multiplicity == static_cast<int64_t>(role.ranks.size()));
    CHECK(role.trace.rank == role.ranks.front());
    chips += role.trace.multiplicity;
    for (const int64_t rank : role.ranks) ++seen[rank];
  }
  CHECK(chips == mapped.mapping.chips);
  CHECK(static_cast<int64_t>(seen.size()) == mapped.mapping.chips);
  // Per stage: replica 4 sequences (2 + 2 per group) and replica 3 (2 + 1): three roles.
  CHECK(mapped.roles.size() == 2 * 3);
}

TEST_CASE("Resident weights per chip add up to the model's weight bytes") {
  for (const char* name : {"llama-3.1-8b", "gpt-oss-120b"}) {
    const ModelConfig model = load_model(model_file(name));
    INFO(name);
    const IterationShape shape{Phase::kDecode, 8, 1, 1024};
    const double w = bytes_per_value(model.precision().weights);
    const auto resident_sum = [&](const PoolMapping& m) {
      double total = 0.0;
      for (const MemoryFootprint& f :
           memory_footprint(model, map_iteration(model, shape, m), gigabytes(1000))) {
        total += static_cast<double>(f.multiplicity) * f.weights.si();
      }
      return total;
    };
    const double all = model.weight_bytes().si();
    CHECK(resident_sum(pool(1, 1, 1, 1, 1)) == Approx(all).epsilon(1e-12));
    CHECK(resident_sum(pool(1, 1, 4, 1, 1)) == Approx(all).epsilon(1e-12));
    // TP and EP split everything but the norms and the router, which every rank keeps.
    const int64_t tp = 4;
    const int64_t ep = model.ffn().type == FfnType::kMoe ? tp : 1;
    const double copies = static_cast<double>(tp - 1);
    const ParameterCounts& p = model.parameters();
    CHECK(resident_sum(pool(tp, ep, 1, 1, 1)) ==
          Approx(all + copies * static_cast<double>(p.norms + p.router) * w).epsilon(1e-12));
  }
}

TEST_CASE("KV cache per chip follows the KV heads each chip holds") {
  const ModelConfig model = load_model(model_file("llama-3.1-8b"));
  const int64_t batch = 8;
  const int64_t context = 4096;
  const IterationShape shape{Phase::kDecode, batch, 1, context};
  const Bytes whole = model.kv_bytes(context) * static_cast<double>(batch);
  const auto kv_per_chip = [&](const PoolMapping& m) {
    return memory_footprint(model, map_iteration(model, shape, m), gigabytes(1000))
        .front()
        .kv_cache.si();
  };
  CHECK(kv_per_chip(pool(1, 1, 1, 1, 1)) == Approx(whole.si()));
  CHECK(kv_per_chip(pool(8, 1, 1, 1, 1)) == Approx(whole.si() / 8.0));
  // tp 16 > 8 KV heads: each KV head sits on two ranks, so a chip holds as much as at tp 8.
  // (llama-3.1-8b has 32 heads, so tp 16 is valid.)
  CHECK(kv_per_chip(pool(16, 1, 1, 1, 1)) == Approx(whole.si() / 8.0));
  CHECK(kv_per_chip(pool(8, 1, 1, 1, 8)) == Approx(whole.si() / 8.0));  // 1 sequence each
}

TEST_CASE("spans_attention_groups marks exactly the nodes that do not follow the group's batch") {
  // 9 sequences over 4 attention groups: shares 3, 2, 2, 2, so two roles per stage whose
  // attention batches differ and whose replica (all 9) is the same. A node whose work or bytes
  // differ between them belongs to its attention group; one that is equal works on the replica.
  const IterationShape decode{Phase::kDecode, 9, 1, 2048};
  const IterationShape prefill{Phase::kPrefill, 9, 64, 64};
  struct Case {
    const char* model;
    PoolMapping mapping;
  };
  for (const Case& c :
       {Case{"gpt-oss-120b", pool(4, 4, 1, 1, 4)}, Case{"gpt-oss-120b", pool(4, 1, 1, 1, 4)},
        Case{"llama-3.1-8b", pool(4, 1, 1, 1, 4)}, Case{"deepseek-r1", pool(8, 8, 1, 1, 4)}}) {
    const ModelConfig model = load_model(model_file(c.model));
    for (const IterationShape& shape : {decode, prefill}) {
      const MappedIteration mapped = map_iteration(model, shape, c.mapping);
      REQUIRE(mapped.roles.size() == 2);
      const ChipRole& big = mapped.roles[0];
      const ChipRole& small = mapped.roles[1];
      REQUIRE(big.attn_batch > small.attn_batch);
      REQUIRE(big.trace.nodes.size() == small.trace.nodes.size());
      int shared = 0, local = 0;
      for (size_t i = 0; i < big.trace.nodes.size(); ++i) {
        const TraceNode& a = big.trace.nodes[i];
        const TraceNode& b = small.trace.nodes[i];
        REQUIRE(a.name == b.name);
        const double va = a.kind == TraceNodeKind::kCompute
                              ? a.op.flops.si() + a.op.activation_in_bytes.si()
                              : a.collective.bytes.si();
        const double vb = b.kind == TraceNodeKind::kCompute
                              ? b.op.flops.si() + b.op.activation_in_bytes.si()
                              : b.collective.bytes.si();
        const bool spans = spans_attention_groups(model, c.mapping.degrees, a.name, a.layer);
        INFO(c.model << " " << a.name << " layer " << a.layer << ": " << va << " vs " << vb);
        if (va == 0.0 && vb == 0.0) continue;
        CHECK(spans == (va == vb));
        (spans ? shared : local) += 1;
      }
      CHECK(shared > 0);
      CHECK(local > 0);
    }
  }
}
