#include "sim/output/svg_axis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace scoville::output {

namespace {

bool takes_si_prefix(const std::string& unit) {
  for (const char* u : {"s", "J", "W", "Hz", "B", "B/s", "FLOP", "FLOP/s"}) {
    if (unit == u) return true;
  }
  return false;
}

// The prefix for a power of ten that is a multiple of three, from nano to peta.
const char* prefix(int exponent) {
  switch (exponent) {
    case -9:
      return "n";
    case -6:
      return "\xC2\xB5";  // µ
    case -3:
      return "m";
    case 3:
      return "k";
    case 6:
      return "M";
    case 9:
      return "G";
    case 12:
      return "T";
    case 15:
      return "P";
    default:
      return "";
  }
}

// The multiple of three at or below log10(magnitude), within nano..peta.
int engineering_exponent(double magnitude) {
  if (magnitude <= 0) return 0;
  const int e = static_cast<int>(std::floor(std::log10(magnitude) / 3.0 + 1e-9)) * 3;
  return std::clamp(e, -9, 15);
}

// Decimals that show a step of `step` exactly (steps are 1, 2 or 5 x 10^k).
int decimals_for(double step) {
  if (step <= 0) return 0;
  return std::max(0, static_cast<int>(std::ceil(-std::log10(step) - 1e-9)));
}

}  // namespace

double nice_step(double low, double high, int max_ticks) {
  const double span = high - low;
  if (!(span > 0) || max_ticks < 2) return 1.0;
  double magnitude = std::pow(10.0, std::floor(std::log10(span / (max_ticks - 1))));
  for (int guard = 0; guard < 8; ++guard, magnitude *= 10) {
    for (double m : {1.0, 2.0, 5.0}) {
      const double step = m * magnitude;
      const double first = std::floor(low / step + 1e-9), last = std::ceil(high / step - 1e-9);
      if (last - first + 1 <= max_ticks) return step;
    }
  }
  return span;
}

std::string grouped_number(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, std::fabs(value));
  std::string digits = buffer;
  const size_t point = digits.find('.');
  std::string whole = digits.substr(0, point),
              rest = point == std::string::npos ? "" : digits.substr(point);
  std::string grouped;
  for (size_t i = 0; i < whole.size(); ++i) {
    if (i > 0 && (whole.size() - i) % 3 == 0) grouped += ',';
    grouped += whole[i];
  }
  const bool zero = std::all_of(buffer, buffer + std::char_traits<char>::length(buffer),
                                [](char c) { return c == '0' || c == '.'; });
  return (value < 0 && !zero ? "-" : "") + grouped + rest;
}

AxisScale make_axis_scale(double low, double high, const std::string& unit, int max_ticks) {
  if (!std::isfinite(low) || !std::isfinite(high)) low = 0, high = 1;
  if (high < low) std::swap(low, high);
  if (high == low) {
    const double pad = low == 0 ? 1.0 : std::fabs(low) * 0.5;
    low -= low == 0 ? 0 : pad;
    high += pad;
  }
  AxisScale scale;
  const double step = nice_step(low, high, std::max(2, max_ticks));
  const double first = std::floor(low / step + 1e-9), last = std::ceil(high / step - 1e-9);
  for (double k = first; k <= last + 0.5; k += 1) {
    const double v = k * step;
    scale.ticks.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  }
  scale.low = scale.ticks.front();
  scale.high = scale.ticks.back();
  const double magnitude = std::max(std::fabs(scale.low), std::fabs(scale.high));
  scale.unit = unit;
  double factor = 1;
  std::string suffix;
  if (takes_si_prefix(unit)) {
    int e = engineering_exponent(magnitude);
    if (unit == "s") e = std::min(e, 0);  // 1,200 s reads better than 1.2 ks
    factor = std::pow(10.0, e);
    scale.unit = prefix(e) + unit;
  } else if (magnitude >= 1e4) {
    const int e = engineering_exponent(magnitude);
    factor = std::pow(10.0, e);
    suffix = prefix(e);
  }
  const int decimals = decimals_for(step / factor);
  for (double v : scale.ticks) {
    const double shown = v / factor;
    scale.labels.push_back(v == 0 ? "0" : grouped_number(shown, decimals) + suffix);
  }
  return scale;
}

std::string axis_title(const std::string& title, const std::string& unit) {
  if (unit.empty()) return title + " (category)";
  if (unit == "1" || unit == "count") return title + " (count)";
  if (unit == "ratio") return title + " (ratio)";
  return title + " [" + unit + "]";
}

}  // namespace scoville::output
