#include "sim/base/number_format.hpp"

namespace scoville {

double bits_per_value(NumberFormat f) {
  switch (f) {
    case NumberFormat::kBf16:
      return 16.0;
    case NumberFormat::kFp8:
      return 8.0;
    // OCP Microscaling v1.0: 32 x 4-bit elements + one 8-bit shared exponent (REFERENCE.md).
    case NumberFormat::kMxfp4:
      return 4.0 + 8.0 / 32.0;
    // NVFP4: 16 x 4-bit elements + one FP8 scale (REFERENCE.md, lmsys gb200-part-2).
    case NumberFormat::kNvfp4:
      return 4.0 + 8.0 / 16.0;
    // compressed-tensors group quantization: 32 x 4-bit integers + one BF16 scale (Kimi K2.5
    // config.json quantization_config: num_bits 4, group_size 32, symmetric).
    case NumberFormat::kInt4:
      return 4.0 + 16.0 / 32.0;
  }
  return 16.0;
}

MathPrecision math_precision_of(NumberFormat f) {
  switch (f) {
    case NumberFormat::kBf16:
      return MathPrecision::kBf16;
    case NumberFormat::kFp8:
      return MathPrecision::kFp8;
    case NumberFormat::kMxfp4:
    case NumberFormat::kNvfp4:
      return MathPrecision::kFp4;
    // Weight-only: widened before the math. Against activations of its own width it stands for
    // W4A16; an op's math is set by its wider operand (workloads/decompose.cpp).
    case NumberFormat::kInt4:
      return MathPrecision::kBf16;
  }
  return MathPrecision::kBf16;
}

std::string to_string(NumberFormat f) {
  switch (f) {
    case NumberFormat::kBf16:
      return "bf16";
    case NumberFormat::kFp8:
      return "fp8";
    case NumberFormat::kMxfp4:
      return "mxfp4";
    case NumberFormat::kNvfp4:
      return "nvfp4";
    case NumberFormat::kInt4:
      return "int4";
  }
  return "bf16";
}

std::string to_string(MathPrecision p) {
  switch (p) {
    case MathPrecision::kBf16:
      return "bf16";
    case MathPrecision::kFp8:
      return "fp8";
    case MathPrecision::kFp4:
      return "fp4";
  }
  return "bf16";
}

std::optional<NumberFormat> number_format_from_string(const std::string& name) {
  for (NumberFormat f : {NumberFormat::kBf16, NumberFormat::kFp8, NumberFormat::kMxfp4,
                         NumberFormat::kNvfp4, NumberFormat::kInt4}) {
    if (to_string(f) == name) return f;
  }
  return std::nullopt;
}

std::optional<MathPrecision> math_precision_from_string(const std::string& name) {
  for (MathPrecision p : {MathPrecision::kBf16, MathPrecision::kFp8, MathPrecision::kFp4}) {
    if (to_string(p) == name) return p;
  }
  return std::nullopt;
}

std::vector<std::string> number_format_names() { return {"bf16", "fp8", "mxfp4", "nvfp4", "int4"}; }
std::vector<std::string> math_precision_names() { return {"bf16", "fp8", "fp4"}; }

}  // namespace scoville
