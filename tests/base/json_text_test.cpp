// JSON text: numbers in the shortest form that reads back as the same double, strings escaped.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "sim/base/json_text.hpp"

using scoville::output::json_escape;
using scoville::output::json_number;

TEST_CASE("json numbers are the shortest round-trip form", "[json_text]") {
  // 700/9 is 77.777777777777771 at %.17g; 16 digits already read back as the same double.
  CHECK(json_number(700.0 / 9.0) == "77.77777777777777");
  CHECK(json_number(0.1) == "0.1");
  CHECK(json_number(0.1 + 0.2) == "0.30000000000000004");
  CHECK(json_number(100.0) == "100");
  CHECK(json_number(-2.5) == "-2.5");
  CHECK(json_number(0.0) == "0");
  CHECK(json_number(1e300) == "1e+300");
  CHECK(json_number(std::numeric_limits<double>::denorm_min()) == "5e-324");
}

TEST_CASE("json numbers read back exactly", "[json_text]") {
  // A walk over bit patterns across the exponent range: every number reads back bit for bit.
  uint64_t bits = 0x3ff0000000000001ULL;
  for (int i = 0; i < 20000; ++i) {
    bits = bits * 6364136223846793005ULL + 1442695040888963407ULL;  // Knuth's MMIX LCG
    double v;
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v)) continue;
    const std::string text = json_number(v);
    const double back = std::strtod(text.c_str(), nullptr);
    REQUIRE(std::memcmp(&back, &v, sizeof v) == 0);
    REQUIRE(text.size() <= 24);
  }
}

TEST_CASE("json has no NaN or infinity: they are null", "[json_text]") {
  CHECK(json_number(std::numeric_limits<double>::quiet_NaN()) == "null");
  CHECK(json_number(std::numeric_limits<double>::infinity()) == "null");
  CHECK(json_number(-std::numeric_limits<double>::infinity()) == "null");
}

TEST_CASE("json strings escape quotes, backslashes and control characters", "[json_text]") {
  CHECK(json_escape("a\"b\\c") == "a\\\"b\\\\c");
  CHECK(json_escape("line\nnext\ttab") == "line\\nnext\\ttab");
  CHECK(json_escape(std::string("\x01", 1)) == "\\u0001");
}
