#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "model_files.hpp"
#include "published_counts.hpp"
#include "workloads/decompose.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;
using namespace scoville::workloads;
using namespace scoville::workloads::testing;

namespace {

IterationShape decode(int64_t batch, int64_t context) {
  return IterationShape{Phase::kDecode, batch, 1, context};
}
IterationShape prefill(int64_t batch, int64_t prompt, int64_t context_before = 0) {
  return IterationShape{Phase::kPrefill, batch, prompt, context_before + prompt};
}

// Sum of one quantity over the ops with a given name.
template <class Get>
double sum_over(const IterationTrace& trace, const std::string& name, Get get) {
  double total = 0.0;
  for (const Op& op : trace.ops) {
    if (op.name == name) total += get(op);
  }
  return total;
}
double flops_of(const IterationTrace& trace, const std::string& name) {
  return sum_over(trace, name, [](const Op& op) { return op.flops.si(); });
}

const Op& first_op(const IterationTrace& trace, const std::string& name) {
  for (const Op& op : trace.ops) {
    if (op.name == name) return op;
  }
  throw std::logic_error("no op named " + name);
}

// Attention FLOPs of one iteration in closed form: 4 x heads x head_dim per scored pair.
double attention_flops(const ModelConfig& model, int64_t batch, int64_t pairs_full,
                       int64_t pairs_sliding) {
  const AttentionConfig& a = model.attention();
  double pairs = 0.0;
  for (int layer = 0; layer < model.layers(); ++layer) {
    pairs += double(model.layer_attention(layer) == LayerAttention::kSliding ? pairs_sliding
                                                                             : pairs_full);
  }
  return 4.0 * double(batch * a.heads * a.head_dim) * pairs;
}

}  // namespace

TEST_CASE("llama-3.1-8b decode at batch 1: FLOPs = 2 x active params + attention", "[decompose]") {
  const ModelConfig model = load_model(model_file("llama-3.1-8b"));
  const int64_t context = 16;
  const IterationTrace trace = decompose_iteration(model, decode(1, context));
  // Active parameters from the published count: all but the input embedding (a lookup).
  const double active = kLlama31_8bParameters - double(model.vocab_size() * model.hidden_size());
  const double expected = 2.0 * active + attention_flops(model, 1, context, context);
  CHECK(trace.total_flops().si() == Approx(expected).epsilon(kOnePercent));
}

TEST_CASE("gpt-oss-20b decode at batch 1: FLOPs = 2 x active params + attention", "[decompose]") {
  const ModelConfig model = load_model(model_file("gpt-oss-20b"));
  const int64_t context = 16;  // below the window: sliding and full layers see the same keys
  const IterationTrace trace = decompose_iteration(model, decode(1, context));
  const double expected = 2.0 * kGptOss20bActive + attention_flops(model, 1, context, context);
  CHECK(trace.total_flops().si() == Approx(expected).epsilon(kOnePercent));
}

TEST_CASE("decode at batch 1 reads every active weight once", "[decompose]") {
  const ModelConfig model = load_model(model_file("gpt-oss-20b"));
  const IterationTrace trace = decompose_iteration(model, decode(1, 100));
  const FfnConfig& ffn = model.ffn();
  const double bf16 = bytes_per_value(NumberFormat::kBf16);
  // All weights, less the experts not chosen and the embedding rows not looked up.
  const double unused_experts =
      double(model.layers() * (ffn.experts - ffn.top_k)) * model.routed_expert_weight_bytes().si();
  const double unused_rows = double((model.vocab_size() - 1) * model.hidden_size()) * bf16;
  CHECK(trace.total_weight_bytes().si() ==
        Approx(model.weight_bytes().si() - unused_experts - unused_rows));
}

TEST_CASE("prefill attention counts causal pairs", "[decompose][attention]") {
  const int64_t batch = 2;
  SECTION("llama-3.1-8b, all layers full") {
    const ModelConfig model = load_model(model_file("llama-3.1-8b"));
    const int64_t prompt = 512;
    const IterationTrace trace = decompose_iteration(model, prefill(batch, prompt));
    const int64_t pairs = prompt * (prompt + 1) / 2;
    CHECK(flops_of(trace, "attention") == Approx(attention_flops(model, batch, pairs, pairs)));
  }
  SECTION("gpt-oss-20b, prompt longer than the window") {
    const ModelConfig model = load_model(model_file("gpt-oss-20b"));
    const int64_t prompt = 1000;
    const int64_t window = model.attention().sliding_window;
    REQUIRE(prompt > window);
    const IterationTrace trace = decompose_iteration(model, prefill(batch, prompt));
    const int64_t full = prompt * (prompt + 1) / 2;
    // The first `window` tokens see 1..window keys, the rest exactly window.
    const int64_t sliding = window * (window + 1) / 2 + (prompt - window) * window;
    CHECK(flops_of(trace, "attention") == Approx(attention_flops(model, batch, full, sliding)));
  }
  SECTION("chunked prefill: a chunk after cached tokens") {
    const ModelConfig model = load_model(model_file("llama-3.1-8b"));
    const int64_t before = 300;
    const int64_t chunk = 200;
    const IterationTrace trace = decompose_iteration(model, prefill(batch, chunk, before));
    // Token i of the chunk sees before + i + 1 keys.
    const int64_t pairs = chunk * before + chunk * (chunk + 1) / 2;
    CHECK(flops_of(trace, "attention") == Approx(attention_flops(model, batch, pairs, pairs)));
    CHECK(trace.total_kv_read_bytes().si() ==
          Approx(double(batch * before) * model.kv_bytes_per_token().si()));
  }
}

