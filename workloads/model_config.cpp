#include "workloads/model_config.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace scoville::workloads {

std::string to_string(AttentionType type) { return type == AttentionType::kMla ? "mla" : "gqa"; }
std::string to_string(LayerAttention kind) {
  switch (kind) {
    case LayerAttention::kSliding:
      return "sliding";
    case LayerAttention::kChunked:
      return "chunked";
    case LayerAttention::kLinear:
      return "linear";
    case LayerAttention::kFull:
      break;
  }
  return "full";
}
std::string to_string(FfnType type) { return type == FfnType::kMoe ? "moe" : "dense"; }

int64_t AttentionConfig::qk_head_dim() const {
  return type == AttentionType::kMla ? qk_nope_head_dim + qk_rope_head_dim : head_dim;
}

int64_t AttentionConfig::v_dim() const {
  return type == AttentionType::kMla ? v_head_dim : head_dim;
}

int64_t AttentionConfig::kv_values_per_token() const {
  if (type == AttentionType::kMla) return kv_lora_rank + qk_rope_head_dim;
  return 2 * kv_heads * head_dim;
}

int64_t AttentionConfig::linear_state_values() const {
  return linear_value_heads * linear_key_head_dim * linear_value_head_dim +
         linear_conv_channels() * (linear_conv_kernel - 1);
}

int64_t ParameterCounts::total() const {
  return embedding + lm_head + attention + norms + dense_ffn + router + shared_experts +
         routed_expert_matrices + routed_expert_biases + mtp + mtp_routed_experts;
}

ModelConfig::ModelConfig(std::string name, int64_t layers, int64_t hidden_size, int64_t vocab_size,
                         bool tied_embeddings, int64_t max_context, AttentionConfig attention,
                         FfnConfig ffn, PrecisionConfig precision,
                         std::vector<LayerAttention> layer_attention, int64_t mtp_layers)
    : name_(std::move(name)),
      layers_(layers),
      hidden_size_(hidden_size),
      vocab_size_(vocab_size),
      tied_embeddings_(tied_embeddings),
      max_context_(max_context),
      attention_(attention),
      ffn_(ffn),
      precision_(precision),
      layer_attention_(std::move(layer_attention)),
      mtp_layers_(mtp_layers) {
  recount();
}

void ModelConfig::recount() {
  if (static_cast<int64_t>(layer_attention_.size()) != layers_) {
    throw std::invalid_argument("ModelConfig: one attention kind per layer is required");
  }
  parameters_ = count_parameters();
  weight_bytes_ = count_weight_bytes();
}

// Each with_* copies the whole model and changes one part, so that a field added later is kept
// by every derived model without being named here.
ModelConfig ModelConfig::with_precision(const PrecisionConfig& precision) const {
  ModelConfig m = *this;
  m.precision_ = precision;
  m.recount();
  return m;
}

ModelConfig ModelConfig::with_mtp_layers(int64_t mtp_layers) const {
  if (mtp_layers < 0 || (mtp_layers > 0 && ffn_.type != FfnType::kMoe)) {
    throw std::invalid_argument("ModelConfig::with_mtp_layers: MTP modules need an MoE model");
  }
  ModelConfig m = *this;
  m.mtp_layers_ = mtp_layers;
  m.recount();
  return m;
}

ModelConfig ModelConfig::with_layers(std::vector<LayerAttention> layer_attention,
                                     const FfnConfig& ffn) const {
  if (layer_attention.empty()) {
    throw std::invalid_argument("ModelConfig::with_layers: a model needs at least one layer");
  }
  ModelConfig m = *this;
  m.layers_ = static_cast<int64_t>(layer_attention.size());
  m.layer_attention_ = std::move(layer_attention);
  m.ffn_ = ffn;
  m.recount();
  return m;
}

ModelConfig ModelConfig::with_sampler(Sampler sampler) const {
  ModelConfig m = *this;
  m.sampler_ = sampler;
  return m;
}

std::string to_string(Sampler sampler) {
  return sampler == Sampler::kFullSort ? "full-sort" : "single-pass";
}

LayerAttention ModelConfig::layer_attention(int layer) const {
  // MTP layers (after the main ones) attend like the last main layer.
  const int64_t clamped = std::min<int64_t>(layer, layers_ - 1);
  if (layer < 0 || layer >= layers_ + mtp_layers_) {
    throw std::out_of_range("ModelConfig::layer_attention: layer " + std::to_string(layer));
  }
  return layer_attention_.at(static_cast<size_t>(clamped));
}

