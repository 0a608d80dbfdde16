// A resolved transformer description (the *Config of workloads/models/*.yaml) and the quantities
// derived from it: parameter counts, weight bytes per number format, KV-cache bytes. Immutable once
// built; load_model() (model_loader.hpp) is the way to get one from a file.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/number_format.hpp"
#include "sim/base/units.hpp"

namespace scoville::workloads {

enum class AttentionType {
  kGqa,  // grouped-query attention (MHA and MQA are the kv_heads = heads and kv_heads = 1 cases)
  kMla,  // multi-head latent attention (DeepSeek-V2/V3): a compressed latent is cached
};
// What one layer's token mixer is: attention over the whole context (or, with a DSA indexer, over
// its top-k selected keys), a sliding window, the token's own chunk (Llama 4's chunked local
// attention), or linear attention with a fixed-size recurrent state (Gated DeltaNet).
enum class LayerAttention { kFull, kSliding, kChunked, kLinear };
enum class FfnType { kDense, kMoe };

std::string to_string(AttentionType type);
std::string to_string(LayerAttention kind);
std::string to_string(FfnType type);

struct AttentionConfig {
  AttentionType type = AttentionType::kGqa;
  int64_t heads = 0;     // query heads
  int64_t kv_heads = 0;  // GQA: K/V heads; MLA: 1 (one shared latent per token)
  int64_t head_dim = 0;  // GQA: Q, K and V head size
  bool bias = false;     // biases on the Q, K, V and output projections
  bool sinks = false;    // one learned sink logit per head joins the softmax denominator
  // Keys a sliding-window layer attends to, the query token included; 0 when no layer slides.
  int64_t sliding_window = 0;
  // Chunked layers: the context is cut into chunks of this many tokens and a token attends to
  // the tokens of its own chunk up to itself (Llama 4 attention_chunk_size); 0 when none is.
  int64_t attention_chunk = 0;
  // Gated attention (Qwen3-Next): the query projection also yields one sigmoid gate per query
  // value, multiplied into the attention output before the output projection.
  bool output_gate = false;

  // DeepSeek Sparse Attention (V3.2): a lightning indexer with index_heads heads of
  // index_head_dim scores every cached key (FP8) and full layers attend to the index_topk best.
  // All 0 when the model has no indexer.
  int64_t index_heads = 0;
  int64_t index_head_dim = 0;
  int64_t index_topk = 0;

  // Linear-attention layers (Gated DeltaNet, Qwen3-Next); all 0 when no layer is linear. Names
  // follow Qwen3-Next's config.json (linear_num_key_heads, ...).
  int64_t linear_key_heads = 0;
  int64_t linear_value_heads = 0;
  int64_t linear_key_head_dim = 0;
  int64_t linear_value_head_dim = 0;
  int64_t linear_conv_kernel = 0;

  // MLA only (0 for GQA). Names follow DeepSeek-V3's config.json.
  int64_t q_lora_rank = 0;  // 0: queries are projected directly from the hidden state
  int64_t kv_lora_rank = 0;
  int64_t qk_nope_head_dim = 0;
  int64_t qk_rope_head_dim = 0;
  int64_t v_head_dim = 0;

