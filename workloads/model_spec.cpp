#include "workloads/model_spec.hpp"

#include <utility>
#include <vector>

#include "sim/base/number_format.hpp"
#include "sim/base/yaml_reader.hpp"

namespace scoville::workloads {

namespace {

// Sizes and counts are positive; optional ones use 0 for "absent". The upper bound only catches
// typos (a trillion-wide layer); it is far above any published model.
constexpr int64_t kMaxSize = int64_t{1} << 40;

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

  Located<int64_t> required_count(const std::string& key) {
    return read(key, [&key](MapReader& r) { return r.integer(key, 1, kMaxSize); });
  }
  // Absent -> 0; present -> at least `min`.
  Located<int64_t> optional_count(const std::string& key, int64_t min = 1) {
    return read(key, [&key, min](MapReader& r) { return r.integer_or(key, 0, min, kMaxSize); });
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
  a.heads = field.required_count("heads");
  a.kv_heads = field.optional_count("kv_heads");
  a.head_dim = field.optional_count("head_dim");
  a.bias = field.flag("bias");
  a.sinks = field.flag("sinks");
  a.sliding_window = field.optional_count("sliding_window");
  a.window_pattern = field.optional_string("window_pattern");
  a.q_lora_rank = field.optional_count("q_lora_rank");
  a.kv_lora_rank = field.optional_count("kv_lora_rank");
  a.qk_nope_head_dim = field.optional_count("qk_nope_head_dim");
  a.qk_rope_head_dim = field.optional_count("qk_rope_head_dim");
  a.v_head_dim = field.optional_count("v_head_dim");
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
  f.intermediate_size = field.optional_count("intermediate_size");
  f.bias = field.flag("bias");
  f.experts = field.optional_count("experts");
  f.top_k = field.optional_count("top_k");
  f.expert_intermediate_size = field.optional_count("expert_intermediate_size");
  f.shared_experts = field.optional_count("shared_experts", 0);
  f.first_dense_layers = field.optional_count("first_dense_layers", 0);
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
  spec.layers = field.required_count("layers");
  spec.hidden_size = field.required_count("hidden_size");
  spec.vocab_size = field.required_count("vocab_size");
  spec.tied_embeddings = field.flag("tied_embeddings");
  spec.max_context = field.required_count("max_context");
  spec.norm = field.choice("norm", {"rmsnorm"});
  spec.attention = read_attention(reader.map("attention"), diagnostics);
  spec.ffn = read_ffn(reader.map("ffn"), diagnostics);
  spec.precision = read_precision(reader.map("precision"), diagnostics);
  reader.finish();
  return spec;
}

}  // namespace scoville::workloads
