#include <catch2/catch.hpp>

#include "sim/engine/decode_sampling.hpp"

using scoville::engine::decode_samples;

TEST_CASE("decode samples stand for every output token", "[sampling]") {
  for (int64_t osl : {1, 2, 3, 4, 7, 1024}) {
    double steps = 0;
    for (const auto& s : decode_samples(8192, osl)) steps += s.weight;
    CHECK(steps == Approx(static_cast<double>(osl)));
  }
}

TEST_CASE("short outputs simulate every step", "[sampling]") {
  const auto samples = decode_samples(100, 3);
  REQUIRE(samples.size() == 3);
  CHECK(samples[0].context == 101);
  CHECK(samples[2].context == 103);
}

TEST_CASE("the sampled sum is exact for a step time affine in the context", "[sampling]") {
  const double fixed = 2.5e-3;      // weight streaming, seconds
  const double per_token = 3.0e-8;  // KV streaming per context token, seconds
  auto step_time = [&](int64_t context) {
    return fixed + per_token * static_cast<double>(context);
  };
  for (int64_t osl : {5, 1023, 1024}) {
    const int64_t isl = 8192;
    double exact = 0;
    for (int64_t j = 1; j <= osl; ++j) exact += step_time(isl + j);
    double sampled = 0;
    for (const auto& s : decode_samples(isl, osl)) sampled += s.weight * step_time(s.context);
    // Exact up to the half-token rounding of the middle sample for even osl.
    CHECK(sampled == Approx(exact).epsilon(1e-5));
  }
}