TEST_CASE("KV traffic: decode reads the cached context, prefill only writes", "[decompose][kv]") {
  const int64_t batch = 3;
  SECTION("llama-3.1-8b decode") {
    const ModelConfig model = load_model(model_file("llama-3.1-8b"));
    const int64_t context = 4096;
    const IterationTrace trace = decompose_iteration(model, decode(batch, context));
    // The context less the new token, which is produced on chip this iteration.
    CHECK(trace.total_kv_read_bytes().si() ==
          Approx(double(batch * (context - 1)) * model.kv_bytes_per_token().si()));
    CHECK(trace.total_kv_write_bytes().si() ==
          Approx(double(batch) * model.kv_bytes_per_token().si()));
  }
  SECTION("gpt-oss-20b decode: sliding layers read window - 1 cached tokens") {
    const ModelConfig model = load_model(model_file("gpt-oss-20b"));
    const int64_t context = 4096;
    const int64_t window = model.attention().sliding_window;
    const IterationTrace trace = decompose_iteration(model, decode(batch, context));
    const int64_t sliding_layers = model.layers() / 2;
    const int64_t full_layers = model.layers() - sliding_layers;
    const double tokens_read =
        double(batch * (full_layers * (context - 1) + sliding_layers * (window - 1)));
    CHECK(trace.total_kv_read_bytes().si() ==
          Approx(tokens_read * model.kv_bytes_per_token_per_layer().si()));
  }
  SECTION("prefill from an empty cache") {
    const ModelConfig model = load_model(model_file("gpt-oss-20b"));
    const int64_t prompt = 1024;
    const IterationTrace trace = decompose_iteration(model, prefill(batch, prompt));
    CHECK(trace.total_kv_read_bytes().si() == 0.0);
    CHECK(trace.total_kv_write_bytes().si() ==
          Approx(double(batch * prompt) * model.kv_bytes_per_token().si()));
  }
}

TEST_CASE("attention op shape: query heads per KV head x new tokens against the context",
          "[decompose][attention]") {
  const ModelConfig model = load_model(model_file("gpt-oss-20b"));
  const AttentionConfig& a = model.attention();
  const int64_t batch = 4;
  const int64_t context = 2048;
  const IterationTrace trace = decompose_iteration(model, decode(batch, context));
  const Op& sliding = first_op(trace, "attention");  // layer 0 slides
  REQUIRE(sliding.layer == 0);
  CHECK(sliding.kind == OpKind::kAttention);
  CHECK(sliding.m == a.heads / a.kv_heads);
  CHECK(sliding.n == a.sliding_window);
  CHECK(sliding.k == a.head_dim);
  CHECK(sliding.instances == batch * a.kv_heads);
  CHECK(trace.ops[&sliding - &trace.ops[0] + 1].name == "attn_softmax");
  for (const Op& op : trace.ops) {
    if (op.name == "attention" && op.layer == 1) CHECK(op.n == context);
  }
}

TEST_CASE("LM head: last token per sequence in prefill, every token in decode", "[decompose]") {
  const ModelConfig model = load_model(model_file("llama-3.1-8b"));
  const int64_t batch = 5;
  const IterationTrace prompt_trace = decompose_iteration(model, prefill(batch, 64));
  const Op& prefill_head = first_op(prompt_trace, "lm_head");
  CHECK(prefill_head.m == batch);
  CHECK(prefill_head.n == model.vocab_size());
  CHECK(prefill_head.flops.si() ==
        Approx(2.0 * double(batch * model.vocab_size() * model.hidden_size())));
  const IterationShape speculative{Phase::kDecode, batch, 2, 100};
  const IterationTrace speculative_trace = decompose_iteration(model, speculative);
  CHECK(first_op(speculative_trace, "lm_head").m == batch * 2);
}

TEST_CASE("embedding reads one table row per token", "[decompose]") {
  const ModelConfig model = load_model(model_file("llama-3.1-8b"));
  const int64_t batch = 2;
  const int64_t prompt = 10;
  const IterationTrace trace = decompose_iteration(model, prefill(batch, prompt));
  const Op& embedding = first_op(trace, "embedding");
  CHECK(embedding.kind == OpKind::kVector);
  CHECK(embedding.weight_bytes.si() == Approx(double(batch * prompt * model.hidden_size()) *
                                              bytes_per_value(model.precision().embeddings)));
}

