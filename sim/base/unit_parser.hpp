// Parser for values with units, e.g. "4.8 TB/s", "1.98 GHz", "700 W", "3.9 pJ/bit", "50 MiB".
// Grammar (../shared/FORMATS.md §4): <number>[ ]<prefix?><unit>
//   - SI prefixes are decimal: f p n u µ m k M G T P E.
//   - IEC prefixes Ki Mi Gi Ti Pi Ei only with bytes (B) or bits (b).
//   - Units: B, b (bit), B/s, b/s, s, Hz, W, J, FLOP, FLOP/s, J/bit.
//   - Each call expects one dimension; a value of another dimension is an error.
#pragma once

#include <stdexcept>
#include <string>

#include "sim/base/units.hpp"

namespace scoville {

// Thrown for a malformed value; what() says what was found and what was expected, without
// location (the caller adds file, line and key).
class UnitParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses `text` as a quantity of `expected` dimension and returns its value in SI base units.
double parse_quantity(const std::string& text, Dimension expected);

template <class Q>
Q parse(const std::string& text) {
  return Q(parse_quantity(text, DimensionOf<Q>::value));
}

// Formats an SI value with a readable decimal prefix, e.g. format_si(4.8e12, "B/s") = "4.8 TB/s".
std::string format_si(double si_value, const std::string& unit, int significant_digits = 4);

// A whole number >= 0 given for `flag` (a command-line flag or key, named in the message);
// UsageError otherwise.
long long parse_count(const std::string& flag, const std::string& value);

}  // namespace scoville
