#include "sim/sweep/sweep_config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "sim/base/rng.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/base/yaml_reader.hpp"
#include "sim/config/scenario_loader.hpp"
#include "sim/study/study_config.hpp"

namespace scoville::sweep {

namespace {

std::string flow_yaml(const YAML::Node& node) {
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << node;
  return out.c_str();
}

// "4.5 TB/s" -> (4.5, "TB/s"); "16" -> (16, ""). The unit text is kept verbatim so that the
// study's own schema parses it (and rejects a wrong dimension there, with its message).
bool split_number(const std::string& text, double& value, std::string& unit) {
  size_t used = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return false;
  }
  while (used < text.size() && text[used] == ' ') ++used;
  unit = text.substr(used);
  return std::isfinite(value);
}

std::string number_text(double v, const std::string& unit) {
  char b[40];
  std::snprintf(b, sizeof(b), "%.15g", v);
  return unit.empty() ? std::string(b) : std::string(b) + " " + unit;
}

std::vector<YAML::Node> read_range(MapReader& range) {
  std::vector<YAML::Node> values;
  const std::string from_text = range.string("from");
  const std::string to_text = range.string("to");
  const bool has_step = range.has("step");
  const bool has_factor = range.has("factor");
  const std::string by_text = has_step     ? range.string("step")
                              : has_factor ? range.string("factor")
                                           : "";
  range.finish();
  if (has_step == has_factor) {
    range.error("", "give exactly one of step (arithmetic) or factor (geometric)");
    return values;
  }
  double from = 0, to = 0, by = 0;
  std::string from_unit, to_unit, by_unit;
  if (!split_number(from_text, from, from_unit) || !split_number(to_text, to, to_unit) ||
      !split_number(by_text, by, by_unit)) {
    range.error("", "from, to and step/factor must be numbers, optionally with a unit");
    return values;
  }
  if (from_unit != to_unit || (has_step && by_unit != from_unit) ||
      (has_factor && !by_unit.empty())) {
    range.error("", "from, to and step must carry the same unit ('" + from_unit + "', '" + to_unit +
                        "', '" + by_unit + "'); factor has none");
    return values;
  }
  if (has_step && !(by > 0)) {
    range.error("step", "expected a step > 0");
    return values;
  }
  if (has_factor && !(by > 1)) {
    range.error("factor", "expected a factor > 1");
    return values;
  }
  if (to < from) {
    range.error("to", "expected to >= from");
    return values;
  }
  if (has_factor && !(from > 0)) {
    // 0 or a negative start never grows towards `to` by multiplication.
    range.error("from", "expected from > 0 for a geometric range (factor)");
    return values;
  }
  // Counted before any value is made: a range of 10^9 values (or one whose step is lost in
  // rounding, or an infinite bound) is refused at once instead of after 10^6 iterations.
  const double count = has_step ? std::floor((to - from) / by + 1e-9) + 1
                                : std::floor(std::log(to / from) / std::log(by) + 1e-9) + 1;
  if (!(count <= static_cast<double>(kMaxPoints))) {
    range.error("", "expands to more than " + std::to_string(kMaxPoints) + " values");
    return values;
  }
  // The i-th value is computed from `from` rather than accumulated, so that a step lost in
  // rounding (from 1e20, step 1) cannot repeat a value forever; the count above already has
  // the slack that lets 0.1-steps land on `to`.
  const auto n = static_cast<int64_t>(count);
  for (int64_t i = 0; i < n; ++i) {
    const double v =
        has_step ? from + static_cast<double>(i) * by : from * std::pow(by, static_cast<double>(i));
    values.emplace_back(number_text(v, from_unit));
  }
  return values;
}

void assign(YAML::Node& root, const std::string& dotted, const YAML::Node& value,
            const SourceLocation& where) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t dot = dotted.find('.', start);
    parts.push_back(
        dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  YAML::Node node = root;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node next = node[parts[i]];
    if (next.IsDefined() && !next.IsNull() && !next.IsMap()) {
      throw InputError(where, "axes.key",
                       "'" + dotted + "': '" + parts[i] + "' is not a map in the base study");
    }
    if (!next.IsDefined() || next.IsNull()) node[parts[i]] = YAML::Node(YAML::NodeType::Map);
    node.reset(node[parts[i]]);
  }
  node[parts.back()] = YAML::Clone(value);
}

