// arch/systems/*.yaml -> SystemConfig. This issue reads the network part of a system file:
//   system: {name, description, network: {local: {...}, scale_out: {...}}}
// (schema in docs/network.md). Later issues add chips, host and software to the same file.
// Parse with MapReader (all problems of a file together), then build the topology once so that
// a parameter set the builders cannot realise is reported against the file too.
#pragma once

#include <map>
#include <string>

#include "models/network/topology.hpp"
#include "models/network/topology_builders.hpp"
#include "sim/base/error.hpp"
#include "sim/config/data_paths.hpp"

namespace scoville::config {

struct SystemConfig {
  std::string name;
  std::string description;
  models::TopologySpec network;  // hierarchical when the file has a scale_out section
  std::string file;
  // Where the keys under system.network were written ("local", "local.dims", "scale_out", ...),
  // so that a builder's complaint points at a line.
  std::map<std::string, SourceLocation> key_locations;
};

SystemConfig parse_system(const std::string& path);
SystemConfig parse_system_string(const std::string& yaml, const std::string& display_name);
// By file path or by name (arch/systems/<name>.yaml).
SystemConfig load_system(const std::string& name_or_path, const DataPaths& paths);

// Builds the system's network; a builder's complaint becomes an InputError located at the
// file's network section.
models::Topology build_network(const SystemConfig& system);

// The resolved system as YAML (canonical units), for `scoville config dump`.
std::string dump_system(const SystemConfig& system);

}  // namespace scoville::config