bool ModelConfig::layer_is_moe(int layer) const {
  if (ffn_.type != FfnType::kMoe || layer < ffn_.first_dense_layers) return false;
  // MTP layers (after the main ones) are MoE layers.
  return layer >= layers_ || (layer + 1) % ffn_.moe_layer_step == 0;
}

int64_t ModelConfig::mtp_projection_parameters() const {
  // DeepSeek-V3 MTP: enorm and hnorm (RMSNorm weights), eh_proj [2 hidden -> hidden], and the
  // shared head's own final norm.
  return 3 * hidden_size_ + 2 * hidden_size_ * hidden_size_;
}

int64_t ModelConfig::attended_context(int layer, int64_t context) const {
  switch (layer_attention(layer)) {
    case LayerAttention::kSliding:
      return std::min(context, attention_.sliding_window);
    case LayerAttention::kChunked:
      return context <= 0 ? 0 : (context - 1) % attention_.attention_chunk + 1;
    case LayerAttention::kLinear:
      return 0;
    case LayerAttention::kFull:
      break;
  }
  return attention_.has_indexer() ? std::min(context, attention_.index_topk) : context;
}

int64_t ModelConfig::stored_context(int layer, int64_t context) const {
  switch (layer_attention(layer)) {
    case LayerAttention::kSliding:
      return std::min(context, attention_.sliding_window);
    case LayerAttention::kChunked:
      // At most one chunk: earlier chunks are never attended again (vLLM frees them). Counted at
      // the whole chunk rather than its filled part, as a block allocator must reserve it.
      return std::min(context, attention_.attention_chunk);
    case LayerAttention::kLinear:
      return 0;
    case LayerAttention::kFull:
      break;
  }
  return context;
}

int64_t ModelConfig::attention_parameters_per_layer() const {
  const AttentionConfig& a = attention_;
  const int64_t h = hidden_size_;
  if (a.type == AttentionType::kMla) {
    const int64_t q_out = a.heads * a.qk_head_dim();
    // Queries: down-projection, latent norm, up-projection; or one direct projection.
    const int64_t q =
        a.q_lora_rank > 0 ? h * a.q_lora_rank + a.q_lora_rank + a.q_lora_rank * q_out : h * q_out;
    // KV: down-projection to latent + shared RoPE key, latent norm, up-projection to K_nope and V.
    const int64_t kv = h * (a.kv_lora_rank + a.qk_rope_head_dim) + a.kv_lora_rank +
                       a.kv_lora_rank * a.heads * (a.qk_nope_head_dim + a.v_head_dim);
    const int64_t o = a.heads * a.v_head_dim * h;
    return q + kv + o + indexer_parameters_per_layer();  // the loader rejects MLA bias, sinks
  }
  const int64_t qkv_out = (a.heads * a.query_projections() + 2 * a.kv_heads) * a.head_dim;
  const int64_t matrices = h * qkv_out + a.heads * a.head_dim * h;
  const int64_t biases = a.bias ? qkv_out + h : 0;
  return matrices + biases + (a.sinks ? a.heads : 0);
}

int64_t ModelConfig::indexer_parameters_per_layer() const {
  const AttentionConfig& a = attention_;
  if (!a.has_indexer()) return 0;
  // DeepSeek-V3.2 Indexer: wq_b [q_lora_rank -> heads x dim] (from the query latent), wk
  // [hidden -> dim], k_norm (LayerNorm: weight and bias), weights_proj [hidden -> heads].
  const int64_t q_in = a.q_lora_rank > 0 ? a.q_lora_rank : hidden_size_;
  return q_in * a.index_heads * a.index_head_dim + hidden_size_ * a.index_head_dim +
         2 * a.index_head_dim + hidden_size_ * a.index_heads;
}

int64_t ModelConfig::linear_attention_parameters_per_layer() const {
  const AttentionConfig& a = attention_;
  const int64_t h = hidden_size_;
  // Qwen3-Next Gated DeltaNet: in_proj_qkvz [hidden -> 2 key_dim + 2 value_dim] (q, k, v and the
  // output gate z), in_proj_ba [hidden -> 2 value heads] (beta and the decay input), the
  // depthwise conv1d (kernel taps per channel, no bias), A_log and dt_bias (one per value
  // head), the gated RMSNorm (one head_v_dim weight) and out_proj [value_dim -> hidden].
  const int64_t in =
      h * (2 * a.linear_key_dim() + 2 * a.linear_value_dim()) + h * 2 * a.linear_value_heads;
  const int64_t conv = a.linear_conv_channels() * a.linear_conv_kernel;
  const int64_t per_head = 2 * a.linear_value_heads;
  return in + conv + per_head + a.linear_value_head_dim + a.linear_value_dim() * h;
}