SweepConfig read_sweep(const YAML::Node& root, const std::string& file, const std::string& text) {
  Diagnostics diagnostics;
  MapReader top(root, file, "", diagnostics);
  MapReader r = top.map("sweep");
  top.finish();
  SweepConfig s;
  s.source = file;
  s.text = text;
  s.name = r.string_or("name", "sweep");
  // The default results folder is <name>.sweep: a name is one plain file name, so that it cannot
  // place (or replace) results outside the current folder.
  const bool control = std::any_of(s.name.begin(), s.name.end(),
                                   [](char c) { return static_cast<unsigned char>(c) < 0x20; });
  if (s.name.empty() || s.name.find('/') != std::string::npos || s.name.front() == '.' || control) {
    r.error("name",
            "'" + s.name + "' is not a plain file name (no '/', no leading '.', no control " +
                "characters): the default results folder is <name>.sweep; give -o DIR for " +
                "another place");
  }
  s.zip = r.choice_or("combine", "cartesian", {"cartesian", "zip"}) == "zip";
  const std::optional<YAML::Node> inline_study = r.optional_raw("study");
  const std::optional<YAML::Node> inline_scenario = r.optional_raw("scenario");
  const bool has_base = r.has("base");
  const std::string base = has_base ? r.string("base") : "";
  if (static_cast<int>(inline_study.has_value()) + static_cast<int>(inline_scenario.has_value()) +
          static_cast<int>(has_base) >
      1) {
    r.error(has_base ? "base" : "scenario",
            "give one base: a base: FILE, an inline study: or an inline scenario:");
  } else if (!inline_study && !inline_scenario && !has_base) {
    r.error("", "missing the base study or scenario: give base: FILE, study: or scenario:");
  }
  if (inline_study) {
    s.base = YAML::Node(YAML::NodeType::Map);
    s.base["study"] = YAML::Clone(*inline_study);
  } else if (inline_scenario) {
    s.kind = PointKind::kScenario;
    s.base = YAML::Node(YAML::NodeType::Map);
    s.base["scenario"] = YAML::Clone(*inline_scenario);
  } else if (has_base) {
    const std::filesystem::path p = std::filesystem::path(file).parent_path() / base;
    s.base = YAML::Clone(load_yaml_file(p.string()));
    if (s.base.IsMap() && s.base["scenario"]) {
      s.kind = PointKind::kScenario;
    } else if (!s.base.IsMap() || !s.base["study"]) {
      r.error("base",
              "'" + p.string() + "' is neither a study (study:) nor a scenario (scenario:)");
    }
  }
  // A scenario's relative trace file is relative to the file it was written in; points live in
  // DIR/points/, so it is made absolute here.
  if (s.kind == PointKind::kScenario && s.base["scenario"].IsMap()) {
    YAML::Node requests = s.base["scenario"]["requests"];
    if (requests.IsMap() && requests["trace"] && requests["trace"].IsScalar()) {
      const std::filesystem::path trace = requests["trace"].as<std::string>();
      const std::filesystem::path written_in =
          has_base ? std::filesystem::path(file).parent_path() / base : std::filesystem::path(file);
      if (trace.is_relative()) {
        requests["trace"] =
            std::filesystem::absolute(written_in.parent_path() / trace).lexically_normal().string();
      }
    }
  }
  s.self_contained_text = text;
  if (has_base && s.base.IsMap()) {
    YAML::Node copy = YAML::Clone(root);
    copy["sweep"].remove("base");
    const char* key = s.kind == PointKind::kScenario ? "scenario" : "study";
    copy["sweep"][key] = YAML::Clone(s.base[key]);
    YAML::Emitter out;
    out << copy;
    s.self_contained_text =
        "# " + file + " with its base (" + base + ") inline\n" + std::string(out.c_str()) + "\n";
  }
  const std::optional<YAML::Node> axes = r.optional_raw("axes");
  if (!axes || !axes->IsSequence() || axes->size() == 0) {
    r.error("axes", "expected a non-empty list of {key, values} or {key, range}");
  } else {
    std::set<std::string> keys;
    for (size_t i = 0; i < axes->size(); ++i) {
      MapReader a((*axes)[i], file, "sweep.axes[" + std::to_string(i) + "]", diagnostics);
      SweepAxis axis;
      axis.where = location_of((*axes)[i], file);
      axis.key = a.string("key");
      if (!axis.key.empty() && !keys.insert(axis.key).second) a.error("key", "axis key repeated");
      if (!axis.key.empty() && (axis.key.front() == '.' || axis.key.back() == '.' ||
                                axis.key.find("..") != std::string::npos)) {
        a.error("key", "expected a dotted key such as study.batch");
      }
      const std::optional<YAML::Node> values = a.optional_raw("values");
      std::optional<MapReader> range = a.optional_map("range");
      if (values && range) a.error("", "give values or range, not both");
      if (values) {
        if (!values->IsSequence() || values->size() == 0) {
          a.error("values", "expected a non-empty list");
        } else {
          for (const YAML::Node& v : *values) axis.values.push_back(v);
        }
      } else if (range) {
        axis.values = read_range(*range);
      } else {
        a.error("", "missing values or range");
      }
      a.finish();
      s.axes.push_back(std::move(axis));
    }
  }
  r.finish();
  diagnostics.throw_if_any();
  return s;
}

}  // namespace

