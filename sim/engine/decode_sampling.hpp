// Which decode steps are simulated, and what each stands for.
//
// A request of `osl` output tokens runs osl decode steps at contexts isl+1 ... isl+osl. Step
// time is close to affine in the context (the KV bytes read grow linearly; weights do not
// change), so the phase total is estimated from three simulated steps -- first, middle, last --
// with Simpson weights osl x (1, 4, 1) / 6. For an affine step time this is exact (tested in
// tests/sim/decode_sampling_test.cpp); for short outputs (osl <= 3) every step is simulated.
// Tiling quantisation makes real step times slightly non-affine: see docs/modelling.md.
#pragma once

#include <cstdint>
#include <vector>

namespace scoville::engine {

struct DecodeSample {
  int64_t context;  // tokens attended to in this step, the new one included
  double weight;    // decode steps this sample stands for
};

std::vector<DecodeSample> decode_samples(int64_t isl, int64_t osl);

}  // namespace scoville::engine
