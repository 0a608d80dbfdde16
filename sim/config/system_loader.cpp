#include "sim/config/system_loader.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <memory>

#include "sim/base/unit_parser.hpp"
#include "sim/base/yaml_reader.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/config/system_power_loader.hpp"

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

// A file a system names (chip, software profile): a path as given (or beside the system file), a
// name in ../<folder>/ beside the system file, then in the data root's arch/<folder>/. Empty when
// none exists.
std::string resolve_named_file(const std::string& value, const std::string& system_file,
                               const std::string& folder) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(system_file).parent_path();
  const DataPaths paths = DataPaths::from_environment();
  const std::string resolved = paths.resolve(value, "arch/" + folder);
  if (resolved == value) {  // a path
    if (fs::exists(value)) return value;
    if (fs::path(value).is_relative() && fs::exists(dir / value)) return (dir / value).string();
    return "";
  }
  const fs::path sibling = dir / ".." / folder / (value + ".yaml");
  if (!dir.empty() && fs::exists(sibling)) return sibling.lexically_normal().string();
  return fs::exists(resolved) ? resolved : "";
}

std::string known_names(const std::string& folder) {
  std::string known;
  for (const std::string& n : DataPaths::from_environment().available("arch/" + folder)) {
    known += (known.empty() ? "" : ", ") + n;
  }
  return known.empty() ? "none" : known;
}

models::HostParams read_host(MapReader r) {
  models::HostParams h;
  {
    MapReader link = r.map("link");
    h.link_bandwidth = link.quantity<Bandwidth>("bandwidth");
    h.link_latency = link.quantity<Duration>("latency", Range::kNonNegative);
    h.link_energy = link.quantity<EnergyPerBit>("energy", Range::kNonNegative);
    link.finish();
  }
  {
    MapReader memory = r.map("memory");
    h.memory_capacity = memory.quantity<Bytes>("capacity");
    h.memory_bandwidth = memory.quantity<Bandwidth>("bandwidth");
    memory.finish();
  }
  h.chips_per_host = r.integer("chips_per_host", 1, kMaxChips);
  r.finish();
  return h;
}

// {latency, efficiency}: NVLS, the all-pairs all-reduce and the custom all-reduce kernels.
models::CallCostParams read_latency_and_efficiency(MapReader r) {
  models::CallCostParams p;
  p.latency = r.quantity<Duration>("latency", Range::kNonNegative);
  p.efficiency = r.number("efficiency", 1e-3, 1.0);
  r.finish();
  return p;
}

// network.collectives (docs/network.md, "Collective latency"). Protocols are named by their NCCL
// names; each needs its per-step handshake and wire efficiency.
models::CollectiveLibraryParams read_collectives(MapReader r) {
  models::CollectiveLibraryParams c;
  c.launch = r.quantity<Duration>("launch", Range::kNonNegative);
  {
    MapReader protocols = r.map("protocols");
    for (const std::string& name : protocols.keys()) {
      if (name != "LL" && name != "LL128" && name != "Simple") {
        protocols.error(name, "unknown protocol '" + name + "'; known: LL, LL128, Simple");
        continue;
      }
      MapReader p = protocols.map(name);
      models::ProtocolParams params;
      params.name = name;
      params.per_step = p.quantity<Duration>("per_step", Range::kNonNegative);
      params.efficiency = p.number("efficiency", 1e-3, 1.0);
      p.finish();
      c.protocols.push_back(params);
    }
    protocols.finish();
    if (c.protocols.empty())
      r.error("protocols", "needs at least one protocol (LL, LL128, Simple)");
  }
  {
    MapReader a2a = r.map("all_to_all");
    c.all_to_all_latency = a2a.quantity<Duration>("latency", Range::kNonNegative);
    c.per_peer = a2a.quantity<Duration>("per_peer", Range::kNonNegative);
    a2a.finish();
  }
  if (auto nvls = r.optional_map("nvls")) {
    c.nvls = read_latency_and_efficiency(*nvls);
  }
  if (auto all_pairs = r.optional_map("all_pairs")) {
    c.all_pairs = read_latency_and_efficiency(*all_pairs);
  }
  if (auto custom = r.optional_map("custom_all_reduce")) {
    c.custom_all_reduce = read_latency_and_efficiency(*custom);
  }
  r.finish();
  return c;
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
  if (r.has("aliases")) sys.aliases = r.string_list("aliases");
  if (r.has("chip")) {
    sys.chip = r.string("chip");
    sys.chip_file = resolve_named_file(sys.chip, file, "chips");
    if (sys.chip_file.empty()) {
      r.error("chip",
              "no chip '" + sys.chip + "' (file not found); known chips: " + known_names("chips"));
    }
  }
  const bool has_chips = r.has("chips");
  const SourceLocation chips_at = has_chips ? r.location_of_key("chips") : r.location();
  sys.chips = r.integer_or("chips", 0, 1, kMaxChips);
  if (r.has("software")) {
    sys.software = r.string("software");
    sys.software_file = resolve_named_file(sys.software, file, "software");
    if (sys.software_file.empty()) {
      r.error("software", "no software profile '" + sys.software +
                              "' (file not found); known profiles: " + known_names("software"));
    }
  }
  if (auto host = r.optional_map("host")) sys.host = read_host(*host);
  if (auto power = r.optional_map("power")) sys.power = read_system_power(*power);
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
  if (auto collectives = net.optional_map("collectives")) {
    sys.collectives = read_collectives(*collectives);
  }
  net.finish();
  diagnostics.throw_if_any();
  const models::Topology topology = build_network(sys);  // reports unrealisable parameter sets
  if (!has_chips) {
    sys.chips = topology.endpoints();
  } else if (sys.chips != topology.endpoints()) {
    throw InputError(chips_at, "system.chips",
                     "chips: " + std::to_string(sys.chips) + " but the network connects " +
                         std::to_string(topology.endpoints()) +
                         " endpoints (local size x scale_out domains); they must be equal");
  }
  // The files the system names must be valid too (their errors name their own files).
  if (!sys.chip_file.empty()) parse_chip(sys.chip_file);
  if (!sys.software_file.empty()) parse_software(sys.software_file);
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
  require_known(name_or_path, path, "arch/systems", paths, "system");
  return parse_system(path);
}

