// Strong unit types and the unit parser (FORMATS.md §4: <number>[ ]<prefix?><unit>).
// Expected values are built from the prefix tables below, never typed in as bare literals.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/base/unit_parser.hpp"
#include "sim/base/units.hpp"

using namespace scoville;

namespace {

constexpr double kKi = 1024.0;
constexpr double kBitsPerByte = 8.0;

struct Prefix {
  const char* symbol;
  double scale;
};

// SI prefixes are always decimal.
const std::vector<Prefix> kDecimalPrefixes = {
    {"f", 1e-15}, {"p", 1e-12}, {"n", 1e-9}, {"u", 1e-6}, {"\xC2\xB5", 1e-6},  // µ
    {"m", 1e-3},  {"k", 1e3},   {"M", 1e6},  {"G", 1e9},  {"T", 1e12},
    {"P", 1e15},  {"E", 1e18},
};

// IEC prefixes: powers of 1024.
const std::vector<Prefix> kBinaryPrefixes = {
    {"Ki", kKi},
    {"Mi", kKi* kKi},
    {"Gi", kKi* kKi* kKi},
    {"Ti", kKi* kKi* kKi* kKi},
    {"Pi", kKi* kKi* kKi* kKi* kKi},
    {"Ei", kKi* kKi* kKi* kKi* kKi* kKi},
};

struct UnitCase {
  const char* unit;
  Dimension dimension;
  double si_per_unit;  // SI value of one unit, e.g. one bit is 1/8 byte
  bool binary_ok;
};

const std::vector<UnitCase> kUnits = {
    {"B", Dimension::kBytes, 1.0, true},
    {"b", Dimension::kBytes, 1.0 / kBitsPerByte, true},
    {"B/s", Dimension::kBandwidth, 1.0, true},
    {"b/s", Dimension::kBandwidth, 1.0 / kBitsPerByte, true},
    {"s", Dimension::kDuration, 1.0, false},
    {"Hz", Dimension::kFrequency, 1.0, false},
    {"J", Dimension::kEnergy, 1.0, false},
    {"W", Dimension::kPower, 1.0, false},
    {"FLOP", Dimension::kFlops, 1.0, false},
    {"FLOP/s", Dimension::kFlopRate, 1.0, false},
    {"J/bit", Dimension::kEnergyPerBit, 1.0, false},
    {"V", Dimension::kVoltage, 1.0, false},
};

const std::vector<Dimension> kAllDimensions = {
    Dimension::kBytes,        Dimension::kBandwidth, Dimension::kDuration, Dimension::kFrequency,
    Dimension::kEnergy,       Dimension::kPower,     Dimension::kFlops,    Dimension::kFlopRate,
    Dimension::kEnergyPerBit, Dimension::kVoltage,
};

// The message of the UnitParseError thrown for `text`, or "" if none was thrown.
std::string parse_error(const std::string& text, Dimension expected) {
  try {
    parse_quantity(text, expected);
  } catch (const UnitParseError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("every dimension parses with its own unit", "[units]") {
  CHECK(parse<Bytes>("3 B").si() == 3.0);
  CHECK(parse<Bandwidth>("3 B/s").si() == 3.0);
  CHECK(parse<Duration>("3 s").si() == 3.0);
  CHECK(parse<Frequency>("3 Hz").si() == 3.0);
  CHECK(parse<Energy>("3 J").si() == 3.0);
  CHECK(parse<Power>("3 W").si() == 3.0);
  CHECK(parse<Flops>("3 FLOP").si() == 3.0);
  CHECK(parse<FlopRate>("3 FLOP/s").si() == 3.0);
  CHECK(parse<EnergyPerBit>("3 J/bit").si() == 3.0);
  for (const UnitCase& u : kUnits) {
    INFO(u.unit);
    CHECK(parse_quantity(std::string("2 ") + u.unit, u.dimension) == Approx(2.0 * u.si_per_unit));
  }
}

TEST_CASE("the examples of the design brief", "[units]") {
  CHECK(parse<Bandwidth>("4.8 TB/s").si() == Approx(4.8 * 1e12));
  CHECK(parse<Frequency>("1.8 GHz").si() == Approx(1.8 * 1e9));
  CHECK(parse<Power>("700 W").si() == 700.0);
  CHECK(parse<EnergyPerBit>("3.9 pJ/bit").si() == Approx(3.9 * 1e-12));
  CHECK(parse<Bytes>("96 MiB").si() == 96.0 * kKi * kKi);
  CHECK(parse<FlopRate>("989 TFLOP/s").si() == Approx(989.0 * 1e12));
  CHECK(parse<Duration>("120 ns").si() == Approx(120.0 * 1e-9));
}

TEST_CASE("every decimal prefix scales every unit", "[units]") {
  for (const UnitCase& u : kUnits) {
    for (const Prefix& p : kDecimalPrefixes) {
      const std::string text = std::string("1.5 ") + p.symbol + u.unit;
      INFO(text);
      CHECK(parse_quantity(text, u.dimension) == Approx(1.5 * p.scale * u.si_per_unit));
    }
  }
}

TEST_CASE("micro may be written u or as the micro sign", "[units]") {
  CHECK(parse<Duration>("2 us").si() == parse<Duration>("2 \xC2\xB5s").si());
  CHECK(parse<Duration>("2 us").si() == Approx(2.0 * 1e-6));
}

TEST_CASE("binary prefixes apply to bytes and bits only", "[units]") {
  SECTION("80 GiB is 80 * 1024^3 bytes exactly") {
    CHECK(parse<Bytes>("80 GiB").si() == 80.0 * kKi * kKi * kKi);
    CHECK(parse<Bytes>("80 GiB").si() == gib(80).si());
  }
  SECTION("every IEC prefix with B, b, B/s and b/s") {
    for (const UnitCase& u : kUnits) {
      if (!u.binary_ok) continue;
      for (const Prefix& p : kBinaryPrefixes) {
        const std::string text = std::string("3 ") + p.symbol + u.unit;
        INFO(text);
        CHECK(parse_quantity(text, u.dimension) == 3.0 * p.scale * u.si_per_unit);
      }
    }
  }
  SECTION("IEC prefixes are rejected on every other unit") {
    for (const UnitCase& u : kUnits) {
      if (u.binary_ok) continue;
      for (const Prefix& p : kBinaryPrefixes) {
        const std::string text = std::string("1 ") + p.symbol + u.unit;
        INFO(text);
        CHECK_THROWS_AS(parse_quantity(text, u.dimension), UnitParseError);
      }
    }
  }
  SECTION("1 GiHz names the unit and the rule") {
    const std::string message = parse_error("1 GiHz", Dimension::kFrequency);
    CHECK_THAT(message, Catch::Contains("GiHz"));
    CHECK_THAT(message, Catch::Contains("Ki/Mi/Gi/Ti only with B or b"));
  }
}

TEST_CASE("bits versus bytes", "[units]") {
  CHECK(parse<Bandwidth>("400 Gb/s").si() == 400.0 * 1e9 / kBitsPerByte);
  CHECK(parse<Bandwidth>("400 Gb/s").si() == 50.0 * 1e9);
  CHECK(parse<Bandwidth>("400 GB/s").si() == 400.0 * 1e9);
  CHECK(parse<Bytes>("16 Mb").si() == 16.0 * 1e6 / kBitsPerByte);
  CHECK(parse<Bytes>("8 Kib").si() == 8.0 * kKi / kBitsPerByte);
  CHECK(parse<Bytes>("8 b").si() == 1.0);
}

TEST_CASE("the space between number and unit is optional", "[units]") {
  for (const UnitCase& u : kUnits) {
    const std::string with_space = std::string("4.5 G") + u.unit;
    const std::string without_space = std::string("4.5G") + u.unit;
    INFO(with_space);
    CHECK(parse_quantity(with_space, u.dimension) == parse_quantity(without_space, u.dimension));
  }
  CHECK(parse<Bandwidth>("4.8TB/s").si() == Approx(4.8 * 1e12));
  CHECK(parse<Bytes>("80GiB").si() == 80.0 * kKi * kKi * kKi);
  CHECK(parse<Power>("  700 W  ").si() == 700.0);  // surrounding spaces are trimmed
}

TEST_CASE("scientific notation and signs", "[units]") {
  CHECK(parse<Bandwidth>("4.8e12 B/s").si() == Approx(4.8e12));
  CHECK(parse<Bandwidth>("4.8e3 GB/s").si() == Approx(4.8e3 * 1e9));
  CHECK(parse<Duration>("1.5E-3 s").si() == Approx(1.5e-3));
  CHECK(parse<Energy>("2e-1pJ").si() == Approx(0.2 * 1e-12));
  CHECK(parse<Power>(".5 kW").si() == Approx(0.5 * 1e3));
  CHECK(parse<Power>("+5 W").si() == 5.0);
  CHECK(parse<Power>("-5 W").si() == -5.0);  // the sign is parsed; range checks are the reader's
  // "1EB" is one exabyte, not an incomplete exponent.
  CHECK(parse<Bytes>("1EB").si() == Approx(1e18));
  CHECK(parse<Bytes>("0 B").si() == 0.0);
}

TEST_CASE("the wrong dimension names both dimensions", "[units]") {
  const std::string message = parse_error("700 W", Dimension::kBandwidth);
  CHECK_THAT(message, Catch::Contains("700 W"));
  CHECK_THAT(message, Catch::Contains(dimension_name(Dimension::kPower)));
  CHECK_THAT(message, Catch::Contains("expected " + dimension_name(Dimension::kBandwidth)));

  // Every unit is rejected for every dimension except its own.
  for (const UnitCase& u : kUnits) {
    for (Dimension d : kAllDimensions) {
      if (d == u.dimension) continue;
      const std::string text = std::string("1 ") + u.unit;
      INFO(text << " as " << dimension_name(d));
      const std::string error = parse_error(text, d);
      CHECK_THAT(error, Catch::Contains(dimension_name(u.dimension)));
      CHECK_THAT(error, Catch::Contains(dimension_name(d)));
    }
  }
}

TEST_CASE("malformed values throw UnitParseError", "[units]") {
  const std::vector<std::string> malformed = {
      "",       "   ",      "abc",     "4.8",    "4.8 TB/",   "nan GHz",  "NaN GHz",
      "inf W",  "-inf W",   "+inf W",  "-nan W", "1e999 W",   "-1e999 W", "4.8 XB/s",
      "--1 W",  "+-1 W",    "++1 W",   "1 W W",  "4 .8 TB/s", ". W",      "W",
      "0x10 B", "4.8 tb/s", "1 FLOPs", "1 pJ/b", "1 B/s/s",   "1 kK W",   "4.8\tTB/s",
  };
  for (const std::string& text : malformed) {
    INFO('"' << text << '"');
    CHECK_THROWS_AS(parse_quantity(text, Dimension::kPower), UnitParseError);
    CHECK_THROWS_AS(parse_quantity(text, Dimension::kBandwidth), UnitParseError);
  }
}

TEST_CASE("parse error messages say what was expected", "[units]") {
  CHECK_THAT(parse_error("", Dimension::kPower), Catch::Contains("empty value"));
  CHECK_THAT(parse_error("4.8", Dimension::kBandwidth), Catch::Contains("has no unit"));
  CHECK_THAT(parse_error("abc", Dimension::kPower),
             Catch::Contains("does not start with a number"));
  CHECK_THAT(parse_error("1e999 W", Dimension::kPower), Catch::Contains("finite number"));
  CHECK_THAT(parse_error("4.8 XB/s", Dimension::kBandwidth), Catch::Contains("\"XB/s\""));
  for (Dimension d : kAllDimensions) {
    CHECK_THAT(parse_error("", d), Catch::Contains("expected " + dimension_name(d)));
  }
}

TEST_CASE("UnitParseError is a runtime_error", "[units]") {
  CHECK_THROWS_AS(parse<Power>("abc"), std::runtime_error);
}

TEST_CASE("dimension names are distinct", "[units]") {
  for (Dimension a : kAllDimensions) {
    CHECK_FALSE(dimension_name(a).empty());
    for (Dimension b : kAllDimensions) {
      if (a != b) CHECK(dimension_name(a) != dimension_name(b));
    }
  }
}

TEST_CASE("DimensionOf maps each type to its dimension", "[units]") {
  STATIC_REQUIRE(DimensionOf<Bytes>::value == Dimension::kBytes);
  STATIC_REQUIRE(DimensionOf<Bandwidth>::value == Dimension::kBandwidth);
  STATIC_REQUIRE(DimensionOf<Duration>::value == Dimension::kDuration);
  STATIC_REQUIRE(DimensionOf<Frequency>::value == Dimension::kFrequency);
  STATIC_REQUIRE(DimensionOf<Energy>::value == Dimension::kEnergy);
  STATIC_REQUIRE(DimensionOf<Power>::value == Dimension::kPower);
  STATIC_REQUIRE(DimensionOf<Flops>::value == Dimension::kFlops);
  STATIC_REQUIRE(DimensionOf<FlopRate>::value == Dimension::kFlopRate);
  STATIC_REQUIRE(DimensionOf<EnergyPerBit>::value == Dimension::kEnergyPerBit);
}

TEST_CASE("same-dimension arithmetic and comparisons", "[units]") {
  const Bytes a = bytes(3);
  const Bytes b = bytes(5);
  CHECK((a + b).si() == 8.0);
  CHECK((b - a).si() == 2.0);
  CHECK((a * 2.0).si() == 6.0);
  CHECK((2.0 * a).si() == 6.0);
  CHECK((b / 2.0).si() == 2.5);
  CHECK(b / a == Approx(5.0 / 3.0));  // a ratio is dimensionless
  Bytes c = a;
  c += b;
  CHECK(c.si() == 8.0);
  c -= a;
  CHECK(c == b);
  CHECK(a < b);
  CHECK(b > a);
  CHECK(a <= a);
  CHECK(a >= a);
  CHECK(a != b);
  CHECK(Bytes().si() == 0.0);
  STATIC_REQUIRE(std::is_same<decltype(a / b), double>::value);
  // Mixing dimensions does not compile: Bytes + Duration has no operator.
  STATIC_REQUIRE_FALSE(std::is_convertible<Bytes, Duration>::value);
  STATIC_REQUIRE_FALSE(std::is_convertible<double, Bytes>::value);
}

TEST_CASE("cross-dimension operators", "[units]") {
  const Bytes size = gigabytes(96);
  const Bandwidth bw = terabytes_per_second(4.8);
  const Duration t = size / bw;
  STATIC_REQUIRE(std::is_same<decltype(size / bw), Duration>::value);
  CHECK(t.si() == Approx(96e9 / 4.8e12));

  STATIC_REQUIRE(std::is_same<decltype(bw * t), Bytes>::value);
  CHECK((bw * t).si() == Approx(size.si()));

  STATIC_REQUIRE(std::is_same<decltype(size / t), Bandwidth>::value);
  CHECK((size / t).si() == Approx(bw.si()));

  const Flops work = flops(2e15);
  const FlopRate rate = teraflops_per_second(989);
  STATIC_REQUIRE(std::is_same<decltype(work / rate), Duration>::value);
  CHECK((work / rate).si() == Approx(2e15 / 989e12));
  STATIC_REQUIRE(std::is_same<decltype(work / (work / rate)), FlopRate>::value);
  CHECK((work / (work / rate)).si() == Approx(rate.si()));

  const Power p = watts(700);
  const Duration ms = milliseconds(3);
  STATIC_REQUIRE(std::is_same<decltype(p * ms), Energy>::value);
  CHECK((p * ms).si() == Approx(700.0 * 3e-3));
  STATIC_REQUIRE(std::is_same<decltype((p * ms) / ms), Power>::value);
  CHECK(((p * ms) / ms).si() == Approx(p.si()));

  // Energy per bit times bytes: 8 bits per byte.
  const EnergyPerBit epb = picojoules_per_bit(3.9);
  const Bytes moved = bytes(1000);
  STATIC_REQUIRE(std::is_same<decltype(epb * moved), Energy>::value);
  CHECK((epb * moved).si() == Approx(3.9e-12 * 1000.0 * kBitsPerByte));
  CHECK((moved * epb).si() == (epb * moved).si());

  // Cycles: frequency times duration is dimensionless, and cycles_to_duration inverts it.
  const Frequency clock = gigahertz(1.98);
  const Duration span = nanoseconds(100);
  STATIC_REQUIRE(std::is_same<decltype(clock * span), double>::value);
  CHECK(clock * span == Approx(1.98e9 * 100e-9));
  CHECK(cycles_to_duration(clock * span, clock).si() == Approx(span.si()));
}

TEST_CASE("convenience constructors", "[units]") {
  CHECK(kib(1).si() == kKi);
  CHECK(mib(1).si() == kKi * kKi);
  CHECK(gib(1).si() == kKi * kKi * kKi);
  CHECK(gigabytes(1).si() == 1e9);
  CHECK(seconds(2).si() == 2.0);
  CHECK(milliseconds(1).si() == Approx(1e-3));
  CHECK(microseconds(1).si() == Approx(1e-6));
  CHECK(nanoseconds(1).si() == Approx(1e-9));
  CHECK(gigahertz(1).si() == 1e9);
  CHECK(gigabytes_per_second(1).si() == 1e9);
  CHECK(terabytes_per_second(1).si() == 1e12);
  CHECK(watts(1).si() == 1.0);
  CHECK(joules(1).si() == 1.0);
  CHECK(picojoules(1).si() == Approx(1e-12));
  CHECK(picojoules_per_bit(1).si() == Approx(1e-12));
  CHECK(flops(1).si() == 1.0);
  CHECK(teraflops_per_second(1).si() == 1e12);
  // They agree with the parser.
  CHECK(parse<Bytes>("3 MiB") == mib(3));
  CHECK(parse<Frequency>("2 GHz") == gigahertz(2));
  CHECK(parse<Bandwidth>("3 TB/s").si() == Approx(terabytes_per_second(3).si()));
}

TEST_CASE("format_si picks a readable decimal prefix", "[units]") {
  CHECK(format_si(4.8e12, "B/s") == "4.8 TB/s");
  CHECK(format_si(1.98e9, "Hz") == "1.98 GHz");
  CHECK(format_si(700.0, "W") == "700 W");
  CHECK(format_si(3.9e-12, "J") == "3.9 pJ");
  CHECK(format_si(120e-9, "s") == "120 ns");
  CHECK(format_si(2e-6, "s") == "2 us");
  CHECK(format_si(5e-3, "s") == "5 ms");
  CHECK(format_si(0.0, "W") == "0 W");
  CHECK(format_si(-700e3, "W") == "-700 kW");
  CHECK(format_si(1.0, "B") == "1 B");
  CHECK(format_si(1e15, "FLOP") == "1 PFLOP");
}

TEST_CASE("format_si changes prefix only when the value would print as 1000", "[units]") {
  // With 4 significant digits, 999.6 prints as is; 999.96 would print as "1000" and becomes 1 k.
  CHECK(format_si(999.6, "B") == "999.6 B");
  CHECK(format_si(999.96, "B") == "1 kB");
  CHECK(format_si(999.6e9, "B/s") == "999.6 GB/s");
  // With 2 significant digits the threshold moves: 996 would print as "1e+03" otherwise.
  CHECK(format_si(996.0, "B", 2) == "1 kB");
  CHECK(format_si(9.4e3, "B", 2) == "9.4 kB");
  CHECK(format_si(123456.0, "B", 6) == "123.456 kB");
}

TEST_CASE("format_si outside the prefix table and non-finite values", "[units]") {
  CHECK(format_si(2e18, "B") == "2000 PB");
  CHECK(format_si(1e-15, "J") == "0.001 pJ");
  CHECK(format_si(std::nan(""), "W") == "nan W");
  CHECK(format_si(HUGE_VAL, "W") == "inf W");
}

TEST_CASE("format_si output parses back to the same value", "[units]") {
  const std::vector<std::pair<double, Dimension>> values = {
      {4.8e12, Dimension::kBandwidth}, {1.98e9, Dimension::kFrequency},
      {700.0, Dimension::kPower},      {3.9e-12, Dimension::kEnergyPerBit},
      {120e-9, Dimension::kDuration},  {85899345920.0, Dimension::kBytes},
      {2.5e15, Dimension::kFlops},     {989e12, Dimension::kFlopRate},
      {0.4e-12, Dimension::kEnergy},   {12.5e-3, Dimension::kDuration},
  };
  const std::vector<std::pair<Dimension, const char*>> unit_of = {
      {Dimension::kBytes, "B"},
      {Dimension::kBandwidth, "B/s"},
      {Dimension::kDuration, "s"},
      {Dimension::kFrequency, "Hz"},
      {Dimension::kEnergy, "J"},
      {Dimension::kPower, "W"},
      {Dimension::kFlops, "FLOP"},
      {Dimension::kFlopRate, "FLOP/s"},
      {Dimension::kEnergyPerBit, "J/bit"},
  };
  for (const auto& [value, dimension] : values) {
    std::string unit;
    for (const auto& [d, u] : unit_of) {
      if (d == dimension) unit = u;
    }
    for (int digits : {4, 6, 12}) {
      const std::string text = format_si(value, unit, digits);
      INFO(text);
      // Rounding to `digits` significant digits bounds the relative error by half a unit.
      const double tolerance = 0.5 * std::pow(10.0, 1 - digits);
      CHECK(parse_quantity(text, dimension) == Approx(value).epsilon(tolerance));
    }
  }
}
