// Reads the `power:` section of a system file (docs/power.md) into SystemPowerParams, with
// located errors. The system loader calls read_system_power on its `power` map; files holding
// only the section (tests, what-if studies) use parse_system_power_*.
#pragma once

#include <string>

#include "models/power/system_power.hpp"
#include "sim/base/yaml_reader.hpp"

namespace scoville::config {

// Reads an already-opened `power:` map; errors go to the reader's diagnostics.
models::SystemPowerParams read_system_power(MapReader r);

// A document whose top level holds `power:`; throws InputError with every problem found.
models::SystemPowerParams parse_system_power_file(const std::string& path);
models::SystemPowerParams parse_system_power_string(const std::string& yaml,
                                                    const std::string& display_name);

}  // namespace scoville::config
