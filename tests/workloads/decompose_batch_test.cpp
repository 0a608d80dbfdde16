// Mixed batches (chunked prefill beside decodes), the two MLA forms, and drawn MoE routing.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "model_files.hpp"
#include "workloads/attention_counts.hpp"
#include "workloads/decompose.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;
using namespace scoville::workloads;
using namespace scoville::workloads::testing;

namespace {

template <class Trace>
double sum_of(const Trace& trace, const std::string& name, double (*get)(const Op&)) {
  double total = 0.0;
  for (const Op& op : trace.ops) total += op.name == name ? get(op) : 0.0;
  return total;
}
double flops(const Op& op) { return op.flops.si(); }
double kv_read(const Op& op) { return op.kv_read_bytes.si(); }
double kv_write(const Op& op) { return op.kv_write_bytes.si(); }
double weights(const Op& op) { return op.weight_bytes.si(); }

template <class Trace>
int count_of(const Trace& trace, const std::string& name, int layer) {
  int n = 0;
  for (const Op& op : trace.ops) n += (op.name == name && op.layer == layer) ? 1 : 0;
  return n;
}

template <class Trace>
const Op& first_op(const Trace& trace, const std::string& name) {
  for (const Op& op : trace.ops) {
    if (op.name == name) return op;
  }
  throw std::logic_error("no op named " + name);
}

SequenceShape decode_at(int64_t context) { return SequenceShape{Phase::kDecode, 1, context}; }
SequenceShape chunk(int64_t tokens, int64_t context_before) {
  return SequenceShape{Phase::kPrefill, tokens, context_before + tokens};
}

}  // namespace

TEST_CASE("decompose_batch of a uniform batch equals decompose_iteration", "[batch]") {
  for (const std::string name : {"llama-3.1-8b", "gpt-oss-20b", "deepseek-r1"}) {
    INFO(name);
    const ModelConfig model = load_model(model_file(name));
    for (const IterationShape shape :
         {IterationShape{Phase::kDecode, 4, 1, 300}, IterationShape{Phase::kPrefill, 2, 64, 96}}) {
      const IterationTrace one = decompose_iteration(model, shape);
      const BatchTrace batch = decompose_batch(model, BatchShape::uniform(shape));
      REQUIRE(one.ops.size() == batch.ops.size());
      for (size_t i = 0; i < one.ops.size(); ++i) {
        CHECK(one.ops[i].name == batch.ops[i].name);
        CHECK(one.ops[i].m == batch.ops[i].m);
        CHECK(one.ops[i].flops.si() == batch.ops[i].flops.si());
        CHECK(one.ops[i].kv_read_bytes.si() == batch.ops[i].kv_read_bytes.si());
      }
    }
  }
}

TEST_CASE("mixed batch: attention and KV per sequence, projections on all tokens", "[batch]") {
  const ModelConfig model = load_model(model_file("gpt-oss-20b"));  // sliding and full layers
  const SequenceShape prefill = chunk(512, 1024);
  const BatchShape batch{{decode_at(100), prefill, decode_at(2000), decode_at(2000)}};
  const BatchTrace mixed = decompose_batch(model, batch);
  const int64_t tokens = prefill.new_tokens + 3;
  REQUIRE(batch.tokens() == tokens);

  // Each sequence alone gives its own attention and KV traffic; the batch is their sum.
  double attention = 0.0;
  double read = 0.0;
  double written = 0.0;
  for (const SequenceShape& s : batch.sequences) {
    const BatchTrace alone = decompose_batch(model, BatchShape{{s}});
    attention += sum_of(alone, "attention", flops);
    read += sum_of(alone, "attention", kv_read);
    written += sum_of(alone, "attention", kv_write);
  }
  CHECK(sum_of(mixed, "attention", flops) == Approx(attention));
  CHECK(sum_of(mixed, "attention", kv_read) == Approx(read));
  CHECK(sum_of(mixed, "attention", kv_write) == Approx(written));

  // Closed form for one full layer (layer 1): decodes score their context, the chunk its causal
  // pairs after 1024 cached tokens.
  const AttentionConfig& a = model.attention();
  REQUIRE(model.layer_attention(1) == LayerAttention::kFull);
  const int64_t pairs = 100 + 2 * 2000 + causal_attended_pairs(1024, 512, 0);
  double layer1 = 0.0;
  for (const Op& op : mixed.ops) {
    layer1 += (op.name == "attention" && op.layer == 1) ? op.flops.si() : 0.0;
  }
  CHECK(layer1 == Approx(4.0 * double(a.heads * a.head_dim * pairs)));
  // Three distinct shapes: three attention ops per layer (the two equal decodes share one).
  CHECK(count_of(mixed, "attention", 1) == 3);

  // Projections see every token of the batch; the LM head one row per decode plus one for the
  // chunk's last token.
  CHECK(first_op(mixed, "attn_qkv").m == tokens);
  CHECK(first_op(mixed, "moe_router").m == tokens);
  CHECK(first_op(mixed, "lm_head").m == 3 + 1);
}

