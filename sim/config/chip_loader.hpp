// arch/chips/*.yaml and arch/energy/*.yaml -> models::ChipParams.
// Parse (MapReader, every field with its unit and range) then resolve (the energy table the chip
// names, cross-field checks). All problems of a file are reported together.
#pragma once

#include <string>

#include "models/chip/chip_params.hpp"
#include "sim/config/data_paths.hpp"

namespace scoville::config {

// What a chip file says, before its energy table reference is resolved.
struct ChipSpec {
  models::ChipParams params;  // everything except params.energy
  std::string energy_table;   // name of arch/energy/<name>.yaml
  std::string file;
};

ChipSpec parse_chip(const std::string& path);
ChipSpec parse_chip_string(const std::string& yaml, const std::string& display_name);
models::EnergyTable parse_energy(const std::string& path);
models::EnergyTable parse_energy_string(const std::string& yaml, const std::string& display_name);

// Loads a chip by file path or by name (arch/chips/<name>.yaml), with its energy table.
models::ChipParams load_chip(const std::string& name_or_path, const DataPaths& paths);

}  // namespace scoville::config