const std::string& require_chip(const SystemConfig& system) {
  if (system.chip_file.empty()) {
    throw InputError(SourceLocation{system.file, 0, 0}, "system.chip",
                     "this system names no chip; add 'chip: NAME' (arch/chips) to simulate "
                     "iterations on it");
  }
  return system.chip_file;
}

models::Topology build_network(const SystemConfig& system) {
  try {
    models::Topology topology = models::build_topology(system.network);
    topology.set_collective_library(system.collectives);
    return topology;
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
  if (!system.aliases.empty()) {
    o << YAML::Key << "aliases" << YAML::Value << YAML::Flow << system.aliases;
  }
  if (!system.chip.empty()) o << YAML::Key << "chip" << YAML::Value << system.chip;
  o << YAML::Key << "chips" << YAML::Value << system.chips;
  if (!system.software.empty()) o << YAML::Key << "software" << YAML::Value << system.software;
  if (system.host) {
    const models::HostParams& h = *system.host;
    o << YAML::Key << "host" << YAML::Value << YAML::BeginMap;
    o << YAML::Key << "link" << YAML::Value << YAML::BeginMap;
    o << YAML::Key << "bandwidth" << YAML::Value << si(h.link_bandwidth.si(), "B/s");
    o << YAML::Key << "latency" << YAML::Value << si(h.link_latency.si(), "s");
    o << YAML::Key << "energy" << YAML::Value << si(h.link_energy.si(), "J/bit") << YAML::EndMap;
    o << YAML::Key << "memory" << YAML::Value << YAML::BeginMap;
    o << YAML::Key << "capacity" << YAML::Value << si(h.memory_capacity.si(), "B");
    o << YAML::Key << "bandwidth" << YAML::Value << si(h.memory_bandwidth.si(), "B/s");
    o << YAML::EndMap;
    o << YAML::Key << "chips_per_host" << YAML::Value << h.chips_per_host << YAML::EndMap;
  }
  if (system.power) {
    const models::SystemPowerParams& p = *system.power;
    o << YAML::Key << "power" << YAML::Value << YAML::BeginMap;
    const auto units = [&](const char* key, const models::UnitPower& u) {
      o << YAML::Key << key << YAML::Value << YAML::BeginMap;
      o << YAML::Key << "count" << YAML::Value << u.count;
      o << YAML::Key << "power" << YAML::Value << si(u.power.si(), "W") << YAML::EndMap;
    };
    units("hosts", p.hosts);
    units("nics", p.nics);
    units("switches", p.switches);
    units("memory_pools", p.memory_pools);
    o << YAML::Key << "other_it" << YAML::Value << p.other_it;
    o << YAML::Key << "pue" << YAML::Value << p.pue << YAML::EndMap;
  }
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
  if (system.collectives) {
    const models::CollectiveLibraryParams& c = *system.collectives;
    o << YAML::Key << "collectives" << YAML::Value << YAML::BeginMap;
    o << YAML::Key << "launch" << YAML::Value << si(c.launch.si(), "s");
    o << YAML::Key << "protocols" << YAML::Value << YAML::BeginMap;
    for (const models::ProtocolParams& p : c.protocols) {
      o << YAML::Key << p.name << YAML::Value << YAML::BeginMap;
      o << YAML::Key << "per_step" << YAML::Value << si(p.per_step.si(), "s");
      o << YAML::Key << "efficiency" << YAML::Value << p.efficiency << YAML::EndMap;
    }
    o << YAML::EndMap;
    o << YAML::Key << "all_to_all" << YAML::Value << YAML::BeginMap;
    o << YAML::Key << "latency" << YAML::Value << si(c.all_to_all_latency.si(), "s");
    o << YAML::Key << "per_peer" << YAML::Value << si(c.per_peer.si(), "s") << YAML::EndMap;
    if (c.nvls) {
      o << YAML::Key << "nvls" << YAML::Value << YAML::BeginMap;
      o << YAML::Key << "latency" << YAML::Value << si(c.nvls->latency.si(), "s");
      o << YAML::Key << "efficiency" << YAML::Value << c.nvls->efficiency << YAML::EndMap;
    }
    if (c.all_pairs) {
      o << YAML::Key << "all_pairs" << YAML::Value << YAML::BeginMap;
      o << YAML::Key << "latency" << YAML::Value << si(c.all_pairs->latency.si(), "s");
      o << YAML::Key << "efficiency" << YAML::Value << c.all_pairs->efficiency << YAML::EndMap;
    }
    if (c.custom_all_reduce) {
      o << YAML::Key << "custom_all_reduce" << YAML::Value << YAML::BeginMap;
      o << YAML::Key << "latency" << YAML::Value << si(c.custom_all_reduce->latency.si(), "s");
      o << YAML::Key << "efficiency" << YAML::Value << c.custom_all_reduce->efficiency
        << YAML::EndMap;
    }
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
