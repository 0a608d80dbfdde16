#include "sim/study/study_config.hpp"

#include <yaml-cpp/yaml.h>

#include <optional>
#include <stdexcept>

#include "models/kv/kv_placement.hpp"
#include "sim/base/yaml_reader.hpp"
#include "workloads/routing_distribution.hpp"

namespace scoville::study {

namespace {

// The default study: the foundation's two chips on a model that fits on one chip, at the
// InferenceX summarisation shape (8K in / 1K out).
constexpr const char* kDefaultStudy = R"(study:
  name: default
  chips: [h200, jalapeno]
  model: llama-3.1-8b
  batch: 16
  isl: 8192
  osl: 1024
  seed: 1
)";

// Mapping degrees are bounded by the system's chip count when the run builds its setup; this
// bound only keeps the number sane before the system is loaded.
constexpr int64_t kMaxDegree = 1 << 20;

SystemStudyKeys read_system_keys(MapReader& r) {
  SystemStudyKeys k;
  k.system = r.string("system");
  k.where = r.location_of_key(r.has("mapping") ? "mapping" : "system");
  k.kv_placement = r.string_or("kv_placement", k.kv_placement);
  const models::KvPlacementRegistry& placements = models::kv_placement_registry();
  if (r.has_value("kv_placement") && !placements.contains(k.kv_placement)) {
    std::string known;
    for (const std::string& n : placements.names()) known += (known.empty() ? "" : ", ") + n;
    r.error("kv_placement",
            "unknown KV placement '" + k.kv_placement + "'; expected one of " + known);
  }
  k.fidelity = r.choice_or("fidelity", k.fidelity, {"representative", "all"});
  k.overlap = r.choice_or("overlap", k.overlap, {"none", "two_batch"});
  k.routing = r.string_or("routing", k.routing);
  try {
    workloads::parse_routing_spec(k.routing);
  } catch (const std::invalid_argument& e) {
    r.error("routing", e.what());
  }
  k.reuse_repeated_ops = r.boolean_or("reuse_repeated_ops", false);
  if (const std::optional<YAML::Node> mapping = r.optional_raw("mapping")) {
    if (mapping->IsScalar()) {
      k.mapping_file = r.string("mapping");
    } else if (std::optional<MapReader> m = r.optional_map("mapping")) {
      auto degree = [&](const char* key) -> std::optional<int64_t> {
        if (!m->has_value(key)) return std::nullopt;
        return m->integer(key, 1, kMaxDegree);
      };
      k.tp = degree("tp");
      k.ep = degree("ep");
      k.pp = degree("pp");
      k.dp = degree("dp");
      k.attn_dp = degree("attn_dp");
      m->finish();
    }
  }
  return k;
}

StudyConfig read_study(const YAML::Node& root, const std::string& file, const std::string& text) {
  Diagnostics diagnostics;
  MapReader top(root, file, "", diagnostics);
  MapReader r = top.map("study");
  top.finish();
  StudyConfig s;
  s.source = file;
  s.yaml_text = text;
  s.name = r.string_or("name", "study");
  s.model = r.string("model");
  s.batch = r.integer("batch", 1, kMaxBatch);
  s.isl = r.integer("isl", 1, kMaxSequenceTokens);
  s.osl = r.integer("osl", 1, kMaxSequenceTokens);
  s.seed = static_cast<uint64_t>(r.integer_or("seed", 0, 0, INT64_MAX));
  if (r.has("system")) {
    // The system path takes what `run --system` takes; the single-chip keys have no meaning
    // there (the system file names its chip and its software profile).
    for (const char* key : {"chips", "precision", "software", "power_cap"}) {
      if (r.has(key)) {
        r.optional_raw(key);  // known: this error, not also "unknown key"
        r.error(key, std::string("'") + key +
                         "' is a key of single-chip studies; a study with 'system:' runs the "
                         "system's own chip (give chips: or system:, not both)");
      }
    }
    s.system = read_system_keys(r);
  } else {
    for (const char* key :
         {"kv_placement", "mapping", "fidelity", "overlap", "routing", "reuse_repeated_ops"}) {
      if (r.has(key)) {
        r.optional_raw(key);
        r.error(key, std::string("'") + key +
                         "' needs 'system:' naming a multi-chip system (arch/systems)");
      }
    }
    s.chips = r.string_list("chips");
    if (std::optional<MapReader> precision = r.optional_map("precision")) {
      s.precision = workloads::read_precision_override(*precision);
    }
    s.software = r.string_or("software", "");
    // Absent or empty: no override (0 is never a valid cap, so it marks "none").
    const Power cap = r.quantity_or<Power>("power_cap", Power(0));
    if (cap.si() > 0) s.power_cap = cap;
  }
  r.finish();
  diagnostics.throw_if_any();
  return s;
}

}  // namespace

