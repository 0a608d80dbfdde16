// A system file with one key changed (`scoville ablate --vary system.a.b=V`, sweeps over a
// system's fields): the file read as YAML, the key set, and the result parsed as if it were the
// file.
#pragma once

#include <string>

#include "sim/config/system_loader.hpp"

namespace scoville::config {

// The system file with `dotted` (system.a.b.c) set to `value`, parsed as if it were the file.
// system.local.X and system.scale_out.X are read as system.network.local.X (...scale_out.X).
// A value starting with [ or { is parsed as YAML. InputError when a section on the path is absent.
SystemConfig system_with(const std::string& path, const std::string& dotted,
                         const std::string& value);

}  // namespace scoville::config
