// The model file as parsed, before any cross-field check (the *Spec of workloads/models/*.yaml).
// Every field keeps where it was read, so that resolution can point at the offending key.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/error.hpp"

namespace scoville::workloads {

// A parsed value with the place it came from (the enclosing map when the key was absent).
template <class T>
struct Located {
  T value{};
  SourceLocation where;
  std::string key_path;
  bool present = false;  // the key is in the file
  bool valid = false;    // present and read without error (cross-field checks use only these)
};

struct AttentionSpec {
  Located<std::string> type;  // "gqa" | "mla"
  Located<int64_t> heads;
  Located<int64_t> kv_heads;  // GQA
  Located<int64_t> head_dim;  // GQA
  Located<bool> bias;
  Located<bool> sinks;
  Located<int64_t> sliding_window;      // 0: none
  Located<std::string> window_pattern;  // e.g. "sliding, full" or "linear, linear, linear, full"
  Located<int64_t> q_lora_rank;         // MLA
  Located<int64_t> kv_lora_rank;        // MLA
  Located<int64_t> qk_nope_head_dim;    // MLA
  Located<int64_t> qk_rope_head_dim;    // MLA
  Located<int64_t> v_head_dim;          // MLA
  Located<int64_t> attention_chunk;     // chunked layers' chunk (Llama 4)
  Located<bool> output_gate;            // GQA: gated attention output (Qwen3-Next)
  Located<int64_t> index_heads;         // DSA lightning indexer (DeepSeek-V3.2)
  Located<int64_t> index_head_dim;      // DSA
  Located<int64_t> index_topk;          // DSA
  Located<int64_t> linear_key_heads;    // Gated DeltaNet layers (Qwen3-Next)
  Located<int64_t> linear_value_heads;
  Located<int64_t> linear_key_head_dim;
  Located<int64_t> linear_value_head_dim;
  Located<int64_t> linear_conv_kernel;
  SourceLocation where;
  std::string key_path;
};

struct FfnSpec {
  Located<std::string> type;        // "dense" | "moe"
  Located<std::string> activation;  // "swiglu"
  Located<int64_t> intermediate_size;
  Located<bool> bias;
  Located<int64_t> experts;
  Located<int64_t> top_k;
  Located<int64_t> expert_intermediate_size;
  Located<int64_t> shared_experts;
  Located<int64_t> first_dense_layers;
  Located<int64_t> moe_layer_step;  // every n-th layer MoE (Llama 4 interleave_moe_layer_step)
  Located<bool> router_bias;
  SourceLocation where;
  std::string key_path;
};

struct PrecisionSpec {
  Located<std::string> weights;
  Located<std::string> experts;
  Located<std::string> embeddings;
  Located<std::string> activations;
  Located<std::string> kv_cache;
  Located<std::string> mlp;              // optional: dense-FFN and shared-expert matrices
  Located<std::string> mlp_activations;  // optional: the MLP matmuls' input format
  Located<std::string> residual;         // optional: matmul outputs, residual stream, all-reduce
};

struct ModelSpec {
  std::string file;
  Located<std::string> name;
  // Names under which published measurements cite the model ("Llama-3.3-70B-Instruct"); matched
  // whole and case-insensitively by `scoville validate` (docs/validation.md). Optional.
  std::vector<std::string> aliases;
  Located<int64_t> layers;
  Located<int64_t> hidden_size;
  Located<int64_t> vocab_size;
  Located<bool> tied_embeddings;
  Located<int64_t> max_context;
  Located<std::string> norm;    // "rmsnorm"
  Located<int64_t> mtp_layers;  // multi-token-prediction modules (DeepSeek-V3); 0: none
  AttentionSpec attention;
  FfnSpec ffn;
  PrecisionSpec precision;
};

// Reads the document into a ModelSpec. Problems (missing, mistyped or unknown keys) go to
// `diagnostics`; the returned spec then holds fallbacks and must not be resolved.
ModelSpec read_model_spec(const YAML::Node& root, const std::string& file,
                          Diagnostics& diagnostics);

}  // namespace scoville::workloads
