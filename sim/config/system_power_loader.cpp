#include "sim/config/system_power_loader.hpp"

namespace scoville::config {

namespace {

constexpr int64_t kMaxUnits = 10'000'000;  // units of one kind in one system

models::UnitPower read_units(MapReader& parent, const std::string& key) {
  models::UnitPower u;
  if (std::optional<MapReader> r = parent.optional_map(key)) {
    u.count = r->integer("count", 0, kMaxUnits);
    u.power = r->quantity<Power>("power", Range::kNonNegative);
    r->finish();
  }
  return u;
}

models::SystemPowerParams read_document(const YAML::Node& root, const std::string& file) {
  Diagnostics diagnostics;
  MapReader top(root, file, "", diagnostics);
  models::SystemPowerParams p = read_system_power(top.map("power"));
  top.finish();
  diagnostics.throw_if_any();
  return p;
}

}  // namespace

models::SystemPowerParams read_system_power(MapReader r) {
  models::SystemPowerParams p;
  p.hosts = read_units(r, "hosts");
  p.nics = read_units(r, "nics");
  p.switches = read_units(r, "switches");
  p.memory_pools = read_units(r, "memory_pools");
  p.other_it = r.number_or("other_it", 0.0, 0.0, 10.0);
  p.pue = r.number("pue", 1.0, 5.0);
  r.finish();
  return p;
}

models::SystemPowerParams parse_system_power_file(const std::string& path) {
  return read_document(load_yaml_file(path), path);
}

models::SystemPowerParams parse_system_power_string(const std::string& yaml,
                                                    const std::string& display_name) {
  return read_document(load_yaml_string(yaml, display_name), display_name);
}

}  // namespace scoville::config
