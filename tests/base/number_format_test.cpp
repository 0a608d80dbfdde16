// Number formats: storage cost per value including block-scale overhead, and name round trips.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/base/number_format.hpp"

using namespace scoville;

namespace {

constexpr double kBitsPerByte = 8.0;
constexpr double kFp4ElementBits = 4.0;  // E2M1
constexpr double kE8M0ScaleBits = 8.0;   // MXFP4 shared exponent
constexpr double kE4M3ScaleBits = 8.0;   // NVFP4 FP8 scale
constexpr double kMxBlock = 32.0;        // OCP MX block size
constexpr double kNvBlock = 16.0;        // NVFP4 block size
constexpr double kInt4Bits = 4.0;        // INT4 weights
constexpr double kBf16ScaleBits = 16.0;  // compressed-tensors group scale
constexpr double kInt4Group = 32.0;      // Kimi K2.5's group size

const std::vector<NumberFormat> kAllFormats = {NumberFormat::kBf16, NumberFormat::kFp8,
                                               NumberFormat::kMxfp4, NumberFormat::kNvfp4,
                                               NumberFormat::kInt4};
const std::vector<MathPrecision> kAllPrecisions = {MathPrecision::kBf16, MathPrecision::kFp8,
                                                   MathPrecision::kFp4};

}  // namespace

TEST_CASE("bits per value include the block scale", "[number_format]") {
  CHECK(bits_per_value(NumberFormat::kBf16) == 16.0);
  CHECK(bits_per_value(NumberFormat::kFp8) == 8.0);
  CHECK(bits_per_value(NumberFormat::kMxfp4) == kFp4ElementBits + kE8M0ScaleBits / kMxBlock);
  CHECK(bits_per_value(NumberFormat::kNvfp4) == kFp4ElementBits + kE4M3ScaleBits / kNvBlock);
  CHECK(bits_per_value(NumberFormat::kMxfp4) == 4.25);
  CHECK(bits_per_value(NumberFormat::kNvfp4) == 4.5);
  CHECK(bits_per_value(NumberFormat::kInt4) == kInt4Bits + kBf16ScaleBits / kInt4Group);
}

TEST_CASE("bytes per value is bits over eight", "[number_format]") {
  for (NumberFormat f : kAllFormats) {
    INFO(to_string(f));
    CHECK(bytes_per_value(f) == bits_per_value(f) / kBitsPerByte);
  }
  CHECK(bytes_per_value(NumberFormat::kBf16) == 2.0);
}

TEST_CASE("math precision of each format", "[number_format]") {
  CHECK(math_precision_of(NumberFormat::kBf16) == MathPrecision::kBf16);
  CHECK(math_precision_of(NumberFormat::kFp8) == MathPrecision::kFp8);
  CHECK(math_precision_of(NumberFormat::kMxfp4) == MathPrecision::kFp4);
  CHECK(math_precision_of(NumberFormat::kNvfp4) == MathPrecision::kFp4);
  // Weight-only: widened to BF16 activations (W4A16); the only weight-only format.
  CHECK(math_precision_of(NumberFormat::kInt4) == MathPrecision::kBf16);
  for (NumberFormat f : kAllFormats) CHECK(weight_only(f) == (f == NumberFormat::kInt4));
}

TEST_CASE("number format names round trip", "[number_format]") {
  CHECK(to_string(NumberFormat::kBf16) == "bf16");
  CHECK(to_string(NumberFormat::kFp8) == "fp8");
  CHECK(to_string(NumberFormat::kMxfp4) == "mxfp4");
  CHECK(to_string(NumberFormat::kNvfp4) == "nvfp4");
  CHECK(to_string(NumberFormat::kInt4) == "int4");
  for (NumberFormat f : kAllFormats) {
    INFO(to_string(f));
    REQUIRE(number_format_from_string(to_string(f)).has_value());
    CHECK(*number_format_from_string(to_string(f)) == f);
  }
  std::vector<std::string> names;
  for (NumberFormat f : kAllFormats) names.push_back(to_string(f));
  CHECK(number_format_names() == names);
}

TEST_CASE("math precision names round trip", "[number_format]") {
  CHECK(to_string(MathPrecision::kBf16) == "bf16");
  CHECK(to_string(MathPrecision::kFp8) == "fp8");
  CHECK(to_string(MathPrecision::kFp4) == "fp4");
  for (MathPrecision p : kAllPrecisions) {
    INFO(to_string(p));
    REQUIRE(math_precision_from_string(to_string(p)).has_value());
    CHECK(*math_precision_from_string(to_string(p)) == p);
  }
  std::vector<std::string> names;
  for (MathPrecision p : kAllPrecisions) names.push_back(to_string(p));
  CHECK(math_precision_names() == names);
}

TEST_CASE("unknown names are rejected", "[number_format]") {
  for (const char* name : {"", "BF16", "fp16", "fp4", "mxfp8", " fp8", "nvfp4 "}) {
    INFO('"' << name << '"');
    CHECK_FALSE(number_format_from_string(name).has_value());
  }
  for (const char* name : {"", "FP8", "mxfp4", "nvfp4", "fp16"}) {
    INFO('"' << name << '"');
    CHECK_FALSE(math_precision_from_string(name).has_value());
  }
}
