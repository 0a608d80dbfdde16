#include "sim/base/unit_parser.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

#include "sim/base/error.hpp"

namespace scoville {

std::string dimension_name(Dimension d) {
  switch (d) {
    case Dimension::kBytes:
      return "a size in bytes (e.g. \"50 MiB\", \"141 GB\")";
    case Dimension::kBandwidth:
      return "a bandwidth (e.g. \"4.8 TB/s\", \"400 Gb/s\")";
    case Dimension::kDuration:
      return "a duration (e.g. \"120 ns\", \"2 us\")";
    case Dimension::kFrequency:
      return "a frequency (e.g. \"1.98 GHz\")";
    case Dimension::kEnergy:
      return "an energy (e.g. \"0.4 pJ\")";
    case Dimension::kPower:
      return "a power (e.g. \"700 W\")";
    case Dimension::kFlops:
      return "an operation count (e.g. \"2 TFLOP\")";
    case Dimension::kFlopRate:
      return "a compute rate (e.g. \"989 TFLOP/s\")";
    case Dimension::kEnergyPerBit:
      return "an energy per bit (e.g. \"3.9 pJ/bit\")";
    case Dimension::kVoltage:
      return "a voltage (e.g. \"0.75 V\")";
  }
  return "an unknown dimension";
}

namespace {

struct BaseUnit {
  const char* symbol;
  Dimension dimension;
  double scale;    // SI value of one unit, e.g. a bit is 1/8 byte
  bool binary_ok;  // IEC prefixes (Ki, Mi, ...) allowed
};

// Longest symbols first, so that "B/s" is tried before "s" and "J/bit" before "b".
constexpr std::array<BaseUnit, 12> kBaseUnits = {{
    {"FLOP/s", Dimension::kFlopRate, 1.0, false},
    {"J/bit", Dimension::kEnergyPerBit, 1.0, false},
    {"FLOP", Dimension::kFlops, 1.0, false},
    {"B/s", Dimension::kBandwidth, 1.0, true},
    {"b/s", Dimension::kBandwidth, 0.125, true},
    {"Hz", Dimension::kFrequency, 1.0, false},
    {"B", Dimension::kBytes, 1.0, true},
    {"b", Dimension::kBytes, 0.125, true},
    {"s", Dimension::kDuration, 1.0, false},
    {"W", Dimension::kPower, 1.0, false},
    {"J", Dimension::kEnergy, 1.0, false},
    {"V", Dimension::kVoltage, 1.0, false},
}};

constexpr std::array<std::pair<const char*, double>, 12> kDecimalPrefixes = {{
    {"f", 1e-15},
    {"p", 1e-12},
    {"n", 1e-9},
    {"u", 1e-6},
    {"\xC2\xB5", 1e-6},  // µ (U+00B5, UTF-8)
    {"m", 1e-3},
    {"k", 1e3},
    {"M", 1e6},
    {"G", 1e9},
    {"T", 1e12},
    {"P", 1e15},
    {"E", 1e18},
}};

constexpr std::array<std::pair<const char*, double>, 6> kBinaryPrefixes = {{
    {"Ki", 1024.0},
    {"Mi", 1048576.0},
    {"Gi", 1073741824.0},
    {"Ti", 1099511627776.0},
    {"Pi", 1125899906842624.0},
    {"Ei", 1152921504606846976.0},
}};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

// Finds the multiplier of a prefix, or returns false.
bool prefix_scale(const std::string& prefix, bool binary_ok, double* scale) {
  if (prefix.empty()) {
    *scale = 1.0;
    return true;
  }
  for (const auto& [symbol, value] : kDecimalPrefixes) {
    if (prefix == symbol) {
      *scale = value;
      return true;
    }
  }
  if (binary_ok) {
    for (const auto& [symbol, value] : kBinaryPrefixes) {
      if (prefix == symbol) {
        *scale = value;
        return true;
      }
    }
  }
  return false;
}

}  // namespace

double parse_quantity(const std::string& text, Dimension expected) {
  const std::string expect = "expected " + dimension_name(expected);
  size_t begin = 0;
  while (begin < text.size() && text[begin] == ' ') ++begin;
  size_t end = text.size();
  while (end > begin && text[end - 1] == ' ') --end;
  const std::string trimmed = text.substr(begin, end - begin);
  if (trimmed.empty()) throw UnitParseError("empty value; " + expect);

  // The number: a plain decimal or scientific literal. from_chars also accepts "inf" and
  // "nan", which are not physical values, so the first character must be a digit, sign or dot.
  const char first = trimmed[0];
  if (!(std::isdigit(static_cast<unsigned char>(first)) || first == '-' || first == '+' ||
        first == '.')) {
    throw UnitParseError("value " + quoted(text) + " does not start with a number; " + expect);
  }
  // from_chars rejects a leading '+'; skip one, but not a second sign ("+-1 W").
  const bool plus = first == '+' && trimmed.size() > 1 && trimmed[1] != '-' && trimmed[1] != '+';
  const char* num_begin = trimmed.data() + (plus ? 1 : 0);
  double number = 0.0;
  const auto [num_end, ec] = std::from_chars(num_begin, trimmed.data() + trimmed.size(), number);
  if (ec != std::errc() || !std::isfinite(number)) {
    throw UnitParseError("value " + quoted(text) + " does not start with a finite number; " +
                         expect);
  }
  std::string unit(num_end, trimmed.data() + trimmed.size());
  size_t unit_begin = 0;
  while (unit_begin < unit.size() && unit[unit_begin] == ' ') ++unit_begin;
  unit = unit.substr(unit_begin);
  if (unit.empty()) {
    throw UnitParseError("value " + quoted(text) + " has no unit; " + expect);
  }

  for (const BaseUnit& base : kBaseUnits) {
    if (!ends_with(unit, base.symbol)) continue;
    const std::string prefix = unit.substr(0, unit.size() - std::string(base.symbol).size());
    double scale = 0.0;
    if (!prefix_scale(prefix, base.binary_ok, &scale)) continue;
    if (base.dimension != expected) {
      throw UnitParseError("value " + quoted(text) + " is " + dimension_name(base.dimension) +
                           ", but " + expect);
    }
    const double value = number * scale * base.scale;
    // "1e300 EB/s" is a finite number whose prefix overflows: refused rather than turned into inf.
    if (!std::isfinite(value)) {
      throw UnitParseError("value " + quoted(text) + " is too large; " + expect);
    }
    return value;
  }
  throw UnitParseError("unit " + quoted(unit) + " in " + quoted(text) +
                       " is not recognised (SI prefixes f..E are decimal; Ki/Mi/Gi/Ti only with "
                       "B or b); " +
                       expect);
}

std::string format_si(double si_value, const std::string& unit, int significant_digits) {
  static constexpr std::array<std::pair<const char*, double>, 10> kPrefixes = {{
      {"P", 1e15},
      {"T", 1e12},
      {"G", 1e9},
      {"M", 1e6},
      {"k", 1e3},
      {"", 1.0},
      {"m", 1e-3},
      {"u", 1e-6},
      {"n", 1e-9},
      {"p", 1e-12},
  }};
  const char* prefix = "";
  double scaled = si_value;
  const double magnitude = std::fabs(si_value);
  // A value that rounds up to 1000 of a prefix at this precision takes the next prefix up
  // ("1 kB", not "1000 B"); anything lower keeps its prefix ("999.6 B", not "0.9996 kB").
  const int digits = significant_digits < 1 ? 1 : significant_digits;
  const double round_up = 1.0 - 0.5 * std::pow(10.0, -digits);
  if (magnitude != 0.0 && std::isfinite(magnitude)) {
    for (const auto& [symbol, value] : kPrefixes) {
      if (magnitude >= value * round_up) {
        prefix = symbol;
        scaled = si_value / value;
        break;
      }
      prefix = symbol;
      scaled = si_value / value;
    }
  }
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*g %s%s", significant_digits, scaled, prefix,
                unit.c_str());
  return buffer;
}

long long parse_count(const std::string& flag, const std::string& value) {
  long long out = 0;
  const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (ec != std::errc() || ptr != value.data() + value.size() || out < 0) {
    throw UsageError{flag + " expects a whole number >= 0, got '" + value + "'"};
  }
  return out;
}

}  // namespace scoville