TEST_CASE("MLA: decode uses the absorbed form, prefill the expanded form", "[batch][mla]") {
  const ModelConfig model = load_model(model_file("deepseek-r1"));
  const AttentionConfig& a = model.attention();
  const int64_t context = 2048;
  // The decode token and the chunk see the same `context` cached tokens.
  const BatchTrace decode = decompose_batch(model, BatchShape{{decode_at(context + 1)}});
  const int64_t prompt = 256;
  const BatchTrace prefill = decompose_batch(model, BatchShape{{chunk(prompt, context)}});

  CHECK(count_of(decode, "attn_k_absorb", 0) == 1);
  CHECK(count_of(decode, "attn_kv_up", 0) == 0);
  CHECK(count_of(prefill, "attn_kv_up", 0) == 1);
  CHECK(count_of(prefill, "attn_k_absorb", 0) == 0);

  // Absorbed: one latent KV head shared by all query heads, scores over latent + rope.
  const Op& absorbed = first_op(decode, "attention");
  CHECK(absorbed.instances == 1);
  CHECK(absorbed.m == a.heads);
  CHECK(absorbed.k == a.kv_lora_rank + a.qk_rope_head_dim);
  // Expanded: per-head K (nope + rope) and V, one query row per new token.
  const Op& expanded = first_op(prefill, "attention");
  CHECK(expanded.instances == a.heads);
  CHECK(expanded.m == prompt);
  CHECK(expanded.k == a.qk_nope_head_dim + a.qk_rope_head_dim);
  const double pairs = double(causal_attended_pairs(context, prompt, 0));
  CHECK(expanded.flops.si() ==
        Approx(2.0 * double(a.heads) * pairs *
               double(a.qk_nope_head_dim + a.qk_rope_head_dim + a.v_head_dim)));
  // kv_b up-projects every key attended: the cached prefix and the chunk.
  const Op& up = first_op(prefill, "attn_kv_up");
  CHECK(up.m == context + prompt);
  CHECK(up.flops.si() == Approx(2.0 * double(context + prompt) * double(a.kv_lora_rank) *
                                double(a.heads * (a.qk_nope_head_dim + a.v_head_dim))));
  // Both forms read the same cached latent (576 values per token) and the same kv_b weights.
  CHECK(expanded.kv_read_bytes.si() == Approx(absorbed.kv_read_bytes.si()));
  CHECK(sum_of(prefill, "attn_kv_up", weights) == Approx(sum_of(decode, "attn_k_absorb", weights) +
                                                         sum_of(decode, "attn_v_absorb", weights)));

  // A mixed batch runs both forms in every layer.
  const BatchTrace mixed =
      decompose_batch(model, BatchShape{{decode_at(context), chunk(prompt, 0)}});
  CHECK(count_of(mixed, "attn_k_absorb", 5) == 1);
  CHECK(count_of(mixed, "attn_kv_up", 5) == 1);
  CHECK(count_of(mixed, "attention", 5) == 2);
}

TEST_CASE("expected routing: even split over the experts touched", "[batch][moe]") {
  const ModelConfig model = load_model(model_file("gpt-oss-20b"));
  const int64_t sequences = 3;
  const BatchTrace trace =
      decompose_batch(model, BatchShape::uniform(IterationShape{Phase::kDecode, sequences, 1, 64}));
  const Op& experts = first_op(trace, "moe_experts_gate_up");
  const int64_t pairs = sequences * model.ffn().top_k;
  int64_t sum = 0;
  for (int64_t t : experts.tokens_per_instance) sum += t;
  CHECK(int64_t(experts.tokens_per_instance.size()) == experts.instances);
  CHECK(sum == pairs);
  REQUIRE(int64_t(trace.routing.size()) == model.layers());
  CHECK(trace.routing.front().mean_tokens == Approx(double(pairs) / double(model.ffn().experts)));
}

