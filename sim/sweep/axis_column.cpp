#include "sim/sweep/axis_column.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>

#include "sim/base/unit_parser.hpp"
#include "sim/base/units.hpp"

namespace scoville::sweep {
namespace {

std::optional<int64_t> plain_integer(const std::string& text) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  if (r.ec != std::errc() || r.ptr != end) return std::nullopt;
  return v;
}

std::optional<double> plain_number(const std::string& text) {
  double v = 0;
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  if (r.ec != std::errc() || r.ptr != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

// The SI unit each dimension's values are stored in (docs/results-format.md).
constexpr std::array<std::pair<Dimension, const char*>, 10> kSiUnits = {{
    {Dimension::kBytes, "B"},
    {Dimension::kBandwidth, "B/s"},
    {Dimension::kDuration, "s"},
    {Dimension::kFrequency, "Hz"},
    {Dimension::kEnergy, "J"},
    {Dimension::kPower, "W"},
    {Dimension::kFlops, "FLOP"},
    {Dimension::kFlopRate, "FLOP/s"},
    {Dimension::kEnergyPerBit, "J/bit"},
    {Dimension::kVoltage, "V"},
}};

// Every value a quantity of the same dimension: their SI values.
std::optional<std::pair<std::vector<double>, const char*>> quantities(
    const std::vector<std::string>& values) {
  for (const auto& [dimension, unit] : kSiUnits) {
    std::vector<double> si;
    for (const std::string& v : values) {
      try {
        si.push_back(parse_quantity(v, dimension));
      } catch (const UnitParseError&) {
        break;
      }
    }
    if (si.size() == values.size()) return std::make_pair(si, unit);
  }
  return std::nullopt;
}

}  // namespace

output::Column axis_column(const std::string& key, const std::vector<std::string>& values) {
  if (values.empty()) return {key, "", std::vector<std::string>{}};
  std::vector<int64_t> integers;
  for (const std::string& v : values) {
    if (const auto i = plain_integer(v)) integers.push_back(*i);
  }
  if (integers.size() == values.size()) return {key, "1", integers};
  std::vector<double> numbers;
  for (const std::string& v : values) {
    if (const auto n = plain_number(v)) numbers.push_back(*n);
  }
  if (numbers.size() == values.size()) return {key, "1", numbers};
  if (const auto q = quantities(values)) return {key, q->second, q->first};
  return {key, "", values};
}

}  // namespace scoville::sweep
