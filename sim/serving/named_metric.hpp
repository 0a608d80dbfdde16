// A metric as every writer sees it: its name, its value and its unit. The unit is declared where
// the value is produced, so that no JSON, CSV or HDF5 writer guesses it from the name
// (docs/results-format.md).
#pragma once

#include <string>

namespace scoville::serving {

struct NamedMetric {
  std::string name;
  double value = 0.0;
  // "s", "ms", "J", "W", "Hz", "1/s" (tokens or requests per second), "1" (a count or a share),
  // or a compound one where the value is per kW, per MW or in money ("1/(s*kW)", "USD/Mtok").
  std::string unit;

  bool operator==(const NamedMetric& o) const {
    return name == o.name && value == o.value && unit == o.unit;
  }
};

}  // namespace scoville::serving
