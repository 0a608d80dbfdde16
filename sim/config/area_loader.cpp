#include "sim/config/area_loader.hpp"

#include <cstdlib>
#include <filesystem>

#include "sim/base/yaml_reader.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/config_override.hpp"

namespace scoville::config {

namespace {

// A value with one of the units a field accepts, e.g. "814 mm^2"; returns it in SI (scaled by
// the unit's factor). The unit parser of sim/base has no area or money dimension, so these
// fields are read here, each accepting the units listed.
struct Unit {
  const char* name;
  double to_si;
};

double unit_value(MapReader& r, const std::string& key, const std::vector<Unit>& units,
                  bool required, double fallback = 0) {
  if (!required && !r.has_value(key)) {
    r.string_or(key, "");
    return fallback;
  }
  const std::string text = r.string(key);
  if (text.empty()) return fallback;
  std::string expected;
  for (const Unit& u : units) expected += (expected.empty() ? "" : " or ") + std::string(u.name);
  const char* begin = text.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  std::string unit = end == begin ? "" : std::string(end);
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  if (end != begin && v > 0) {
    for (const Unit& u : units) {
      if (unit == u.name) return v * u.to_si;
    }
  }
  r.error(key, "expected a positive number with unit " + expected + " (e.g. '1 " +
                   units.front().name + "'), got '" + text + "'");
  return fallback;
}

const std::vector<Unit> kArea = {{"mm^2", 1e-6}, {"um^2", 1e-12}};
const std::vector<Unit> kLength = {{"mm", 1e-3}};
const std::vector<Unit> kMoney = {{"USD", 1.0}};
const std::vector<Unit> kPerGb = {{"USD/GB", 1.0}};
const std::vector<Unit> kPerMm2 = {{"USD/mm^2", 1.0}};
const std::vector<Unit> kDensity = {{"MTr/mm^2", 1e12}};
const std::vector<Unit> kDefects = {{"/cm^2", 1e4}, {"/mm^2", 1e6}};

models::ProcessNode read_node(MapReader r) {
  models::ProcessNode n;
  n.name = r.string("name");
  n.logic_density = unit_value(r, "logic_density", kDensity, true);
  n.sram_bitcell = models::Area(unit_value(r, "sram_bitcell", kArea, true));
  n.wafer_price = models::Money(unit_value(r, "wafer_price", kMoney, true));
  n.defect_density = unit_value(r, "defect_density", kDefects, true);
  r.finish();
  return n;
}

models::AreaComponents read_components(MapReader r) {
  models::AreaComponents c;
  c.matrix_mac_transistors = r.number("matrix_mac_transistors", 1, 1e9);
  c.fp8_mac_share = r.number("fp8_mac_share", 0, 1);
  c.fp4_mac_share = r.number("fp4_mac_share", 0, 1);
  c.vector_lane_transistors = r.number("vector_lane_transistors", 1, 1e9);
  MapReader classes = r.map("tile_classes");
  for (const std::string& name : classes.keys()) {
    MapReader t = classes.map(name);
    models::TileClass tc;
    tc.per_tile_transistors = t.number("per_tile_transistors", 0, 1e12);
    tc.per_vector_lane_transistors = t.number("per_vector_lane_transistors", 0, 1e12);
    tc.other_units_transistors = t.number("other_units_transistors", 0, 1e12);
    t.finish();
    c.tile_classes[name] = tc;
  }
  classes.finish();
  c.cache_bit_over_bitcell = r.number("cache_bit_over_bitcell", 1, 100);
  c.scratchpad_bit_over_bitcell = r.number("scratchpad_bit_over_bitcell", 1, 100);
  c.register_file_bit_over_bitcell = r.number("register_file_bit_over_bitcell", 1, 100);
  c.hbm_phy_per_stack = models::Area(unit_value(r, "hbm_phy_per_stack", kArea, true));
  c.hbm_controller_transistors = r.number("hbm_controller_transistors", 0, 1e12);
  c.serdes_phy_per_lane = models::Area(unit_value(r, "serdes_phy_per_lane", kArea, true));
  c.serdes_controller_transistors_per_lane =
      r.number("serdes_controller_transistors_per_lane", 0, 1e12);
  c.serdes_lane_payload = r.quantity<Bandwidth>("serdes_lane_payload");
  c.uncore_fraction = r.number("uncore_fraction", 0, 1);
  r.finish();
  return c;
}

models::CostParams read_cost(MapReader r) {
  models::CostParams c;
  c.wafer_diameter_m = unit_value(r, "wafer_diameter", kLength, true);
  c.yield_model = r.choice("yield_model", {"negative_binomial", "murphy"}) == "murphy"
                      ? models::YieldModel::kMurphy
                      : models::YieldModel::kNegativeBinomial;
  c.cluster_alpha = r.number("cluster_alpha", 0.01, 1000);
  c.hbm_per_gb = models::Money(unit_value(r, "hbm_per_gb", kPerGb, true));
  c.interposer_per_mm2 = models::Money(unit_value(r, "interposer_per_mm2", kPerMm2, true));
  c.hbm_stack_footprint = models::Area(unit_value(r, "hbm_stack_footprint", kArea, true));
  c.interposer_over_silicon = r.number("interposer_over_silicon", 1, 10);
  c.test_and_assembly = models::Money(unit_value(r, "test_and_assembly", kMoney, true));
  c.reticle_limit = models::Area(unit_value(r, "reticle_limit", kArea, true));
  r.finish();
  return c;
}

models::ChipAreaProfile read_profile(MapReader r, const std::string& chip,
                                     const models::AreaComponents& components) {
  models::ChipAreaProfile p;
  p.chip = chip;
  p.node = r.string("node");
  std::vector<std::string> classes;
  for (const auto& [name, tc] : components.tile_classes) classes.push_back(name);
  p.tile_class = r.choice("tile_class", classes);
  p.compute_dies = r.integer("compute_dies", 1, 64);
  if (r.has_value("physical_tiles")) p.physical_tiles = r.integer("physical_tiles", 1, 1 << 20);
  if (r.has_value("physical_hbm_stacks")) {
    p.physical_hbm_stacks = r.integer("physical_hbm_stacks", 0, 64);
  }
  p.register_file_per_tile =
      r.quantity_or<Bytes>("register_file_per_tile", Bytes(0), Range::kNonNegative);
  p.extra_shared_sram = r.quantity_or<Bytes>("extra_shared_sram", Bytes(0), Range::kNonNegative);
  p.sram_kind = r.choice("sram_kind", {"cache", "scratchpad"}) == "cache"
                    ? models::SramKind::kCache
                    : models::SramKind::kScratchpad;
  p.io_node = r.string_or("io_node", "");
  p.io_dies = r.integer_or("io_dies", 0, 0, 64);
  if ((p.io_dies > 0) != !p.io_node.empty()) {
    r.error("io_dies", "io_node and io_dies go together (both set, or neither)");
  }
  p.published_compute_die = models::Area(unit_value(r, "published_compute_die", kArea, false));
  p.published_io_die = models::Area(unit_value(r, "published_io_die", kArea, false));
  p.stated_error = r.number_or("stated_error", 0, 0, 10);
  r.finish();
  return p;
}

template <class T, class F>
T read_document(const YAML::Node& root, const std::string& file, const std::string& section,
                F read) {
  Diagnostics diagnostics;
  MapReader top(root, file, "", diagnostics);
  T value = read(top.map(section));
  top.finish();
  diagnostics.throw_if_any();
  return value;
}

std::string area_file(const DataPaths& paths, const std::string& name) {
  return paths.root + "/arch/area/" + name + ".yaml";
}

models::ProcessNode load_node(const std::string& name, const DataPaths& paths,
                              const std::string& referrer, const std::string& key) {
  const std::string path = area_file(paths, name);
  if (!std::filesystem::exists(path)) {
    std::string known;
    for (const std::string& n : paths.available("arch/area")) {
      if (n != "chips" && n != "components" && n != "cost")
        known += (known.empty() ? "" : ", ") + n;
    }
    throw InputError(SourceLocation{referrer, 0, 0}, key,
                     "no process node '" + name + "' in arch/area (known: " + known +
                         "); name one with --set area." + key + "=NAME");
  }
  return read_document<models::ProcessNode>(load_yaml_file(path), path, "process_node", read_node);
}

}  // namespace

models::ProcessNode parse_process_node_string(const std::string& yaml,
                                              const std::string& display_name) {
  return read_document<models::ProcessNode>(load_yaml_string(yaml, display_name), display_name,
                                            "process_node", read_node);
}

models::AreaComponents parse_area_components_string(const std::string& yaml,
                                                    const std::string& display_name) {
  return read_document<models::AreaComponents>(load_yaml_string(yaml, display_name), display_name,
                                               "area_components", read_components);
}

models::CostParams parse_cost_string(const std::string& yaml, const std::string& display_name) {
  return read_document<models::CostParams>(load_yaml_string(yaml, display_name), display_name,
                                           "cost", read_cost);
}

AreaInputs load_area_inputs(const std::string& chip_name_or_path,
                            const std::vector<Override>& overrides, const DataPaths& paths) {
  AreaInputs in;
  const std::string chip_path = paths.resolve(chip_name_or_path, "arch/chips");
  require_known(chip_name_or_path, chip_path, "arch/chips", paths, "chip");
  in.chip_file = chip_path;

  // Split the overrides by the document they change.
  YAML::Node chip_root = load_yaml_file(chip_path);
  const std::string cost_path = area_file(paths, "cost");
  YAML::Node cost_root = load_yaml_file(cost_path);
  std::vector<Override> profile_sets;
  std::string chip_label = chip_path;
  std::string cost_label = cost_path;
  for (const auto& [key, value] : overrides) {
    if (key.rfind("area.", 0) == 0) {
      profile_sets.emplace_back(key.substr(5), value);
    } else if (key.rfind("cost.", 0) == 0) {
      set_yaml_key(cost_root["cost"], key.substr(5), value, cost_path);
      cost_label = cost_path + " (with --set)";
    } else {
      const std::string k = key.rfind("chip.", 0) == 0 ? key.substr(5) : key;
      set_yaml_key(chip_root["chip"], k, value, chip_path);
      chip_label = chip_path + " (with --set)";
    }
  }
  YAML::Emitter chip_text;
  chip_text << chip_root;
  const ChipSpec spec = chip_label == chip_path ? parse_chip(chip_path)
                                                : parse_chip_string(chip_text.c_str(), chip_label);
  in.chip = spec.params;

  const std::string components_path = area_file(paths, "components");
  in.components = read_document<models::AreaComponents>(
      load_yaml_file(components_path), components_path, "area_components", read_components);
  YAML::Emitter cost_text;
  cost_text << cost_root;
  in.cost = parse_cost_string(cost_text.c_str(), cost_label);

  // The chip's profile: `default`, overlaid with the chip's own entry, then --set area.X.
  const std::string chips_path = area_file(paths, "chips");
  const YAML::Node chips_root = load_yaml_file(chips_path);
  const YAML::Node listed = chips_root["chips"];
  if (!listed || !listed.IsMap() || !listed["default"]) {
    throw InputError(SourceLocation{chips_path, 0, 0}, "chips.default",
                     "expected a `chips:` map with a `default` entry");
  }
  YAML::Node profile = YAML::Clone(listed["default"]);
  std::string profile_label = chips_path + " (chips.default)";
  if (const YAML::Node own = listed[in.chip.name]) {
    for (const auto& kv : own) profile[kv.first.as<std::string>()] = kv.second;
    profile_label = chips_path + " (chips." + in.chip.name + " over chips.default)";
  } else if (!profile["node"]) {
    profile["node"] = spec.energy_table;  // the energy table names the process
  }
  for (const auto& [key, value] : profile_sets) {
    set_yaml_key(profile, key, value, chips_path);
    profile_label += " (with --set)";
  }
  YAML::Emitter profile_text;
  profile_text << YAML::BeginMap << YAML::Key << "profile" << YAML::Value << profile
               << YAML::EndMap;
  in.profile = read_document<models::ChipAreaProfile>(
      load_yaml_string(profile_text.c_str(), profile_label), profile_label, "profile",
      [&](MapReader r) { return read_profile(std::move(r), in.chip.name, in.components); });

  in.nodes[in.profile.node] = load_node(in.profile.node, paths, profile_label, "node");
  if (in.profile.io_dies > 0) {
    in.nodes[in.profile.io_node] = load_node(in.profile.io_node, paths, profile_label, "io_node");
  }
  return in;
}

}  // namespace scoville::config