TEST_CASE("MoE experts: top_k touched at one token, all at many", "[decompose][moe]") {
  const ModelConfig model = load_model(model_file("gpt-oss-20b"));
  const FfnConfig& ffn = model.ffn();
  const double expert_bytes = model.routed_expert_weight_bytes().si();
  const auto expert_weight_bytes = [](const IterationTrace& trace, int layer) {
    double total = 0.0;
    for (const Op& op : trace.ops) {
      if (op.layer == layer && (op.name == "moe_experts_gate_up" || op.name == "moe_experts_down"))
        total += op.weight_bytes.si();
    }
    return total;
  };

  const IterationTrace one = decompose_iteration(model, decode(1, 64));
  const Op& gate_up = first_op(one, "moe_experts_gate_up");
  CHECK(gate_up.kind == OpKind::kMatmul);
  CHECK(gate_up.instances == ffn.top_k);
  CHECK(gate_up.m == 1);
  CHECK(gate_up.n == 2 * ffn.expert_intermediate_size);
  CHECK(gate_up.k == model.hidden_size());
  CHECK(gate_up.weight_format == NumberFormat::kMxfp4);
  CHECK(expert_weight_bytes(one, 0) == Approx(double(ffn.top_k) * expert_bytes));

  const int64_t prompt = 4096;
  const IterationTrace many = decompose_iteration(model, prefill(1, prompt));
  const Op& busy = first_op(many, "moe_experts_gate_up");
  CHECK(busy.instances == ffn.experts);
  CHECK(busy.m == (prompt * ffn.top_k + ffn.experts - 1) / ffn.experts);
  CHECK(expert_weight_bytes(many, 0) == Approx(double(ffn.experts) * expert_bytes));
}

TEST_CASE("MoE expert FLOPs count real token-expert pairs, not rounded shapes",
          "[decompose][moe]") {
  const ModelConfig model = load_model(model_file("gpt-oss-20b"));
  const FfnConfig& ffn = model.ffn();
  const int64_t batch = 3;  // 3 tokens x 4 choices over ~11 experts: m rounds 12/11 up to 2
  const IterationTrace trace = decompose_iteration(model, decode(batch, 64));
  const Op& down = first_op(trace, "moe_experts_down");
  CHECK(down.flops.si() == Approx(2.0 * double(batch * ffn.top_k * ffn.expert_intermediate_size *
                                               model.hidden_size())));
}

TEST_CASE("impossible shapes are rejected", "[decompose]") {
  const ModelConfig model = load_model(model_file("llama-3.1-8b"));
  CHECK_THROWS_AS(decompose_iteration(model, IterationShape{Phase::kDecode, 0, 1, 10}),
                  std::invalid_argument);
  CHECK_THROWS_AS(decompose_iteration(model, IterationShape{Phase::kPrefill, 1, 10, 5}),
                  std::invalid_argument);
}

TEST_CASE("a sorting sampler streams sort and top-p passes over every logit",
          "[decompose][sampling]") {
  const ModelConfig model = load_model(model_file("llama-3.1-8b"));
  const int64_t batch = 128;
  const double logits = double(batch) * double(model.vocab_size());
  const IterationTrace fused = decompose_iteration(model, decode(batch, 600));
  const Op& one_pass = first_op(fused, "sampling");
  CHECK(one_pass.sharding == Sharding::kVocabSampling);
  CHECK(sum_over(fused, "sampling_sort", [](const Op&) { return 1.0; }) == 0.0);

  const ModelConfig sorting = model.with_sampler(Sampler::kFullSort);
  CHECK(sorting.sampler() == Sampler::kFullSort);
  const IterationTrace sorted = decompose_iteration(sorting, decode(batch, 600));
  CHECK(sum_over(sorted, "sampling", [](const Op&) { return 1.0; }) == 0.0);
  const Op& sort = first_op(sorted, "sampling_sort");
  // 115 bytes read and 93 written per logit (FP32 values, int64 indices: decompose.cpp), on
  // every rank whole: 128 x 128,256 logits are 3.41 GB.
  CHECK(sort.m == batch);
  CHECK(sort.sharding == Sharding::kAttentionReplicated);
  CHECK(sort.activation_in_bytes.si() == Approx(115.0 * logits));
  CHECK(sort.activation_out_bytes.si() == Approx(93.0 * logits));
  CHECK((sort.activation_in_bytes + sort.activation_out_bytes).si() ==
        Approx(3.415e9).epsilon(1e-3));
  CHECK(sort.flops.si() == Approx(34.0 * logits));
  // Prefill samples the last token of each sequence only; the rest of the iteration is the same.
  const IterationTrace prompt = decompose_iteration(sorting, prefill(4, 256));
  CHECK(first_op(prompt, "sampling_sort").m == 4);
  CHECK(sorted.ops.size() == fused.ops.size());
  // A precision override keeps the sampler.
  CHECK(sorting.with_precision(sorting.precision()).sampler() == Sampler::kFullSort);
}