  // Size of one query/key dot product and of one value row, per head.
  int64_t qk_head_dim() const;
  int64_t v_dim() const;
  // Values cached per token per layer: K and V for GQA, the latent plus the RoPE key for MLA.
  int64_t kv_values_per_token() const;
  // Query-projection outputs per query value: 2 with an output gate, else 1.
  int64_t query_projections() const { return output_gate ? 2 : 1; }
  bool has_indexer() const { return index_topk > 0; }
  // Gated DeltaNet widths: q and k (key_dim each), v (value_dim), and the short convolution's
  // channels (q, k and v).
  int64_t linear_key_dim() const { return linear_key_heads * linear_key_head_dim; }
  int64_t linear_value_dim() const { return linear_value_heads * linear_value_head_dim; }
  int64_t linear_conv_channels() const { return 2 * linear_key_dim() + linear_value_dim(); }
  // State values one sequence keeps per linear layer: a [key_dim x value_dim] matrix per value
  // head, plus the last kernel - 1 inputs of the short convolution.
  int64_t linear_state_values() const;
};

struct FfnConfig {
  FfnType type = FfnType::kDense;
  // Dense FFN width: every layer of a dense model, the first_dense_layers of an MoE model.
  int64_t intermediate_size = 0;
  bool bias = false;  // biases on the FFN / expert projections
  // MoE only.
  int64_t experts = 0;  // routed experts per MoE layer
  int64_t top_k = 0;    // routed experts per token
  int64_t expert_intermediate_size = 0;
  int64_t shared_experts = 0;  // always-active experts, each expert_intermediate_size wide
  int64_t first_dense_layers = 0;
  // After the first dense layers, every moe_layer_step-th layer is MoE (layer + 1 a multiple of
  // it, as Llama 4's interleave_moe_layer_step) and the others dense; 1: every one.
  int64_t moe_layer_step = 1;
  bool router_bias = false;
};

struct PrecisionConfig {
  NumberFormat weights = NumberFormat::kBf16;      // every parameter not named below
  NumberFormat experts = NumberFormat::kBf16;      // routed-expert matrices (their biases: weights)
  NumberFormat embeddings = NumberFormat::kBf16;   // token embedding table and LM head
  NumberFormat activations = NumberFormat::kBf16;  // what the matmuls quantize their inputs to
  NumberFormat kv_cache = NumberFormat::kBf16;
  // The hidden state between ops: matmul outputs, the residual stream, and what a tensor-parallel
  // all-reduce or reduce-scatter, an MoE combine and a pipeline send carry. BF16 whatever
  // `activations` says: FP8 and FP4 serving quantizes a matmul's input right before it (fused
  // into the norm or activation kernel), after the all-reduce (TensorRT-LLM's AllReduce fusion
  // patterns RESIDUAL_RMS_NORM_QUANT_FP8 / _NVFP4, vLLM's fused AllReduce + RMSNorm + quant),
  // and the GEMMs write BF16 (cuBLASLt's and CUTLASS's output type in those stacks).
  NumberFormat residual = NumberFormat::kBf16;
  // Checkpoints that quantize the MLPs apart from attention (AMD Quark's MXFP4 releases of
  // DeepSeek R1 and Kimi K2.5 quantize every MLP, weights and inputs, and leave self-attention
  // out): the dense-FFN and shared-expert matrices' format, and the format the MLP matmuls
  // (dense, shared and routed experts) quantize their inputs to (W4A4). Unset: `weights` and
  // `activations`, so that an override of those carries over.
  std::optional<NumberFormat> mlp;
  std::optional<NumberFormat> mlp_activations;

  NumberFormat mlp_format() const { return mlp.value_or(weights); }
  NumberFormat mlp_activation_format() const { return mlp_activations.value_or(activations); }
};

// How the serving stack draws each new token from the logits (docs/software.md, "Sampling").
// kSinglePass: one pass over the logits (greedy, or a fused top-p / top-k kernel such as
// FlashInfer's rejection sampler). kFullSort: top-p by sorting every sequence's whole vocabulary
// (PyTorch's sort, vLLM's default sampler from v0.11.1 (PR #26859) until v0.21 (PR #40376)).
enum class Sampler { kSinglePass, kFullSort };
std::string to_string(Sampler sampler);

// Parameters by part of the model, summed over layers (counts of values, not bytes).
struct ParameterCounts {
  int64_t embedding = 0;  // input token table (a lookup: its rows are read, never multiplied)
  int64_t lm_head = 0;    // 0 when tied to the embedding table
  int64_t attention = 0;  // projections, their biases, latent norms, sinks
  int64_t norms = 0;      // per-layer pre-attention / pre-FFN norms and the final norm
  int64_t dense_ffn = 0;  // FFN of dense layers
  int64_t router = 0;
  int64_t shared_experts = 0;
  int64_t routed_expert_matrices = 0;  // all routed experts of all layers
  int64_t routed_expert_biases = 0;
  // MTP modules (DeepSeek-V3): each an MoE transformer layer plus its input projection and norms;
  // the embedding table and LM head are shared with the main model and not counted again.
  int64_t mtp = 0;                 // everything but the routed-expert matrices
  int64_t mtp_routed_experts = 0;  // routed-expert matrices of the MTP layers

  int64_t total() const;
};

class ModelConfig {
 public:
  ModelConfig(std::string name, int64_t layers, int64_t hidden_size, int64_t vocab_size,
              bool tied_embeddings, int64_t max_context, AttentionConfig attention, FfnConfig ffn,
              PrecisionConfig precision, std::vector<LayerAttention> layer_attention,
              int64_t mtp_layers = 0);

  // The same model with other tensor formats (a per-run precision override).
  ModelConfig with_precision(const PrecisionConfig& precision) const;
  // The same model with `mtp_layers` MTP modules (0 removes them). Only for an MoE model.
  ModelConfig with_mtp_layers(int64_t mtp_layers) const;
  // The same model sampled another way (set by the serving stack and the requests' sampling).
  ModelConfig with_sampler(Sampler sampler) const;
  // The same model with other main layers (one attention kind each) and FFN layout, every other
  // field (precision, sampler, MTP modules, ...) kept: the roofline's one-layer-per-class model.
  ModelConfig with_layers(std::vector<LayerAttention> layer_attention, const FfnConfig& ffn) const;

