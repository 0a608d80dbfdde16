#include "sim/sweep/point_label.hpp"

namespace scoville::sweep {

std::string point_label(const SweepPoint& point) {
  std::string label;
  for (const auto& [key, value] : point.assignments) {
    const size_t dot = key.find('.');
    const std::string shown = dot == std::string::npos ? key : key.substr(dot + 1);
    label += (label.empty() ? "" : ", ") + shown + "=" + value;
  }
  return label.empty() ? point.id : label;
}

}  // namespace scoville::sweep
