// Reads the optional `power_management:` section of a chip file (docs/power.md) into
// PowerManagementParams, with located errors collected into the chip file's diagnostics.
#pragma once

#include "models/power/power_management_params.hpp"
#include "sim/base/yaml_reader.hpp"

namespace scoville::config {

// `tdp` is the cap's default; `tile_clock` must be the highest point's frequency (the energy
// table and static power are quoted there).
models::PowerManagementParams read_power_management(MapReader r, Diagnostics& diagnostics,
                                                    Power tdp, Frequency tile_clock);

}  // namespace scoville::config
