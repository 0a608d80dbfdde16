#include "workloads/model_loader.hpp"

#include <sstream>
#include <utility>
#include <vector>

#include "sim/base/number_format.hpp"
#include "sim/base/yaml_reader.hpp"

namespace scoville::workloads {

namespace {

// Cross-field checks report through this, at the key they blame.
class Resolver {
 public:
  explicit Resolver(Diagnostics& diagnostics) : diagnostics_(diagnostics) {}

  template <class T>
  void error(const Located<T>& field, const std::string& message) {
    diagnostics_.error(field.where, field.key_path, message);
  }
  void error(const SourceLocation& where, const std::string& key_path, const std::string& message) {
    diagnostics_.error(where, key_path, message);
  }

  // A field the chosen variant needs: reported when absent (a present but bad value already was).
  void require(const Located<int64_t>& field, const std::string& because) {
    if (!field.present) error(field, "missing required field for " + because);
  }
  // A field the chosen variant ignores: an error rather than a silently unused value.
  template <class T>
  void forbid(const Located<T>& field, const std::string& because) {
    if (field.present) error(field, "applies only to " + because);
  }

 private:
  Diagnostics& diagnostics_;
};

std::string text(int64_t v) { return std::to_string(v); }

// DSA indexer: all three fields, or none.
void resolve_indexer(const AttentionSpec& spec, AttentionConfig& a, Resolver& resolver) {
  const bool any =
      spec.index_heads.present || spec.index_head_dim.present || spec.index_topk.present;
  if (!any) return;
  const std::string because = "a DSA indexer (index_heads, index_head_dim, index_topk)";
  resolver.require(spec.index_heads, because);
  resolver.require(spec.index_head_dim, because);
  resolver.require(spec.index_topk, because);
  if (spec.index_heads.valid && spec.index_head_dim.valid && spec.index_topk.valid) {
    a.index_heads = spec.index_heads.value;
    a.index_head_dim = spec.index_head_dim.value;
    a.index_topk = spec.index_topk.value;
  }
}

// Gated DeltaNet widths: all five, or none (checked against the layer pattern later).
void resolve_linear(const AttentionSpec& spec, AttentionConfig& a, Resolver& resolver) {
  const std::vector<const Located<int64_t>*> fields = {
      &spec.linear_key_heads, &spec.linear_value_heads, &spec.linear_key_head_dim,
      &spec.linear_value_head_dim, &spec.linear_conv_kernel};
  bool any = false;
  for (const Located<int64_t>* f : fields) any = any || f->present;
  if (!any) return;
  const std::string because = "linear-attention layers (linear_* fields)";
  for (const Located<int64_t>* f : fields) resolver.require(*f, because);
  a.linear_key_heads = spec.linear_key_heads.value;
  a.linear_value_heads = spec.linear_value_heads.value;
  a.linear_key_head_dim = spec.linear_key_head_dim.value;
  a.linear_value_head_dim = spec.linear_value_head_dim.value;
  a.linear_conv_kernel = spec.linear_conv_kernel.value;
  if (spec.linear_key_heads.valid && spec.linear_value_heads.valid &&
      a.linear_value_heads % a.linear_key_heads != 0) {
    resolver.error(spec.linear_key_heads,
                   "linear_key_heads " + text(a.linear_key_heads) +
                       " does not divide linear_value_heads " + text(a.linear_value_heads) +
                       ": expected a divisor (each q/k head serves a group of value heads)");
  }
}

AttentionConfig resolve_attention(const AttentionSpec& spec, Resolver& resolver) {
  AttentionConfig a;
  a.heads = spec.heads.value;
  a.bias = spec.bias.value;
  a.sinks = spec.sinks.value;
  a.sliding_window = spec.sliding_window.value;
  a.attention_chunk = spec.attention_chunk.value;
  resolve_indexer(spec, a, resolver);
  resolve_linear(spec, a, resolver);
  if (spec.type.value == "mla") {
    a.type = AttentionType::kMla;
    const std::string because = "attention type mla";
    // No published MLA model has projection biases or sinks; rejecting them keeps every
    // accepted file backed by a decomposition that has been checked against parameter counts.
    resolver.forbid(spec.bias, "attention type gqa");
    resolver.forbid(spec.sinks, "attention type gqa");
    resolver.forbid(spec.kv_heads, "attention type gqa (MLA caches one latent per token)");
    resolver.forbid(spec.head_dim, "attention type gqa (MLA uses qk_nope/qk_rope/v_head_dim)");
    resolver.forbid(spec.output_gate, "attention type gqa");
    resolver.require(spec.kv_lora_rank, because);
    resolver.require(spec.qk_nope_head_dim, because);
    resolver.require(spec.qk_rope_head_dim, because);
    resolver.require(spec.v_head_dim, because);
    a.kv_heads = 1;
    a.q_lora_rank = spec.q_lora_rank.value;
    a.kv_lora_rank = spec.kv_lora_rank.value;
    a.qk_nope_head_dim = spec.qk_nope_head_dim.value;
    a.qk_rope_head_dim = spec.qk_rope_head_dim.value;
    a.v_head_dim = spec.v_head_dim.value;
    return a;
  }
  a.type = AttentionType::kGqa;
  a.output_gate = spec.output_gate.value;
  const std::string because = "attention type gqa";
  resolver.require(spec.kv_heads, because);
  resolver.require(spec.head_dim, because);
  for (const Located<int64_t>* mla_only :
       {&spec.q_lora_rank, &spec.kv_lora_rank, &spec.qk_nope_head_dim, &spec.qk_rope_head_dim,
        &spec.v_head_dim}) {
    resolver.forbid(*mla_only, "attention type mla");
  }
  a.kv_heads = spec.kv_heads.valid ? spec.kv_heads.value : 1;
  a.head_dim = spec.head_dim.value;
  if (spec.heads.valid && spec.kv_heads.valid && spec.heads.value % spec.kv_heads.value != 0) {
    resolver.error(spec.kv_heads, "kv_heads " + text(spec.kv_heads.value) +
                                      " does not divide heads " + text(spec.heads.value) +
                                      ": expected a divisor of heads (each KV head serves a whole "
                                      "group of query heads)");
  }
  return a;
}

// "sliding, full" -> {kSliding, kFull}; the cycle repeats from layer 0.
std::vector<LayerAttention> parse_window_pattern(const Located<std::string>& pattern,
                                                 Resolver& resolver) {
  std::vector<LayerAttention> cycle;
  std::stringstream in(pattern.value);
  std::string item;
  while (std::getline(in, item, ',')) {
    const size_t first = item.find_first_not_of(" \t");
    const size_t last = item.find_last_not_of(" \t");
    const std::string word = first == std::string::npos ? "" : item.substr(first, last - first + 1);
    if (word == "sliding") {
      cycle.push_back(LayerAttention::kSliding);
    } else if (word == "full") {
      cycle.push_back(LayerAttention::kFull);
    } else if (word == "chunked") {
      cycle.push_back(LayerAttention::kChunked);
    } else if (word == "linear") {
      cycle.push_back(LayerAttention::kLinear);
    } else {
      resolver.error(pattern, "found \"" + word + "\" in \"" + pattern.value +
                                  "\": expected a comma-separated cycle of 'sliding', 'full', "
                                  "'chunked' and 'linear'");
      return {};
    }
  }
  return cycle;
}

std::vector<LayerAttention> resolve_layer_attention(const AttentionSpec& spec, int64_t layers,
                                                    Resolver& resolver) {
  std::vector<LayerAttention> cycle;
  if (spec.window_pattern.valid) {
    cycle = parse_window_pattern(spec.window_pattern, resolver);
  } else if (spec.sliding_window.valid) {
    cycle = {LayerAttention::kSliding};  // a window with no pattern applies to every layer
  }
  if (cycle.empty()) cycle = {LayerAttention::kFull};
  bool any_sliding = false;
  bool any_chunked = false;
  bool any_linear = false;
  std::vector<LayerAttention> per_layer;
  for (int64_t layer = 0; layer < layers; ++layer) {
    per_layer.push_back(cycle[static_cast<size_t>(layer) % cycle.size()]);
    any_sliding = any_sliding || per_layer.back() == LayerAttention::kSliding;
    any_chunked = any_chunked || per_layer.back() == LayerAttention::kChunked;
    any_linear = any_linear || per_layer.back() == LayerAttention::kLinear;
  }
  if (any_sliding && !spec.sliding_window.present) {
    resolver.error(spec.sliding_window,
                   "missing required field: window_pattern names sliding layers, so "
                   "sliding_window (tokens attended) is needed");
  }
  if (any_chunked) {
    resolver.require(spec.attention_chunk, "chunked layers in window_pattern (tokens per chunk)");
  } else {
    resolver.forbid(spec.attention_chunk, "models with chunked layers in window_pattern");
  }
  if (any_linear) {
    resolver.require(spec.linear_key_heads, "linear layers in window_pattern");
    if (spec.type.value == "mla") {
      resolver.error(spec.window_pattern,
                     "linear layers beside MLA are not modelled: expected "
                     "attention type gqa for a hybrid linear model");
    }
  } else {
    resolver.forbid(spec.linear_key_heads, "models with linear layers in window_pattern");
  }
  return per_layer;
}

FfnConfig resolve_ffn(const FfnSpec& spec, int64_t layers, const Located<int64_t>& layers_field,
                      Resolver& resolver) {
  FfnConfig f;
  f.intermediate_size = spec.intermediate_size.value;
  f.bias = spec.bias.value;
  if (spec.type.value == "dense") {
    f.type = FfnType::kDense;
    resolver.require(spec.intermediate_size, "ffn type dense");
    const std::string moe_only = "ffn type moe";
    resolver.forbid(spec.experts, moe_only);
    resolver.forbid(spec.top_k, moe_only);
    resolver.forbid(spec.expert_intermediate_size, moe_only);
    resolver.forbid(spec.shared_experts, moe_only);
    resolver.forbid(spec.first_dense_layers, moe_only);
    resolver.forbid(spec.router_bias, moe_only);
    resolver.forbid(spec.moe_layer_step, moe_only);
    return f;
  }
  f.type = FfnType::kMoe;
  const std::string because = "ffn type moe";
  resolver.require(spec.experts, because);
  resolver.require(spec.top_k, because);
  resolver.require(spec.expert_intermediate_size, because);
  f.experts = spec.experts.valid ? spec.experts.value : 1;
  f.top_k = spec.top_k.valid ? spec.top_k.value : 1;
  f.expert_intermediate_size = spec.expert_intermediate_size.value;
  f.shared_experts = spec.shared_experts.value;
  f.first_dense_layers = spec.first_dense_layers.value;
  f.router_bias = spec.router_bias.value;
  f.moe_layer_step = spec.moe_layer_step.valid ? spec.moe_layer_step.value : 1;
  if (spec.experts.valid && spec.top_k.valid && f.top_k > f.experts) {
    resolver.error(spec.top_k, "top_k " + text(f.top_k) + " exceeds experts " + text(f.experts) +
                                   ": expected at most " + text(f.experts));
    f.top_k = f.experts;
  }
  if (spec.first_dense_layers.valid && layers_field.valid && f.first_dense_layers >= layers) {
    resolver.error(spec.first_dense_layers, "first_dense_layers " + text(f.first_dense_layers) +
                                                " leaves no MoE layer of " + text(layers) +
                                                ": expected less than layers");
    f.first_dense_layers = 0;
  }
  if (spec.moe_layer_step.valid && layers_field.valid && f.moe_layer_step > layers) {
    resolver.error(spec.moe_layer_step, "moe_layer_step " + text(f.moe_layer_step) +
                                            " leaves no MoE layer of " + text(layers) +
                                            ": expected at most layers");
    f.moe_layer_step = 1;
  }
  if (f.first_dense_layers > 0 || f.moe_layer_step > 1) {
    resolver.require(spec.intermediate_size,
                     "first_dense_layers > 0 or moe_layer_step > 1 (the dense layers' FFN width)");
  } else {
    resolver.forbid(spec.intermediate_size,
                    "dense layers; an MoE model uses it only with first_dense_layers > 0 or "
                    "moe_layer_step > 1");
  }
  return f;
}

NumberFormat format_of(const Located<std::string>& field, NumberFormat fallback) {
  if (!field.valid) return fallback;
  return number_format_from_string(field.value).value_or(fallback);
}

PrecisionConfig resolve_precision(const PrecisionSpec& spec, FfnType ffn, Resolver& resolver) {
  PrecisionConfig p;
  p.weights = format_of(spec.weights, NumberFormat::kBf16);
  p.activations = format_of(spec.activations, NumberFormat::kBf16);
  p.kv_cache = format_of(spec.kv_cache, NumberFormat::kBf16);
  p.embeddings = format_of(spec.embeddings, p.weights);
  if (spec.mlp.valid) p.mlp = format_of(spec.mlp, p.weights);
  if (spec.mlp_activations.valid) {
    p.mlp_activations = format_of(spec.mlp_activations, p.activations);
  }
  p.residual = format_of(spec.residual, NumberFormat::kBf16);
  // Weight-only formats are widened to the activations' format by the kernel: they cannot hold
  // the activations themselves, the residual stream, nor the KV cache.
  const auto weights_only = [&resolver](const Located<std::string>& field, NumberFormat f) {
    if (field.valid && weight_only(f)) {
      resolver.error(field, to_string(f) +
                                " is a weight-only format (W4A16: widened before the math): "
                                "expected bf16, fp8, mxfp4 or nvfp4");
    }
  };
  weights_only(spec.activations, p.activations);
  weights_only(spec.kv_cache, p.kv_cache);
  weights_only(spec.mlp_activations, p.mlp_activation_format());
  weights_only(spec.residual, p.residual);
  if (ffn == FfnType::kMoe) {
    if (!spec.experts.present) {
      resolver.error(spec.experts,
                     "missing required field for ffn type moe (expert matrices' "
                     "format, e.g. mxfp4 or the same as weights)");
    }
    p.experts = format_of(spec.experts, p.weights);
  } else {
    resolver.forbid(spec.experts, "ffn type moe");
    p.experts = p.weights;
  }
  return p;
}

}  // namespace

ModelConfig resolve_model(const ModelSpec& spec, Diagnostics& diagnostics) {
  Resolver resolver(diagnostics);
  const int64_t layers = spec.layers.value > 0 ? spec.layers.value : 1;
  AttentionConfig attention = resolve_attention(spec.attention, resolver);
  std::vector<LayerAttention> layer_attention =
      resolve_layer_attention(spec.attention, layers, resolver);
  FfnConfig ffn = resolve_ffn(spec.ffn, layers, spec.layers, resolver);
  PrecisionConfig precision = resolve_precision(spec.precision, ffn.type, resolver);
  int64_t mtp_layers = spec.mtp_layers.valid ? spec.mtp_layers.value : 0;
  if (mtp_layers > 0 && ffn.type != FfnType::kMoe) {
    // The MTP module counted here is DeepSeek-V3's: an MoE layer. No dense model ships one.
    resolver.error(spec.mtp_layers, "mtp_layers " + text(mtp_layers) +
                                        " needs ffn type moe (an MTP module is an MoE layer, as "
                                        "in DeepSeek-V3): expected 0 for a dense model");
    mtp_layers = 0;
  }
  return ModelConfig(spec.name.value, layers, spec.hidden_size.value, spec.vocab_size.value,
                     spec.tied_embeddings.value, spec.max_context.value, attention, ffn, precision,
                     std::move(layer_attention), mtp_layers);
}

namespace {
ModelConfig load_document(const YAML::Node& root, const std::string& file) {
  Diagnostics diagnostics;
  const ModelSpec spec = read_model_spec(root, file, diagnostics);
  // Resolve even after parse errors: its checks use only cleanly read fields, so the user sees
  // every problem of the file in one pass.
  ModelConfig config = resolve_model(spec, diagnostics);
  diagnostics.throw_if_any();
  return config;
}
}  // namespace

ModelConfig load_model_from_string(const std::string& yaml, const std::string& display_name) {
  return load_document(load_yaml_string(yaml, display_name), display_name);
}

ModelConfig load_model(const std::string& path) {
  return load_document(load_yaml_file(path), path);
}

std::vector<std::string> load_model_names(const std::string& path) {
  const YAML::Node root = load_yaml_file(path);
  Diagnostics diagnostics;
  const ModelSpec spec = read_model_spec(root, path, diagnostics);
  resolve_model(spec, diagnostics);
  diagnostics.throw_if_any();
  std::vector<std::string> names{spec.name.value};
  names.insert(names.end(), spec.aliases.begin(), spec.aliases.end());
  return names;
}

}  // namespace scoville::workloads
