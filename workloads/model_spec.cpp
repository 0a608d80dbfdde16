#include "workloads/model_spec.hpp"

#include <utility>
#include <vector>

#include "sim/base/number_format.hpp"
#include "sim/base/yaml_reader.hpp"

namespace scoville::workloads {

namespace {

// Sizes and counts are positive; optional ones use 0 for "absent". The upper bounds are far above
// any published model (in brackets: the largest we know of) and keep a bad file from exhausting
// time or memory: the iteration is decomposed layer by layer and parameter counts are products of
// these fields in int64_t, e.g. layers x experts x hidden x expert width x 3 must stay below 2^63:
// 2^10 x 2^12 x 2^18 x 2^20 x 3 < 2^62.
constexpr int64_t kMaxLayers = 1024;               // ops per iteration grow with it [126]
constexpr int64_t kMaxHidden = int64_t{1} << 18;   // 262144 [16384]
constexpr int64_t kMaxWidth = int64_t{1} << 20;    // FFN / expert widths [53248]
constexpr int64_t kMaxHeads = 4096;                // heads, kv_heads [128]
constexpr int64_t kMaxHeadDim = 16384;             // head_dim, LoRA ranks, MLA dims [1536]
constexpr int64_t kMaxExperts = 4096;              // experts, top_k, shared experts [384]
constexpr int64_t kMaxVocab = int64_t{1} << 24;    // 16.8M [262144]
constexpr int64_t kMaxContext = int64_t{1} << 24;  // tokens, as a study's isl/osl [10M]

std::string key_path_of(const MapReader& reader, const std::string& key) {
  return reader.path().empty() ? key : reader.path() + "." + key;
}

// Reads one field through `read` and records where it was and whether it read cleanly (no new
// diagnostic), so that resolution never cross-checks an error fallback.
class FieldReader {
 public:
  FieldReader(MapReader& reader, const Diagnostics& diagnostics)
      : reader_(reader), diagnostics_(diagnostics) {}

  template <class Read>
  auto read(const std::string& key, Read&& read_value) {
    const size_t errors_before = diagnostics_.size();
    auto value = read_value(reader_);
    // An empty value ("kv_heads:") reads as the default, so it counts as absent: a required
    // field left empty is reported missing instead of resolving with its 0 fallback.
    const bool present = reader_.has_value(key);
    return Located<decltype(value)>{std::move(value), reader_.location_of_key(key),
                                    key_path_of(reader_, key), present,
                                    present && diagnostics_.size() == errors_before};
  }

  Located<int64_t> required_count(const std::string& key, int64_t max) {
    return read(key, [&key, max](MapReader& r) { return r.integer(key, 1, max); });
  }
  // Absent -> 0; present -> at least `min`.
  Located<int64_t> optional_count(const std::string& key, int64_t max, int64_t min = 1) {
    return read(key, [&key, min, max](MapReader& r) { return r.integer_or(key, 0, min, max); });
  }
  Located<bool> flag(const std::string& key) {
    return read(key, [&key](MapReader& r) { return r.boolean_or(key, false); });
  }
  Located<std::string> choice(const std::string& key, const std::vector<std::string>& options) {
    return read(key, [&key, &options](MapReader& r) { return r.choice(key, options); });
  }
  Located<std::string> optional_string(const std::string& key) {
    return read(key, [&key](MapReader& r) { return r.string_or(key, ""); });
  }
  Located<std::string> format(const std::string& key, bool required) {
    const std::vector<std::string> names = number_format_names();
    if (required) return choice(key, names);
    return read(key, [&key, &names](MapReader& r) { return r.choice_or(key, "", names); });
  }

