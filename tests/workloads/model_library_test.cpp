// The checks every shipped model must pass (issue 3): weight bytes = published parameters x
// precision per tensor class, decode FLOPs per token = 2 x active parameters + attention, and KV
// bytes per token in closed form. Expected values come from the published counts and the
// model's own fields, never from the code under test.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "model_files.hpp"
#include "published_counts.hpp"
#include "workloads/decompose.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;
using namespace scoville::workloads;
using namespace scoville::workloads::testing;

namespace {

// What a publisher's "active" figure counts besides the transformer layers. The library counts
// the layers and the LM head, not the input embedding lookup (published_counts.hpp).
enum class ActiveScope { kLayersAndHead, kLayersOnly, kLayersHeadAndEmbedding };

struct Published {
  std::string file;
  double total = 0.0;
  double active = 0.0;  // 0: a dense model, whose active count is the total less the embedding
  ActiveScope scope = ActiveScope::kLayersAndHead;
};

const std::vector<Published>& library() {
  static const std::vector<Published> models = {
      {"llama-3.1-8b", kLlama31_8bParameters, 0.0},
      {"llama-3.1-70b", kLlama31_70bParameters, 0.0},
      {"llama-3.3-70b", kLlama33_70bParameters, 0.0},
      {"llama-3.1-405b", kLlama31_405bParameters, 0.0},
      {"llama-2-70b", kLlama2_70bParameters, 0.0},
      {"gpt-oss-20b", kGptOss20bTotal, kGptOss20bActive},
      {"gpt-oss-120b", kGptOss120bTotal, kGptOss120bActive},
      {"deepseek-r1", kDeepSeekR1Total, kDeepSeekR1Active},
      {"kimi-k2.5", kKimiK25Total, kKimiK25Active},
      {"qwen3-235b-a22b", kQwen3_235bTotal, kQwen3_235bActive,
       ActiveScope::kLayersHeadAndEmbedding},
      {"glm-4.6", kGlm46Total, kGlm46Active, ActiveScope::kLayersOnly},
  };
  return models;
}

double embedding_table(const ModelConfig& m) { return double(m.vocab_size() * m.hidden_size()); }

// The published active count in the library's convention (layers and LM head).
double library_active(const Published& p, const ModelConfig& m) {
  if (p.active <= 0.0) return p.total - embedding_table(m);
  switch (p.scope) {
    case ActiveScope::kLayersOnly:
      return p.active + embedding_table(m);  // plus the head (as large as the embedding table)
    case ActiveScope::kLayersHeadAndEmbedding:
      return p.active - embedding_table(m);  // less the input embedding row's table
    case ActiveScope::kLayersAndHead:
      break;
  }
  return p.active;
}

// Closed forms from the model's fields.
double routed_expert_matrices(const ModelConfig& m) {
  const FfnConfig& f = m.ffn();
  if (f.type != FfnType::kMoe) return 0.0;
  const int64_t moe_layers = m.layers() - f.first_dense_layers + m.mtp_layers();
  return double(moe_layers * f.experts * 3 * m.hidden_size() * f.expert_intermediate_size);
}

// Attention FLOPs of one decode token at `context`: per layer, per head, per key attended.
double decode_attention_flops(const ModelConfig& m, int64_t context) {
  const AttentionConfig& a = m.attention();
  // GQA: q.k over head_dim and p.v over head_dim. Absorbed MLA: scores over latent + rope,
  // values over the latent.
  const double per_key = a.type == AttentionType::kMla
                             ? double(2 * a.kv_lora_rank + a.qk_rope_head_dim)
                             : double(2 * a.head_dim);
  double keys = 0.0;
  for (int layer = 0; layer < m.layers() + m.mtp_layers(); ++layer) {
    const bool sliding = m.layer_attention(layer) == LayerAttention::kSliding;
    keys += double(sliding ? std::min(context, a.sliding_window) : context);
  }
  return 2.0 * double(a.heads) * per_key * keys;
}

}  // namespace

TEST_CASE("every model: weight bytes = published parameters x precision per tensor class",
          "[model][library]") {
  for (const Published& p : library()) {
    INFO(p.file);
    const ModelConfig m = load_model(model_file(p.file));
    const PrecisionConfig& prec = m.precision();
    const double embeddings = embedding_table(m) * (m.tied_embeddings() ? 1.0 : 2.0);
    const double experts = routed_expert_matrices(m);
    const double rest = p.total - embeddings - experts;
    const double expected = embeddings * bytes_per_value(prec.embeddings) +
                            experts * bytes_per_value(prec.experts) +
                            rest * bytes_per_value(prec.weights);
    CHECK(m.weight_bytes().si() == Approx(expected).epsilon(kOnePercent));
    CHECK(double(m.total_parameters()) == Approx(p.total).epsilon(kOnePercent));
  }
}

