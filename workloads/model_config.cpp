#include "workloads/model_config.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace scoville::workloads {

std::string to_string(AttentionType type) { return type == AttentionType::kMla ? "mla" : "gqa"; }
std::string to_string(LayerAttention kind) {
  return kind == LayerAttention::kSliding ? "sliding" : "full";
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
  if (static_cast<int64_t>(layer_attention_.size()) != layers_) {
    throw std::invalid_argument("ModelConfig: one attention kind per layer is required");
  }
  parameters_ = count_parameters();
  weight_bytes_ = count_weight_bytes();
}

ModelConfig ModelConfig::with_precision(const PrecisionConfig& precision) const {
  return ModelConfig(name_, layers_, hidden_size_, vocab_size_, tied_embeddings_, max_context_,
                     attention_, ffn_, precision, layer_attention_, mtp_layers_);
}

ModelConfig ModelConfig::with_mtp_layers(int64_t mtp_layers) const {
  if (mtp_layers < 0 || (mtp_layers > 0 && ffn_.type != FfnType::kMoe)) {
    throw std::invalid_argument("ModelConfig::with_mtp_layers: MTP modules need an MoE model");
  }
  return ModelConfig(name_, layers_, hidden_size_, vocab_size_, tied_embeddings_, max_context_,
                     attention_, ffn_, precision_, layer_attention_, mtp_layers);
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
  return ffn_.type == FfnType::kMoe && layer >= ffn_.first_dense_layers;
}

int64_t ModelConfig::mtp_projection_parameters() const {
  // DeepSeek-V3 MTP: enorm and hnorm (RMSNorm weights), eh_proj [2 hidden -> hidden], and the
  // shared head's own final norm.
  return 3 * hidden_size_ + 2 * hidden_size_ * hidden_size_;
}

int64_t ModelConfig::attended_context(int layer, int64_t context) const {
  if (layer_attention(layer) == LayerAttention::kSliding) {
    return std::min(context, attention_.sliding_window);
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
    return q + kv + o;  // the loader rejects bias and sinks for MLA
  }
  const int64_t qkv_out = (a.heads + 2 * a.kv_heads) * a.head_dim;
  const int64_t matrices = h * qkv_out + a.heads * a.head_dim * h;
  const int64_t biases = a.bias ? qkv_out + h : 0;
  return matrices + biases + (a.sinks ? a.heads : 0);
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
  p.attention = layers_ * attention_parameters_per_layer();
  p.norms = (2 * layers_ + 1) * hidden_size_;
  if (ffn_.type == FfnType::kDense) {
    p.dense_ffn = layers_ * dense_ffn_parameters_per_layer();
    return p;
  }
  const int64_t moe_layers = layers_ - ffn_.first_dense_layers;
  p.dense_ffn = ffn_.first_dense_layers * dense_ffn_parameters_per_layer();
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
  add(precision_.weights, p.attention + p.norms + p.dense_ffn + p.router + p.shared_experts +
                              p.routed_expert_biases + p.mtp);
  add(precision_.experts, p.routed_expert_matrices + p.mtp_routed_experts);
  return out;
}

Bytes ModelConfig::weight_bytes() const {
  Bytes total;
  for (const auto& [format, bytes] : weight_bytes_) total += bytes;
  return total;
}

Bytes ModelConfig::kv_bytes_per_token_per_layer() const {
  return Bytes(static_cast<double>(attention_.kv_values_per_token()) *
               bytes_per_value(precision_.kv_cache));
}

Bytes ModelConfig::kv_bytes_per_token() const {
  return kv_bytes_per_token_per_layer() * static_cast<double>(layers_ + mtp_layers_);
}

Bytes ModelConfig::kv_bytes(int64_t context) const {
  int64_t cached_tokens = 0;
  for (int layer = 0; layer < layers_ + mtp_layers_; ++layer) {
    cached_tokens += attended_context(layer, context);
  }
  return kv_bytes_per_token_per_layer() * static_cast<double>(cached_tokens);
}

}  // namespace scoville::workloads