int64_t ModelConfig::dense_ffn_parameters_per_layer() const {
  // SwiGLU: gate and up [hidden x I], down [I x hidden].
  const int64_t i = ffn_.intermediate_size;
  return 3 * hidden_size_ * i + (ffn_.bias ? 2 * i + hidden_size_ : 0);
}

int64_t ModelConfig::routed_expert_matrix_parameters() const {
  return 3 * hidden_size_ * ffn_.expert_intermediate_size;
}

int64_t ModelConfig::routed_expert_bias_parameters() const {
  return ffn_.bias ? 2 * ffn_.expert_intermediate_size + hidden_size_ : 0;
}

Bytes ModelConfig::routed_expert_weight_bytes() const {
  // The expert format (e.g. MXFP4) covers the matrices; gpt-oss keeps expert biases in BF16.
  return Bytes(
      static_cast<double>(routed_expert_matrix_parameters()) * bytes_per_value(precision_.experts) +
      static_cast<double>(routed_expert_bias_parameters()) * bytes_per_value(precision_.weights));
}

ParameterCounts ModelConfig::count_parameters() const {
  ParameterCounts p;
  p.embedding = vocab_size_ * hidden_size_;
  p.lm_head = tied_embeddings_ ? 0 : vocab_size_ * hidden_size_;
  p.attention = (layers_ - linear_layers()) * attention_parameters_per_layer() +
                linear_layers() * linear_attention_parameters_per_layer();
  p.norms = (2 * layers_ + 1) * hidden_size_;
  if (ffn_.type == FfnType::kDense) {
    p.dense_ffn = layers_ * dense_ffn_parameters_per_layer();
    return p;
  }
  int64_t moe_layers = 0;
  for (int layer = 0; layer < layers_; ++layer) moe_layers += layer_is_moe(layer) ? 1 : 0;
  p.dense_ffn = (layers_ - moe_layers) * dense_ffn_parameters_per_layer();
  p.router = moe_layers * (hidden_size_ * ffn_.experts + (ffn_.router_bias ? ffn_.experts : 0));
  p.shared_experts = moe_layers * ffn_.shared_experts *
                     (routed_expert_matrix_parameters() + routed_expert_bias_parameters());
  p.routed_expert_matrices = moe_layers * ffn_.experts * routed_expert_matrix_parameters();
  p.routed_expert_biases = moe_layers * ffn_.experts * routed_expert_bias_parameters();
  if (mtp_layers_ > 0) {
    const int64_t per_layer_moe =
        hidden_size_ * ffn_.experts + (ffn_.router_bias ? ffn_.experts : 0) +
        ffn_.shared_experts *
            (routed_expert_matrix_parameters() + routed_expert_bias_parameters()) +
        ffn_.experts * routed_expert_bias_parameters();
    p.mtp = mtp_layers_ * (mtp_projection_parameters() + attention_parameters_per_layer() +
                           2 * hidden_size_ + per_layer_moe);
    p.mtp_routed_experts = mtp_layers_ * ffn_.experts * routed_expert_matrix_parameters();
  }
  return p;
}

double ModelConfig::active_parameters_per_token() const {
  const ParameterCounts& p = parameters_;
  // A tied table is multiplied once, as the LM head; an untied input table is only looked up.
  const int64_t multiplied_embedding = tied_embeddings_ ? p.embedding : 0;
  const int64_t always_active = multiplied_embedding + p.lm_head + p.attention + p.norms +
                                p.dense_ffn + p.router + p.shared_experts;
  const double routed_fraction =
      ffn_.type == FfnType::kMoe ? static_cast<double>(ffn_.top_k) / ffn_.experts : 0.0;
  const double main =
      static_cast<double>(always_active) +
      routed_fraction * static_cast<double>(p.routed_expert_matrices + p.routed_expert_biases);
  if (mtp_layers_ == 0) return main;
  // Each MTP module runs its layer on every token and the shared LM head once more; its routed
  // biases sit in p.mtp, counted whole (none of the MTP models has expert biases).
  const int64_t head = tied_embeddings_ ? p.embedding : p.lm_head;
  return main + static_cast<double>(p.mtp + mtp_layers_ * head) +
         routed_fraction * static_cast<double>(p.mtp_routed_experts);
}

