// A whole text field read as one finite number: what the CSV readers of measured rows accept.
#pragma once

#include <cmath>
#include <exception>
#include <optional>
#include <string>

namespace scoville {

// `text` as a finite double when all of it is one number (std::stod's syntax), else nullopt:
// trailing characters, an empty field, infinities, NaN and out-of-range values are refused.
inline std::optional<double> finite_number(const std::string& text) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace scoville