StudyConfig parse_study_string(const std::string& yaml, const std::string& display_name) {
  return read_study(load_yaml_string(yaml, display_name), display_name, yaml);
}

StudyConfig parse_study_file(const std::string& path) {
  return parse_study_string(read_text_file(path), path);
}

StudyConfig default_study() {
  return parse_study_string(kDefaultStudy, "<embedded default study>");
}

namespace {

void emit_system_keys(YAML::Emitter& out, const SystemStudyKeys& k) {
  out << YAML::Key << "system" << YAML::Value << k.system;
  out << YAML::Key << "kv_placement" << YAML::Value << k.kv_placement;
  out << YAML::Key << "fidelity" << YAML::Value << k.fidelity;
  out << YAML::Key << "overlap" << YAML::Value << k.overlap;
  if (k.routing != "expected") out << YAML::Key << "routing" << YAML::Value << k.routing;
  if (k.reuse_repeated_ops) out << YAML::Key << "reuse_repeated_ops" << YAML::Value << true;
  if (!k.mapping_file.empty()) {
    out << YAML::Key << "mapping" << YAML::Value << k.mapping_file;
  } else if (k.tp || k.ep || k.pp || k.dp || k.attn_dp) {
    out << YAML::Key << "mapping" << YAML::Value << YAML::Flow << YAML::BeginMap;
    const std::pair<const char*, const std::optional<int64_t>*> degrees[] = {
        {"tp", &k.tp}, {"ep", &k.ep}, {"pp", &k.pp}, {"dp", &k.dp}, {"attn_dp", &k.attn_dp}};
    for (const auto& [name, value] : degrees) {
      if (*value) out << YAML::Key << name << YAML::Value << **value;
    }
    out << YAML::EndMap;
  }
}

}  // namespace

std::string to_yaml(const StudyConfig& s) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "study" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << s.name;
  if (!s.system) out << YAML::Key << "chips" << YAML::Value << YAML::Flow << s.chips;
  out << YAML::Key << "model" << YAML::Value << s.model;
  out << YAML::Key << "batch" << YAML::Value << s.batch;
  out << YAML::Key << "isl" << YAML::Value << s.isl;
  out << YAML::Key << "osl" << YAML::Value << s.osl;
  out << YAML::Key << "seed" << YAML::Value << s.seed;
  if (!s.precision.empty()) {
    out << YAML::Key << "precision" << YAML::Value << YAML::BeginMap;
    for (const auto& [tensor_class, entry] : s.precision.entries) {
      out << YAML::Key << tensor_class << YAML::Value << to_string(entry.format);
    }
    out << YAML::EndMap;
  }
  if (!s.software.empty()) out << YAML::Key << "software" << YAML::Value << s.software;
  if (s.power_cap) {
    out << YAML::Key << "power_cap" << YAML::Value << format_si(s.power_cap->si(), "W", 12);
  }
  if (s.system) emit_system_keys(out, *s.system);
  out << YAML::EndMap << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace scoville::study