  const std::string& name() const { return name_; }
  int64_t layers() const { return layers_; }
  int64_t hidden_size() const { return hidden_size_; }
  int64_t vocab_size() const { return vocab_size_; }
  bool tied_embeddings() const { return tied_embeddings_; }
  int64_t max_context() const { return max_context_; }
  // MTP modules run after the main layers (layer indices layers() .. layers() + mtp_layers() - 1);
  // each is an MoE layer, attending like the last main layer.
  int64_t mtp_layers() const { return mtp_layers_; }
  const AttentionConfig& attention() const { return attention_; }
  const FfnConfig& ffn() const { return ffn_; }
  const PrecisionConfig& precision() const { return precision_; }
  Sampler sampler() const { return sampler_; }

  // Per-layer structure (layer in [0, layers)).
  LayerAttention layer_attention(int layer) const;
  bool layer_is_moe(int layer) const;
  // Keys the last of `context` tokens attends to (itself included): the context, capped at the
  // window on sliding-window layers, at index_topk on full layers with a DSA indexer, the
  // tokens of its chunk on chunked layers; 0 on linear layers.
  int64_t attended_context(int layer, int64_t context) const;
  // Tokens whose cache entries one sequence of `context` tokens keeps in a layer: the context,
  // at most the window on sliding layers, at most one chunk on chunked layers, none on linear
  // layers (their state is fixed-size: state_bytes_per_sequence).
  int64_t stored_context(int layer, int64_t context) const;
  // Whether the layer keeps a per-token cache (every kind but linear).
  bool layer_has_kv(int layer) const { return layer_attention(layer) != LayerAttention::kLinear; }

  // Parameter counts of one instance of each part (used by the decomposition).
  int64_t mtp_projection_parameters() const;  // one MTP module: two norms + [2 hidden x hidden]
  int64_t attention_parameters_per_layer() const;  // a full / sliding / chunked layer
  int64_t indexer_parameters_per_layer() const;    // DSA indexer (in attention_parameters...)
  int64_t linear_attention_parameters_per_layer() const;  // a Gated DeltaNet layer
  int64_t dense_ffn_parameters_per_layer() const;
  int64_t routed_expert_matrix_parameters() const;  // one expert: gate, up and down
  int64_t routed_expert_bias_parameters() const;    // one expert
  Bytes routed_expert_weight_bytes() const;         // one expert, matrices and biases

  const ParameterCounts& parameters() const { return parameters_; }
  int64_t total_parameters() const { return parameters_.total(); }
  // Parameters multiplied for each token: all but the embedding lookup table, with the routed
  // experts counted top_k of `experts`. Matches how gpt-oss and DeepSeek publish "active".
  double active_parameters_per_token() const;

  // Bytes of all parameters, per storage format and in total.
  const std::map<NumberFormat, Bytes>& weight_bytes_by_format() const { return weight_bytes_; }
  Bytes weight_bytes() const;

  // Cache of one token in one layer that keeps one (the attention row plus any indexer key), and
  // in all such layers (MTP layers included) with no window cap.
  Bytes kv_bytes_per_token_per_layer() const;
  Bytes kv_bytes_per_token() const;
  // The part of a token's cache entry attention reads (K and V, or MLA's latent) and the part
  // the DSA indexer reads (its FP8 key and scale; 0 without an indexer).
  Bytes attention_row_bytes() const;
  Bytes indexer_key_bytes() const;
  // Linear attention: the recurrent and convolution state of one sequence in one linear layer,
  // and in all of them (0 for a model without linear layers).
  Bytes state_bytes_per_layer() const;
  Bytes state_bytes_per_sequence() const;
  int64_t linear_layers() const;
  int64_t kv_layers() const;  // layers that keep a per-token cache, MTP layers included
  // Cache one sequence of `context` tokens holds: every KV layer stored_context() tokens, plus
  // the linear layers' state.
  Bytes kv_bytes(int64_t context) const;

 private:
  ParameterCounts count_parameters() const;
  std::map<NumberFormat, Bytes> count_weight_bytes() const;
  // Checks the per-layer structure and recounts the parameters and weight bytes: after the
  // constructor and after a with_* that changes a field they depend on.
  void recount();

  std::string name_;
  int64_t layers_;
  int64_t hidden_size_;
  int64_t vocab_size_;
  bool tied_embeddings_;
  int64_t max_context_;
  AttentionConfig attention_;
  FfnConfig ffn_;
  PrecisionConfig precision_;
  std::vector<LayerAttention> layer_attention_;
  int64_t mtp_layers_;
  Sampler sampler_ = Sampler::kSinglePass;
  ParameterCounts parameters_;
  std::map<NumberFormat, Bytes> weight_bytes_;
};

}  // namespace scoville::workloads