 private:
  MapReader& reader_;
  const Diagnostics& diagnostics_;
};

AttentionSpec read_attention(MapReader reader, const Diagnostics& diagnostics) {
  FieldReader field(reader, diagnostics);
  AttentionSpec a;
  a.where = reader.location();
  a.key_path = reader.path();
  a.type = field.choice("type", {"gqa", "mla"});
  a.heads = field.required_count("heads", kMaxHeads);
  a.kv_heads = field.optional_count("kv_heads", kMaxHeads);
  a.head_dim = field.optional_count("head_dim", kMaxHeadDim);
  a.bias = field.flag("bias");
  a.sinks = field.flag("sinks");
  a.sliding_window = field.optional_count("sliding_window", kMaxContext);
  a.window_pattern = field.optional_string("window_pattern");
  a.q_lora_rank = field.optional_count("q_lora_rank", kMaxHeadDim);
  a.kv_lora_rank = field.optional_count("kv_lora_rank", kMaxHeadDim);
  a.qk_nope_head_dim = field.optional_count("qk_nope_head_dim", kMaxHeadDim);
  a.qk_rope_head_dim = field.optional_count("qk_rope_head_dim", kMaxHeadDim);
  a.v_head_dim = field.optional_count("v_head_dim", kMaxHeadDim);
  a.attention_chunk = field.optional_count("attention_chunk", kMaxContext);
  a.output_gate = field.flag("output_gate");
  a.index_heads = field.optional_count("index_heads", kMaxHeads);
  a.index_head_dim = field.optional_count("index_head_dim", kMaxHeadDim);
  a.index_topk = field.optional_count("index_topk", kMaxContext);
  a.linear_key_heads = field.optional_count("linear_key_heads", kMaxHeads);
  a.linear_value_heads = field.optional_count("linear_value_heads", kMaxHeads);
  a.linear_key_head_dim = field.optional_count("linear_key_head_dim", kMaxHeadDim);
  a.linear_value_head_dim = field.optional_count("linear_value_head_dim", kMaxHeadDim);
  a.linear_conv_kernel = field.optional_count("linear_conv_kernel", kMaxHeadDim);
  reader.finish();
  return a;
}

FfnSpec read_ffn(MapReader reader, const Diagnostics& diagnostics) {
  FieldReader field(reader, diagnostics);
  FfnSpec f;
  f.where = reader.location();
  f.key_path = reader.path();
  f.type = field.choice("type", {"dense", "moe"});
  f.activation = field.choice("activation", {"swiglu"});
  f.intermediate_size = field.optional_count("intermediate_size", kMaxWidth);
  f.bias = field.flag("bias");
  f.experts = field.optional_count("experts", kMaxExperts);
  f.top_k = field.optional_count("top_k", kMaxExperts);
  f.expert_intermediate_size = field.optional_count("expert_intermediate_size", kMaxWidth);
  f.shared_experts = field.optional_count("shared_experts", kMaxExperts, 0);
  f.first_dense_layers = field.optional_count("first_dense_layers", kMaxLayers, 0);
  f.moe_layer_step = field.optional_count("moe_layer_step", kMaxLayers);
  f.router_bias = field.flag("router_bias");
  reader.finish();
  return f;
}

PrecisionSpec read_precision(MapReader reader, const Diagnostics& diagnostics) {
  FieldReader field(reader, diagnostics);
  PrecisionSpec p;
  p.weights = field.format("weights", true);
  p.experts = field.format("experts", false);
  p.embeddings = field.format("embeddings", false);
  p.activations = field.format("activations", true);
  p.kv_cache = field.format("kv_cache", true);
  p.mlp = field.format("mlp", false);
  p.mlp_activations = field.format("mlp_activations", false);
  p.residual = field.format("residual", false);
  reader.finish();
  return p;
}

}  // namespace

ModelSpec read_model_spec(const YAML::Node& root, const std::string& file,
                          Diagnostics& diagnostics) {
  MapReader reader(root, file, "", diagnostics);
  FieldReader field(reader, diagnostics);
  ModelSpec spec;
  spec.file = file;
  spec.name = field.read("name", [](MapReader& r) { return r.string("name"); });
  if (reader.has("aliases")) spec.aliases = reader.string_list("aliases");
  spec.layers = field.required_count("layers", kMaxLayers);
  spec.hidden_size = field.required_count("hidden_size", kMaxHidden);
  spec.vocab_size = field.required_count("vocab_size", kMaxVocab);
  spec.tied_embeddings = field.flag("tied_embeddings");
  spec.max_context = field.required_count("max_context", kMaxContext);
  spec.norm = field.choice("norm", {"rmsnorm"});
  spec.mtp_layers = field.optional_count("mtp_layers", kMaxLayers, 0);
  spec.attention = read_attention(reader.map("attention"), diagnostics);
  spec.ffn = read_ffn(reader.map("ffn"), diagnostics);
  spec.precision = read_precision(reader.map("precision"), diagnostics);
  reader.finish();
  return spec;
}

}  // namespace scoville::workloads
