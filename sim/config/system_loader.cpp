#include "sim/config/system_loader.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <memory>

#include "sim/base/unit_parser.hpp"
#include "sim/base/yaml_reader.hpp"

namespace scoville::config {

namespace {

constexpr int64_t kMaxChips = 1 << 20;
constexpr int64_t kMaxRadix = 1 << 16;

models::LinkParams read_link(MapReader r) {
  models::LinkParams l;
  l.lanes = r.integer_or("lanes", 1, 1, 1024);
  l.bandwidth_per_lane = r.quantity<Bandwidth>("bandwidth_per_lane");
  l.latency = r.quantity<Duration>("latency", Range::kNonNegative);
  l.energy = r.quantity<EnergyPerBit>("energy", Range::kNonNegative);
  r.finish();
  return l;
}

models::SwitchParams read_switch(MapReader r) {
  models::SwitchParams s;
  s.radix = r.integer("radix", 2, kMaxRadix);
  s.port_bandwidth = r.quantity<Bandwidth>("port_bandwidth");
  s.latency = r.quantity<Duration>("latency", Range::kNonNegative);
  s.energy = r.quantity<EnergyPerBit>("energy", Range::kNonNegative);
  r.finish();
  return s;
}

models::NicParams read_nic(MapReader r) {
  models::NicParams n;
  n.bandwidth = r.quantity<Bandwidth>("bandwidth");
  n.latency = r.quantity<Duration>("latency", Range::kNonNegative);
  n.energy = r.quantity<EnergyPerBit>("energy", Range::kNonNegative);
  r.finish();
  return n;
}

std::vector<int64_t> read_dims(MapReader& r) {
  std::vector<int64_t> dims;
  for (const std::string& item : r.string_list("dims")) {
    try {
      size_t used = 0;
      const long long v = std::stoll(item, &used);
      if (used != item.size() || v < 1 || v > kMaxChips) throw std::invalid_argument(item);
      dims.push_back(v);
    } catch (const std::exception&) {
      r.error("dims", "expected whole numbers >= 1, got '" + item + "'");
    }
  }
  return dims;
}

// The fields a topology kind uses; the others are unknown keys for that kind.
void read_topology_fields(MapReader& r, models::TopologySpec& s) {
  if (s.kind == "torus2d" || s.kind == "torus3d") s.dims = read_dims(r);
  if (s.kind == "fat_tree") {
    s.tiers = r.integer_or("tiers", 2, 2, 3);
    s.oversubscription = r.number_or("oversubscription", 1.0, 1.0, 1024.0);
  }
  if (s.kind == "dragonfly") {
    s.routers_per_group = r.integer("routers_per_group", 1, kMaxRadix);
    s.endpoints_per_router = r.integer("endpoints_per_router", 1, kMaxRadix);
    s.global_links_per_router = r.integer("global_links_per_router", 1, kMaxRadix);
  }
  if (s.kind == "switch" || s.kind == "fat_tree" || s.kind == "dragonfly") {
    s.switch_params = read_switch(r.map("switch"));
  }
}

void remember(SystemConfig& sys, MapReader& r, const std::string& section) {
  sys.key_locations[section] = r.location();
  for (const char* key : {"size", "topology", "dims", "tiers", "oversubscription", "switch", "link",
                          "nic", "routers_per_group", "endpoints_per_router",
                          "global_links_per_router", "domains", "rail_optimised"}) {
    if (r.has(key)) sys.key_locations[section + "." + key] = r.location_of_key(key);
  }
}

std::vector<std::string> flat_kinds() {
  std::vector<std::string> kinds;
  for (const std::string& k : models::topology_registry().names()) {
    if (k != "hierarchical") kinds.push_back(k);
  }
  return kinds;
}

SystemConfig read_system_document(const YAML::Node& root, const std::string& file) {
  Diagnostics diagnostics;
  MapReader top(root, file, "", diagnostics);
  MapReader r = top.map("system");
  top.finish();
  SystemConfig sys;
  sys.file = file;
  sys.name = r.string("name");
  sys.description = r.string_or("description", "");
  MapReader net = r.map("network");
  r.finish();

  models::TopologySpec local;
  {
    MapReader l = net.map("local");
    local.endpoints = l.integer("size", 1, kMaxChips);
    local.kind = l.choice("topology", flat_kinds());
    local.link = read_link(l.map("link"));
    read_topology_fields(l, local);
    remember(sys, l, "local");
    l.finish();
  }
  std::optional<MapReader> so_reader = net.optional_map("scale_out");
  if (!so_reader) {
    sys.network = local;
  } else {
    MapReader& so = *so_reader;
    models::TopologySpec fabric;
    const int64_t domains = so.integer("domains", 1, kMaxChips);
    fabric.kind = so.choice("topology", {"fat_tree", "dragonfly", "switch", "full_mesh"});
    fabric.link = read_link(so.map("link"));
    fabric.nic = read_nic(so.map("nic"));
    read_topology_fields(so, fabric);
    const bool rails = so.boolean_or("rail_optimised", false);
    // Each level is bounded on its own above; their product is what the simulator would build
    // (a 10^9-chip system is refused here, before any topology is allocated).
    if (domains * local.endpoints > kMaxChips) {
      so.error("domains", "domains x local.size = " + std::to_string(domains) + " x " +
                              std::to_string(local.endpoints) + " = " +
                              std::to_string(domains * local.endpoints) + " chips, more than the " +
                              std::to_string(kMaxChips) +
                              " a system may have; reduce domains or local.size");
    }
    remember(sys, so, "scale_out");
    so.finish();
    models::TopologySpec h;
    h.kind = "hierarchical";
    h.domains = domains;
    h.endpoints = domains * local.endpoints;
    h.rail_optimised = rails;
    h.local = std::make_shared<models::TopologySpec>(local);
    h.scale_out = std::make_shared<models::TopologySpec>(fabric);
    sys.network = h;
  }
  net.finish();
  diagnostics.throw_if_any();
  build_network(sys);  // reports parameter sets the builders cannot realise
  return sys;
}

}  // namespace

SystemConfig parse_system(const std::string& path) {
  return read_system_document(load_yaml_file(path), path);
}

SystemConfig parse_system_string(const std::string& yaml, const std::string& display_name) {
  return read_system_document(load_yaml_string(yaml, display_name), display_name);
}

SystemConfig load_system(const std::string& name_or_path, const DataPaths& paths) {
  const std::string path = paths.resolve(name_or_path, "arch/systems");
  if (!std::filesystem::exists(path)) {
    std::string known;
    for (const std::string& n : paths.available("arch/systems")) {
      known += (known.empty() ? "" : ", ") + n;
    }
    throw InputError(SourceLocation{path, 0, 0}, "",
                     "no system '" + name_or_path +
                         "' (file not found); known systems: " + (known.empty() ? "none" : known));
  }
  return parse_system(path);
}

models::Topology build_network(const SystemConfig& system) {
  try {
    return models::build_topology(system.network);
  } catch (const InputError& e) {
    std::vector<Diagnostic> located;
    const bool hierarchical = system.network.kind == "hierarchical";
    for (const Diagnostic& d : e.diagnostics()) {
      Diagnostic l = d;
      // A hierarchical network's builder names its local / scale_out part itself.
      const std::string relative =
          hierarchical ? d.key_path : "local" + (d.key_path.empty() ? "" : "." + d.key_path);
      l.key_path = "system.network." + relative;
      if (l.where.file.empty()) {
        l.where = SourceLocation{system.file, 0, 0};
        // The nearest key written in the file: the path itself or a section above it.
        for (std::string key = relative; !key.empty();) {
          const auto it = system.key_locations.find(key);
          if (it != system.key_locations.end()) {
            l.where = it->second;
            break;
          }
          const size_t dot = key.rfind('.');
          key = dot == std::string::npos ? "" : key.substr(0, dot);
        }
      }
      located.push_back(l);
    }
    throw InputError(located);
  }
}

namespace {

std::string si(double value, const std::string& unit) { return format_si(value, unit, 6); }

void emit_link(YAML::Emitter& o, const models::LinkParams& l) {
  o << YAML::BeginMap << YAML::Key << "lanes" << YAML::Value << l.lanes;
  o << YAML::Key << "bandwidth_per_lane" << YAML::Value << si(l.bandwidth_per_lane.si(), "B/s");
  o << YAML::Key << "latency" << YAML::Value << si(l.latency.si(), "s");
  o << YAML::Key << "energy" << YAML::Value << si(l.energy.si(), "J/bit") << YAML::EndMap;
}

void emit_fields(YAML::Emitter& o, const models::TopologySpec& s) {
  o << YAML::Key << "topology" << YAML::Value << s.kind;
  if (!s.dims.empty()) o << YAML::Key << "dims" << YAML::Value << YAML::Flow << s.dims;
  if (s.kind == "fat_tree") {
    o << YAML::Key << "tiers" << YAML::Value << s.tiers;
    o << YAML::Key << "oversubscription" << YAML::Value << s.oversubscription;
  }
  if (s.kind == "dragonfly") {
    o << YAML::Key << "routers_per_group" << YAML::Value << s.routers_per_group;
    o << YAML::Key << "endpoints_per_router" << YAML::Value << s.endpoints_per_router;
    o << YAML::Key << "global_links_per_router" << YAML::Value << s.global_links_per_router;
  }
  o << YAML::Key << "link" << YAML::Value;
  emit_link(o, s.link);
  if (s.switch_params) {
    const models::SwitchParams& p = *s.switch_params;
    o << YAML::Key << "switch" << YAML::Value << YAML::BeginMap;
    o << YAML::Key << "radix" << YAML::Value << p.radix;
    o << YAML::Key << "port_bandwidth" << YAML::Value << si(p.port_bandwidth.si(), "B/s");
    o << YAML::Key << "latency" << YAML::Value << si(p.latency.si(), "s");
    o << YAML::Key << "energy" << YAML::Value << si(p.energy.si(), "J/bit") << YAML::EndMap;
  }
  if (s.nic) {
    o << YAML::Key << "nic" << YAML::Value << YAML::BeginMap;
    o << YAML::Key << "bandwidth" << YAML::Value << si(s.nic->bandwidth.si(), "B/s");
    o << YAML::Key << "latency" << YAML::Value << si(s.nic->latency.si(), "s");
    o << YAML::Key << "energy" << YAML::Value << si(s.nic->energy.si(), "J/bit") << YAML::EndMap;
  }
}

}  // namespace

std::string dump_system(const SystemConfig& system) {
  const models::TopologySpec& n = system.network;
  const bool hierarchical = n.kind == "hierarchical";
  const models::TopologySpec& local = hierarchical ? *n.local : n;
  YAML::Emitter o;
  o << YAML::BeginMap << YAML::Key << "system" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "name" << YAML::Value << system.name;
  o << YAML::Key << "description" << YAML::Value << system.description;
  o << YAML::Key << "network" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "local" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "size" << YAML::Value << local.endpoints;
  emit_fields(o, local);
  o << YAML::EndMap;
  if (hierarchical) {
    o << YAML::Key << "scale_out" << YAML::Value << YAML::BeginMap;
    o << YAML::Key << "domains" << YAML::Value << n.domains;
    o << YAML::Key << "rail_optimised" << YAML::Value << n.rail_optimised;
    emit_fields(o, *n.scale_out);
    o << YAML::EndMap;
  }
  o << YAML::EndMap << YAML::EndMap;
  const models::Topology t = build_network(system);
  o << YAML::Key << "derived" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "chips" << YAML::Value << t.endpoints();
  o << YAML::Key << "switches" << YAML::Value << t.switches();
  o << YAML::Key << "links" << YAML::Value << t.link_count();
  o << YAML::Key << "endpoint_transitive" << YAML::Value << t.endpoint_transitive();
  o << YAML::EndMap << YAML::EndMap;
  return std::string(o.c_str()) + "\n";
}

}  // namespace scoville::config