TEST_CASE("every model: decode FLOPs per token = 2 x active parameters + attention",
          "[model][library][decompose]") {
  const int64_t context = 4096;
  for (const Published& p : library()) {
    INFO(p.file);
    const ModelConfig m = load_model(model_file(p.file));
    const double active = library_active(p, m);
    const IterationTrace trace =
        decompose_iteration(m, IterationShape{Phase::kDecode, 1, 1, context});
    CHECK(trace.total_flops().si() ==
          Approx(2.0 * active + decode_attention_flops(m, context)).epsilon(kOnePercent));
    CHECK(m.active_parameters_per_token() == Approx(active).epsilon(kOnePercent));
  }
}

TEST_CASE("every model: KV bytes per token in closed form", "[model][library][kv]") {
  const int64_t context = 8192;
  for (const Published& p : library()) {
    INFO(p.file);
    const ModelConfig m = load_model(model_file(p.file));
    const AttentionConfig& a = m.attention();
    const double bytes = bytes_per_value(m.precision().kv_cache);
    if (a.type == AttentionType::kMla) {
      // One latent (512) plus the shared RoPE key (64) per token and layer.
      const double per_token = double(m.layers()) * 576.0 * bytes;
      REQUIRE(a.kv_lora_rank + a.qk_rope_head_dim == 576);
      CHECK(m.kv_bytes_per_token().si() == Approx(per_token));
      CHECK(m.kv_bytes(context).si() == Approx(per_token * double(context)));
      continue;
    }
    const double per_token_layer = 2.0 * double(a.kv_heads * a.head_dim) * bytes;
    int64_t sliding = 0;
    for (int layer = 0; layer < m.layers(); ++layer) {
      sliding += m.layer_attention(layer) == LayerAttention::kSliding ? 1 : 0;
    }
    const int64_t full = m.layers() - sliding;
    CHECK(m.kv_bytes_per_token().si() == Approx(per_token_layer * double(m.layers())));
    CHECK(m.kv_bytes(context).si() ==
          Approx(per_token_layer *
                 double(full * context + sliding * std::min(context, a.sliding_window))));
  }
}

TEST_CASE("qwen3-235b-a22b: the non-embedding count of its model card", "[model][library]") {
  const ModelConfig m = load_model(model_file("qwen3-235b-a22b"));
  REQUIRE(!m.tied_embeddings());
  CHECK(double(m.total_parameters()) - 2.0 * embedding_table(m) ==
        Approx(kQwen3_235bNonEmbedding).epsilon(kOnePercent));
}

TEST_CASE("Llama 3.3 70B has the shape of Llama 3.1 70B", "[model][library]") {
  const ModelConfig a = load_model(model_file("llama-3.1-70b"));
  const ModelConfig b = load_model(model_file("llama-3.3-70b"));
  CHECK(a.total_parameters() == b.total_parameters());
  CHECK(a.kv_bytes_per_token().si() == b.kv_bytes_per_token().si());
}

TEST_CASE("deepseek-r1: the MTP module is off by default and adds its published size when on",
          "[model][mtp]") {
  const ModelConfig off = load_model(model_file("deepseek-r1"));
  REQUIRE(off.mtp_layers() == 0);
  const ModelConfig on = off.with_mtp_layers(1);
  CHECK(double(on.total_parameters() - off.total_parameters()) ==
        Approx(kDeepSeekR1MtpUnique).epsilon(kOnePercent));
  CHECK(double(on.total_parameters()) ==
        Approx(kDeepSeekR1Total + kDeepSeekR1MtpUnique).epsilon(kOnePercent));
  // The MTP layer caches its own latent: one more layer of KV.
  CHECK(on.kv_bytes_per_token().si() ==
        Approx(off.kv_bytes_per_token().si() * double(off.layers() + 1) / double(off.layers())));

  // Decode with MTP: the extra MoE layer and a second LM head run on every token.
  const int64_t context = 1024;
  const IterationTrace trace =
      decompose_iteration(on, IterationShape{Phase::kDecode, 1, 1, context});
  CHECK(trace.total_flops().si() ==
        Approx(2.0 * on.active_parameters_per_token() + decode_attention_flops(on, context))
            .epsilon(kOnePercent));
  int lm_heads = 0;
  bool mtp_layer_ops = false;
  for (const Op& op : trace.ops) {
    lm_heads += op.name == "lm_head" ? 1 : 0;
    mtp_layer_ops = mtp_layer_ops || (op.layer == off.layers() && op.name == "moe_experts_down");
  }
  CHECK(lm_heads == 2);
  CHECK(mtp_layer_ops);
}