TEST_CASE("drawn routing: counts per expert, deterministic for a seed", "[batch][moe]") {
  const ModelConfig model = load_model(model_file("deepseek-r1"));
  const FfnConfig& f = model.ffn();
  const BatchShape batch = BatchShape::uniform(IterationShape{Phase::kDecode, 64, 1, 512});
  DecomposeOptions options;
  options.routing.distribution = RoutingDistribution::kZipf;
  options.routing.zipf_exponent = 1.0;
  options.routing.seed = 7;
  const BatchTrace a = decompose_batch(model, batch, options);
  const BatchTrace b = decompose_batch(model, batch, options);
  REQUIRE(int64_t(a.routing.size()) == model.layers() - f.first_dense_layers);
  const int64_t pairs = batch.tokens() * f.top_k;
  for (size_t i = 0; i < a.ops.size(); ++i) {
    const Op& op = a.ops[i];
    CHECK(op.tokens_per_instance == b.ops[i].tokens_per_instance);
    if (op.name != "moe_experts_down") continue;
    int64_t sum = 0;
    for (int64_t t : op.tokens_per_instance) {
      CHECK(t >= 1);
      CHECK(t <= batch.tokens());  // a token picks an expert at most once
      sum += t;
    }
    CHECK(sum == pairs);
    CHECK(op.flops.si() == Approx(2.0 * double(pairs) * double(op.n * op.k)));
  }
  // Imbalance = busiest expert over the mean over all experts.
  for (const LayerRouting& r : a.routing) {
    CHECK(r.imbalance == Approx(double(r.max_tokens) / (double(pairs) / double(f.experts))));
  }
  CHECK(a.max_imbalance() > 1.0);

  // Another seed or another iteration draws differently.
  DecomposeOptions other = options;
  other.routing.iteration = 1;
  const BatchTrace c = decompose_batch(model, batch, other);
  CHECK(first_op(c, "moe_experts_down").tokens_per_instance !=
        first_op(a, "moe_experts_down").tokens_per_instance);
}

TEST_CASE("Zipf-skewed routing is more imbalanced than uniform", "[batch][moe]") {
  const ModelConfig model = load_model(model_file("gpt-oss-120b"));
  const BatchShape batch = BatchShape::uniform(IterationShape{Phase::kPrefill, 1, 2048, 2048});
  DecomposeOptions uniform;
  uniform.routing.distribution = RoutingDistribution::kUniform;
  uniform.routing.seed = 3;
  DecomposeOptions zipf = uniform;
  zipf.routing.distribution = RoutingDistribution::kZipf;
  zipf.routing.zipf_exponent = 1.2;
  const BatchTrace u = decompose_batch(model, batch, uniform);
  const BatchTrace z = decompose_batch(model, batch, zipf);
  // Uniform: 2048 x 4 pairs over 128 experts, 64 each on average; a few sigma above at most.
  const double mean = double(batch.tokens() * model.ffn().top_k) / double(model.ffn().experts);
  CHECK(u.max_imbalance() < 1.0 + 6.0 / std::sqrt(mean));
  // Zipf(1.2): the top expert's weight share alone is far above 1/128.
  CHECK(z.max_imbalance() > 2.0 * u.max_imbalance());
}

TEST_CASE("drawn frequencies follow the weights", "[moe][routing]") {
  RoutingConfig config;
  config.distribution = RoutingDistribution::kHistogram;
  config.histogram = {1.0, 2.0, 3.0, 4.0, 0.0};
  const double total_weight = 10.0;
  const int64_t tokens = 200000;
  RngStream rng(11, "test");
  const std::vector<int64_t> counts = draw_tokens_per_expert(config, 5, 1, tokens, rng);
  for (size_t e = 0; e < counts.size(); ++e) {
    const double share = config.histogram[e] / total_weight;
    // Binomial standard deviation is below 0.0011 here; 0.005 is > 4 sigma.
    CHECK(double(counts[e]) / double(tokens) == Approx(share).margin(0.005));
  }
  CHECK(counts.back() == 0);

  // Weight on exactly top_k experts: every token takes all of them.
  config.histogram = {0.0, 5.0, 0.0, 1.0};
  RngStream rng2(11, "test2");
  const std::vector<int64_t> pinned = draw_tokens_per_expert(config, 4, 2, 100, rng2);
  CHECK(pinned == std::vector<int64_t>{0, 100, 0, 100});
  CHECK(routing_imbalance(pinned) == Approx(4.0 / 2.0));
}

TEST_CASE("bad routing configs and batches are refused with the reason", "[batch][errors]") {
  const ModelConfig model = load_model(model_file("gpt-oss-20b"));
  const BatchShape batch{{decode_at(10)}};
  DecomposeOptions options;
  options.routing.distribution = RoutingDistribution::kHistogram;
  options.routing.histogram = {1.0, 2.0};
  CHECK_THROWS_WITH(decompose_batch(model, batch, options),
                    Catch::Contains("expected one per routed expert (32)"));
  options.routing.histogram.assign(32, 0.0);
  options.routing.histogram[0] = 1.0;
  CHECK_THROWS_WITH(decompose_batch(model, batch, options),
                    Catch::Contains("expected at least top_k (4)"));
  options.routing.histogram[1] = -1.0;
  CHECK_THROWS_WITH(decompose_batch(model, batch, options), Catch::Contains(">= 0"));
  options.routing.distribution = RoutingDistribution::kZipf;
  options.routing.zipf_exponent = -0.5;
  CHECK_THROWS_WITH(decompose_batch(model, batch, options), Catch::Contains("zipf exponent"));

  CHECK_THROWS_AS(decompose_batch(model, BatchShape{}), std::invalid_argument);
  CHECK_THROWS_AS(decompose_batch(model, BatchShape{{SequenceShape{Phase::kDecode, 2, 1}}}),
                  std::invalid_argument);
}
