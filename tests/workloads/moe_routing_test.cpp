#include <catch2/catch.hpp>

#include <cmath>

#include "workloads/moe_routing.hpp"

using namespace scoville::workloads;

TEST_CASE("one token touches exactly top_k experts", "[moe]") {
  CHECK(expected_experts_touched(32, 4, 1) == Approx(4.0));
  CHECK(expected_experts_touched(256, 8, 1) == Approx(8.0));
  CHECK(experts_touched(32, 4, 1) == 4);
}

TEST_CASE("many tokens touch every expert", "[moe]") {
  const int64_t experts = 32;
  const int64_t top_k = 4;
  const int64_t tokens = 4096;
  CHECK(expected_experts_touched(experts, top_k, tokens) == Approx(double(experts)));
  CHECK(experts_touched(experts, top_k, tokens) == experts);
}

TEST_CASE("touched experts follow E (1 - (1 - k/E)^T)", "[moe]") {
  const int64_t experts = 128;
  const int64_t top_k = 4;
  for (int64_t tokens : {2, 3, 10, 50}) {
    const double miss = 1.0 - double(top_k) / double(experts);
    const double expected = double(experts) * (1.0 - std::pow(miss, double(tokens)));
    CHECK(expected_experts_touched(experts, top_k, tokens) == Approx(expected));
    CHECK(experts_touched(experts, top_k, tokens) == std::llround(expected));
  }
}

TEST_CASE("touched experts never exceed what the tokens can reach", "[moe]") {
  // Two tokens choosing 4 of 8 experts: expectation 8 (1 - 0.5^2) = 6, within [4, 8].
  CHECK(experts_touched(8, 4, 2) == 6);
  CHECK(experts_touched(8, 8, 1) == 8);
  CHECK(experts_touched(8, 4, 0) == 0);
}
