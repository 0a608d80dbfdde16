#include "sim/study/study_config.hpp"

#include <yaml-cpp/yaml.h>

#include <optional>

#include "sim/base/yaml_reader.hpp"

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
  s.chips = r.string_list("chips");
  if (std::optional<MapReader> precision = r.optional_map("precision")) {
    s.precision = workloads::read_precision_override(*precision);
  }
  s.software = r.string_or("software", "");
  // Absent or empty: no override (0 is never a valid cap, so it marks "none").
  const Power cap = r.quantity_or<Power>("power_cap", Power(0));
  if (cap.si() > 0) s.power_cap = cap;
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

std::string to_yaml(const StudyConfig& s) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "study" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << s.name;
  out << YAML::Key << "chips" << YAML::Value << YAML::Flow << s.chips;
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
  out << YAML::EndMap << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace scoville::study
