// Reading and writing pieces shared by the calibration files (per-system overlays,
// calibration_overlay.hpp; per-stack calibrations, stack_calibration.hpp): lists of row ids, and
// numbers and text written so that they read back the same.
#pragma once

#include <string>
#include <vector>

#include "sim/base/units.hpp"
#include "sim/base/yaml_reader.hpp"

namespace scoville::config::overlay_text {

// A YAML list of ids (row ids, system names) under `key`, empty when absent; an error at `key`
// naming `example` when it is not a list of scalars.
std::vector<std::string> id_list(MapReader& r, const std::string& key,
                                 const std::string& example = "[4, 13]");
// InputError at (path, key) unless a calibration file's `fidelity:` (`found`) is the one its file
// name says (`expected`).
void require_fidelity(const std::string& path, const std::string& key, const std::string& expected,
                      const std::string& found);
// Four significant digits.
std::string g(double v);
// A duration in the unit that reads best ("0 s", "12.5 us", "2.6 ms"), reading back the same.
std::string duration_text(Duration t);
// A double-quoted YAML scalar; control characters escaped.
std::string quoted(const std::string& s);
// ["a", "b"]
std::string list(const std::vector<std::string>& ids);

}  // namespace scoville::config::overlay_text
