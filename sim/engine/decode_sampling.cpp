#include "sim/engine/decode_sampling.hpp"

namespace scoville::engine {

std::vector<DecodeSample> decode_samples(int64_t isl, int64_t osl) {
  std::vector<DecodeSample> samples;
  if (osl <= 0) return samples;
  if (osl <= 3) {
    for (int64_t j = 1; j <= osl; ++j) samples.push_back({isl + j, 1.0});
    return samples;
  }
  const double n = static_cast<double>(osl);
  const int64_t first = isl + 1;
  const int64_t last = isl + osl;
  // The mean of an affine function over the steps is its value at the middle context, which is
  // half-way between first and last (rounded down when osl is even: an error below 1 token).
  const int64_t middle = first + (osl - 1) / 2;
  samples.push_back({first, n / 6.0});
  samples.push_back({middle, 4.0 * n / 6.0});
  samples.push_back({last, n / 6.0});
  return samples;
}

}  // namespace scoville::engine
