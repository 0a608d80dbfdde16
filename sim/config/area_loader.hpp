// arch/area/*.yaml -> the inputs of the area and cost models (models/area), for one chip:
// its chip file (with --set overrides), its silicon profile (arch/area/chips.yaml), the process
// nodes of its dies, the building blocks' unit costs and the cost assumptions. Parse then
// resolve; every problem of a file is reported together with file, line and key.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "models/area/area_params.hpp"
#include "models/chip/chip_params.hpp"
#include "sim/config/data_paths.hpp"

namespace scoville::config {

struct AreaInputs {
  models::ChipParams chip;
  std::string chip_file;
  models::ChipAreaProfile profile;
  models::AreaComponents components;
  models::CostParams cost;
  std::map<std::string, models::ProcessNode> nodes;  // the nodes the chip's dies use
};

// One "KEY=VALUE" override. KEY area.X sets the chip's profile (arch/area/chips.yaml keys),
// cost.X the cost assumptions (arch/area/cost.yaml), anything else the chip file's chip
// section (tiles.count, shared_sram.capacity, hbm.stacks, ...).
using Override = std::pair<std::string, std::string>;

AreaInputs load_area_inputs(const std::string& chip_name_or_path,
                            const std::vector<Override>& overrides, const DataPaths& paths);

// The readers, exposed for tests of their located errors.
models::ProcessNode parse_process_node_string(const std::string& yaml,
                                              const std::string& display_name);
models::AreaComponents parse_area_components_string(const std::string& yaml,
                                                    const std::string& display_name);
models::CostParams parse_cost_string(const std::string& yaml, const std::string& display_name);

}  // namespace scoville::config
