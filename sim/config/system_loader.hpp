// arch/systems/*.yaml -> SystemConfig:
//   system: {name, description, aliases, chip, chips, software, host: {...},
//            network: {local: {...}, scale_out: {...}, collectives: {...}}}
// (schema in docs/systems.md; the network part in docs/network.md). `chip`, `chips`, `host` and
// `software` are optional so that a network-only file still serves `scoville net`; the system
// engine requires `chip` (require_chip()).
// Parse with MapReader (all problems of a file together), then build the topology once so that
// a parameter set the builders cannot realise is reported against the file too.
#pragma once

#include <map>
#include <optional>

#include <string>
#include <vector>

#include "models/host/host_params.hpp"
#include "models/network/topology.hpp"
#include "models/network/topology_builders.hpp"
#include "models/power/system_power.hpp"
#include "sim/base/error.hpp"
#include "sim/config/data_paths.hpp"

namespace scoville::config {

struct SystemConfig {
  std::string name;
  std::string description;
  // Names under which published measurements cite this system ("H100 SXM", "MI300X"): `scoville
  // validate` maps a row's system to the file whose alias it contains (docs/validation.md).
  std::vector<std::string> aliases;
  models::TopologySpec network;  // hierarchical when the file has a scale_out section
  // network.collectives: the collective library's cost per call (docs/network.md); absent: the
  // network's wire time alone (the topology built by build_network carries it).
  std::optional<models::CollectiveLibraryParams> collectives;
  // The chip every endpoint is: as written, and resolved to a file (a name is looked up beside
  // the system file in ../chips/, then in the data root's arch/chips/). Empty when not given.
  std::string chip;
  std::string chip_file;
  int64_t chips = 0;  // = the network's endpoints (checked)
  std::optional<models::HostParams> host;
  // All-in power (hosts, NICs, switches, memory pools, PUE: docs/power.md); absent: none given.
  std::optional<models::SystemPowerParams> power;
  std::string software;  // arch/software profile (name as written; empty: none)
  std::string software_file;
  std::string file;
  // Where the keys under system.network were written ("local", "local.dims", "scale_out", ...),
  // so that a builder's complaint points at a line.
  std::map<std::string, SourceLocation> key_locations;
};

SystemConfig parse_system(const std::string& path);
SystemConfig parse_system_string(const std::string& yaml, const std::string& display_name);
// By file path or by name (arch/systems/<name>.yaml).
SystemConfig load_system(const std::string& name_or_path, const DataPaths& paths);

// The chip file; throws InputError at the file's `system` section when the file names none.
const std::string& require_chip(const SystemConfig& system);

// Builds the system's network; a builder's complaint becomes an InputError located at the
// file's network section.
models::Topology build_network(const SystemConfig& system);

// The resolved system as YAML (canonical units), for `scoville config dump`.
std::string dump_system(const SystemConfig& system);

}  // namespace scoville::config
