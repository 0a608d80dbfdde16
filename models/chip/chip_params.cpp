#include "models/chip/chip_params.hpp"

namespace scoville::models {

std::optional<MathPrecision> ChipParams::executed_precision(MathPrecision wanted) const {
  // Ordered narrowest to widest; a wider precision can always hold a narrower operand.
  const MathPrecision order[] = {MathPrecision::kFp4, MathPrecision::kFp8, MathPrecision::kBf16};
  bool reached = false;
  for (MathPrecision p : order) {
    if (p == wanted) reached = true;
    if (reached && tiles.matrix.supports(p)) return p;
  }
  return std::nullopt;
}

}  // namespace scoville::models
