// MLA and the MoE options DeepSeek needs (shared experts, leading dense layers), checked against
// DeepSeek-V3's published counts before its model file exists (issue 3).
#include <catch2/catch.hpp>

#include "published_counts.hpp"
#include "workloads/decompose.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;
using namespace scoville::workloads;
using namespace scoville::workloads::testing;

namespace {

// DeepSeek-V3 main model, HF deepseek-ai/DeepSeek-V3 config.json (REFERENCE.md).
const std::string kDeepSeekV3 = R"(name: deepseek-v3
layers: 61
hidden_size: 7168
vocab_size: 129280
max_context: 163840
norm: rmsnorm
attention:
  type: mla
  heads: 128
  q_lora_rank: 1536
  kv_lora_rank: 512
  qk_nope_head_dim: 128
  qk_rope_head_dim: 64
  v_head_dim: 128
ffn:
  type: moe
  activation: swiglu
  experts: 256
  top_k: 8
  expert_intermediate_size: 2048
  shared_experts: 1
  first_dense_layers: 3
  intermediate_size: 18432
  router_bias: true
precision:
  weights: fp8
  embeddings: bf16
  experts: fp8
  activations: bf16
  kv_cache: fp8
)";

constexpr double kDeepSeekV3Total = 671e9;    // main model without the MTP module
constexpr double kDeepSeekV3Active = 36.6e9;  // including the 0.9B output head

}  // namespace

TEST_CASE("deepseek-v3 (MLA, shared experts, dense first layers): published counts",
          "[model][mla]") {
  const ModelConfig model = load_model_from_string(kDeepSeekV3, "deepseek-v3.yaml");
  CHECK(double(model.total_parameters()) == Approx(kDeepSeekV3Total).epsilon(kOnePercent));
  CHECK(model.active_parameters_per_token() == Approx(kDeepSeekV3Active).epsilon(kOnePercent));
  CHECK_FALSE(model.layer_is_moe(2));
  CHECK(model.layer_is_moe(3));
  // One latent plus the shared RoPE key per token and layer.
  const AttentionConfig& a = model.attention();
  CHECK(model.kv_bytes_per_token().si() ==
        Approx(double(model.layers() * (a.kv_lora_rank + a.qk_rope_head_dim)) *
               bytes_per_value(NumberFormat::kFp8)));
}

TEST_CASE("deepseek-v3 decode at batch 1 reads the active weights and 2x their FLOPs",
          "[decompose][mla]") {
  const ModelConfig model = load_model_from_string(kDeepSeekV3, "deepseek-v3.yaml");
  const int64_t context = 16;
  const IterationTrace trace =
      decompose_iteration(model, IterationShape{Phase::kDecode, 1, 1, context});
  const AttentionConfig& a = model.attention();
  // Absorbed MLA: per head and key, (latent + rope) for the score and latent for the value.
  const double attention = 2.0 * double(model.layers() * a.heads * context) *
                           double(2 * a.kv_lora_rank + a.qk_rope_head_dim);
  CHECK(trace.total_flops().si() ==
        Approx(2.0 * kDeepSeekV3Active + attention).epsilon(kOnePercent));
}