std::string to_string(PointKind kind) {
  return kind == PointKind::kScenario ? "scenario" : "study";
}

SweepConfig parse_sweep_file(const std::string& path) {
  const std::string text = read_text_file(path);
  return read_sweep(load_yaml_string(text, path), path, text);
}

SweepConfig parse_sweep_string(const std::string& text, const std::string& display_name) {
  return read_sweep(load_yaml_string(text, display_name), display_name, text);
}

std::vector<SweepPoint> expand_points(const SweepConfig& sweep) {
  const SourceLocation where{sweep.source, 0, 0};
  int64_t count = 1;
  if (sweep.zip) {
    count = static_cast<int64_t>(sweep.axes.front().values.size());
    for (const SweepAxis& a : sweep.axes) {
      if (static_cast<int64_t>(a.values.size()) != count) {
        throw InputError(a.where, "sweep.axes",
                         "combine: zip needs axes of equal length; '" + a.key + "' has " +
                             std::to_string(a.values.size()) + ", '" + sweep.axes.front().key +
                             "' has " + std::to_string(count));
      }
    }
  } else {
    for (const SweepAxis& a : sweep.axes) {
      count *= static_cast<int64_t>(a.values.size());
      if (count > kMaxPoints) {
        throw InputError(where, "sweep.axes",
                         "the cartesian product has more than " + std::to_string(kMaxPoints) +
                             " points; split the sweep or use combine: zip");
      }
    }
  }
  std::vector<SweepPoint> points;
  std::set<std::string> ids;
  for (int64_t index = 0; index < count; ++index) {
    SweepPoint p;
    p.index = index;
    YAML::Node doc = YAML::Clone(sweep.base);
    int64_t rest = index;
    std::vector<size_t> pick(sweep.axes.size());
    for (size_t a = sweep.axes.size(); a-- > 0;) {
      const int64_t n = static_cast<int64_t>(sweep.axes[a].values.size());
      pick[a] = sweep.zip ? static_cast<size_t>(index) : static_cast<size_t>(rest % n);
      rest = sweep.zip ? rest : rest / n;
    }
    std::map<std::string, std::string> canonical;  // sorted by key: the id ignores axis order
    for (size_t a = 0; a < sweep.axes.size(); ++a) {
      const YAML::Node& value = sweep.axes[a].values[pick[a]];
      assign(doc, sweep.axes[a].key, value, sweep.axes[a].where);
      p.assignments.emplace_back(sweep.axes[a].key, flow_yaml(value));
      canonical[sweep.axes[a].key] = flow_yaml(value);
    }
    std::string key;
    for (const auto& [k, v] : canonical) key += k + "=" + v + "\n";
    // FNV-1a, then SplitMix64's finaliser (via RngStream) so that similar keys get unrelated ids.
    char id[17];
    std::snprintf(id, sizeof(id), "%016llx",
                  static_cast<unsigned long long>(RngStream(0, key).next_u64()));
    p.id = std::string(id).substr(0, 12);
    if (!ids.insert(p.id).second) {
      throw InputError(where, "sweep.axes", "two points have the same axis values (" + key + ")");
    }
    YAML::Emitter out;
    out << doc;
    p.study_yaml = std::string(out.c_str()) + "\n";
    std::string label;
    for (const auto& [k, v] : p.assignments) label += (label.empty() ? "" : ", ") + k + "=" + v;
    // Every point must be valid before anything runs (the message names the point).
    const std::string name = sweep.source + " point " + p.id + " (" + label + ")";
    p.kind = sweep.kind;
    if (sweep.kind == PointKind::kScenario) {
      config::load_scenario_string(p.study_yaml, name);
    } else {
      study::parse_study_string(p.study_yaml, name);
    }
    points.push_back(std::move(p));
  }
  return points;
}

}  // namespace scoville::sweep
