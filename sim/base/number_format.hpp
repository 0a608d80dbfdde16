// Number formats of stored tensors (weights, activations, KV cache) and the math precision a
// matrix engine runs them at.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace scoville {

// Storage formats. Block-scaled formats carry their scale overhead in bits_per_value().
enum class NumberFormat {
  kBf16,
  kFp8,    // E4M3/E5M2, per-tensor or per-channel scales (negligible storage)
  kMxfp4,  // OCP MX: 32 E2M1 values share one 8-bit E8M0 scale -> 4.25 bits/value
  kNvfp4,  // NVIDIA: 16 E2M1 values share one FP8 E4M3 scale -> 4.5 bits/value
  // Integer weights, 32 INT4 values share one BF16 scale -> 4.5 bits/value (compressed-tensors
  // pack-quantized, group 32: Kimi K2.5's released checkpoint). Weight-only (W4A16): the values
  // are widened to the activations' format before the math, so it is refused for activations
  // and the KV cache (weight_only()).
  kInt4,
};

// Math precisions of a matrix engine (rates in the chip file are keyed by these names).
enum class MathPrecision { kBf16, kFp8, kFp4 };

double bits_per_value(NumberFormat f);
// A format only weights are stored in (the kernel widens them to the activations' format).
inline bool weight_only(NumberFormat f) { return f == NumberFormat::kInt4; }
inline double bytes_per_value(NumberFormat f) { return bits_per_value(f) / 8.0; }
MathPrecision math_precision_of(NumberFormat f);

std::string to_string(NumberFormat f);   // "bf16", "fp8", "mxfp4", "nvfp4", "int4"
std::string to_string(MathPrecision p);  // "bf16", "fp8", "fp4"
std::optional<NumberFormat> number_format_from_string(const std::string& name);
std::optional<MathPrecision> math_precision_from_string(const std::string& name);
std::vector<std::string> number_format_names();
std::vector<std::string> math_precision_names();

}  // namespace scoville