std::map<NumberFormat, Bytes> ModelConfig::count_weight_bytes() const {
  const ParameterCounts& p = parameters_;
  std::map<NumberFormat, Bytes> out;
  const auto add = [&out](NumberFormat format, int64_t count) {
    if (count == 0) return;
    out[format] += Bytes(static_cast<double>(count) * bytes_per_value(format));
  };
  add(precision_.embeddings, p.embedding + p.lm_head);
  add(precision_.weights, p.attention + p.norms + p.router + p.routed_expert_biases + p.mtp);
  add(precision_.mlp_format(), p.dense_ffn + p.shared_experts);
  add(precision_.experts, p.routed_expert_matrices + p.mtp_routed_experts);
  return out;
}

Bytes ModelConfig::weight_bytes() const {
  Bytes total;
  for (const auto& [format, bytes] : weight_bytes_) total += bytes;
  return total;
}

Bytes ModelConfig::attention_row_bytes() const {
  const AttentionConfig& a = attention_;
  if (a.type == AttentionType::kMla && a.has_indexer() &&
      precision_.kv_cache == NumberFormat::kFp8) {
    // DSA's sparse MLA kernels read an FP8 cache entry of their own layout: the latent in FP8
    // with one float32 scale per 128 values, and the RoPE key kept in BF16 (deepseek-ai/FlashMLA,
    // FP8 sparse decoding, docs/20250929-hopper-fp8-sparse-deep-dive.md: 512 + 4 x 4 + 64 x 2 =
    // 656 bytes per token for DeepSeek V3.2; vLLM's "fp8_ds_mla" cache dtype).
    constexpr int64_t kScaleBlock = 128;
    constexpr double kScaleBytes = 4.0;  // float32
    const int64_t blocks = (a.kv_lora_rank + kScaleBlock - 1) / kScaleBlock;
    return Bytes(static_cast<double>(a.kv_lora_rank) * bytes_per_value(NumberFormat::kFp8) +
                 static_cast<double>(blocks) * kScaleBytes +
                 static_cast<double>(a.qk_rope_head_dim) * bytes_per_value(NumberFormat::kBf16));
  }
  return Bytes(static_cast<double>(a.kv_values_per_token()) * bytes_per_value(precision_.kv_cache));
}

Bytes ModelConfig::indexer_key_bytes() const {
  if (!attention_.has_indexer()) return Bytes();
  // DeepSeek-V3.2-Exp inference/model.py, Indexer: k_cache float8_e4m3fn [.., index_head_dim]
  // and k_scale_cache float32 [.., index_head_dim / block_size], block_size = 128.
  constexpr int64_t kScaleBlock = 128;
  constexpr double kScaleBytes = 4.0;  // float32
  const int64_t blocks = (attention_.index_head_dim + kScaleBlock - 1) / kScaleBlock;
  return Bytes(static_cast<double>(attention_.index_head_dim) *
                   bytes_per_value(NumberFormat::kFp8) +
               static_cast<double>(blocks) * kScaleBytes);
}

Bytes ModelConfig::kv_bytes_per_token_per_layer() const {
  return attention_row_bytes() + indexer_key_bytes();
}

int64_t ModelConfig::linear_layers() const {
  int64_t count = 0;
  for (LayerAttention kind : layer_attention_) count += kind == LayerAttention::kLinear ? 1 : 0;
  return count;
}

int64_t ModelConfig::kv_layers() const { return layers_ - linear_layers() + mtp_layers_; }

Bytes ModelConfig::state_bytes_per_layer() const {
  // The state is kept in the KV cache's format [ASSUMPTION: vLLM's mamba_ssm_cache_dtype "auto"
  // follows the model dtype].
  return Bytes(static_cast<double>(attention_.linear_state_values()) *
               bytes_per_value(precision_.kv_cache));
}

Bytes ModelConfig::state_bytes_per_sequence() const {
  return linear_layers() == 0 ? Bytes()
                              : state_bytes_per_layer() * static_cast<double>(linear_layers());
}

Bytes ModelConfig::kv_bytes_per_token() const {
  return kv_bytes_per_token_per_layer() * static_cast<double>(kv_layers());
}

Bytes ModelConfig::kv_bytes(int64_t context) const {
  int64_t cached_tokens = 0;
  for (int layer = 0; layer < layers_ + mtp_layers_; ++layer) {
    cached_tokens += stored_context(layer, context);
  }
  return kv_bytes_per_token_per_layer() * static_cast<double>(cached_tokens) +
         state_bytes_per_sequence();
}

}  // namespace scoville::workloads
