// RngStream: deterministic per-component streams (DESIGN.md §5, "Determinism").
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "sim/base/rng.hpp"

using namespace scoville;

namespace {

constexpr int kDraws = 1000;

std::vector<uint64_t> draws(RngStream stream, int n) {
  std::vector<uint64_t> out;
  for (int i = 0; i < n; ++i) out.push_back(stream.next_u64());
  return out;
}

}  // namespace

TEST_CASE("stable_hash is 64-bit FNV-1a", "[rng]") {
  // FNV-1a: the offset basis for "", and one xor-multiply step per byte.
  constexpr uint64_t kOffset = 14695981039346656037ull;
  constexpr uint64_t kPrime = 1099511628211ull;
  STATIC_REQUIRE(stable_hash("") == kOffset);
  STATIC_REQUIRE(stable_hash("a") == (kOffset ^ static_cast<uint64_t>('a')) * kPrime);
  STATIC_REQUIRE(stable_hash("ab") ==
                 (((kOffset ^ static_cast<uint64_t>('a')) * kPrime) ^ static_cast<uint64_t>('b')) *
                     kPrime);
  // Published FNV-1a 64 test vector.
  STATIC_REQUIRE(stable_hash("a") == 0xaf63dc4c8601ec8cull);
  CHECK(stable_hash("system.chip[0]") != stable_hash("system.chip[1]"));
}

TEST_CASE("SplitMix64 reference output", "[rng]") {
  // With seed 0 and the name "" the state is the FNV offset basis; recompute SplitMix64 here.
  uint64_t state = stable_hash("");
  RngStream stream(0, "");
  for (int i = 0; i < 4; ++i) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    CHECK(stream.next_u64() == (z ^ (z >> 31)));
  }
}

TEST_CASE("same seed and name give the same sequence", "[rng]") {
  const uint64_t seed = 42;
  CHECK(draws(RngStream(seed, "system.chip[3].hbm[1]"), kDraws) ==
        draws(RngStream(seed, "system.chip[3].hbm[1]"), kDraws));
  RngStream a(seed, "scheduler");
  RngStream b(seed, "scheduler");
  for (int i = 0; i < kDraws; ++i) {
    CHECK(a.next_unit() == b.next_unit());
    CHECK(a.uniform_int(-7, 7) == b.uniform_int(-7, 7));
  }
}

TEST_CASE("different names or seeds give different streams", "[rng]") {
  const uint64_t seed = 42;
  const std::vector<uint64_t> chip0 = draws(RngStream(seed, "system.chip[0]"), kDraws);
  const std::vector<uint64_t> chip1 = draws(RngStream(seed, "system.chip[1]"), kDraws);
  const std::vector<uint64_t> other_seed = draws(RngStream(seed + 1, "system.chip[0]"), kDraws);
  CHECK(chip0 != chip1);
  CHECK(chip0 != other_seed);
  // Not merely shifted copies: the streams share no values.
  const std::set<uint64_t> seen(chip0.begin(), chip0.end());
  int shared = 0;
  for (uint64_t v : chip1) shared += static_cast<int>(seen.count(v));
  CHECK(shared == 0);
}

TEST_CASE("adding a component does not perturb another's stream", "[rng]") {
  const uint64_t seed = 7;
  const std::vector<uint64_t> alone = draws(RngStream(seed, "router"), kDraws);
  RngStream newcomer(seed, "new_component");
  RngStream router(seed, "router");
  for (int i = 0; i < kDraws; ++i) newcomer.next_u64();
  CHECK(draws(router, kDraws) == alone);
}

TEST_CASE("next_unit is at least 0 and below 1", "[rng]") {
  RngStream stream(1, "unit");
  double sum = 0.0;
  for (int i = 0; i < kDraws; ++i) {
    const double u = stream.next_unit();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    sum += u;
  }
  // The mean of kDraws uniforms has standard deviation sqrt(1/12/kDraws) ~ 0.009.
  CHECK(sum / kDraws == Approx(0.5).margin(0.05));
}

TEST_CASE("uniform_int stays within inclusive bounds and reaches both", "[rng]") {
  RngStream stream(3, "bounds");
  const int64_t lo = -3;
  const int64_t hi = 4;
  std::set<int64_t> seen;
  for (int i = 0; i < kDraws; ++i) {
    const int64_t v = stream.uniform_int(lo, hi);
    REQUIRE(v >= lo);
    REQUIRE(v <= hi);
    seen.insert(v);
  }
  CHECK(seen.size() == static_cast<size_t>(hi - lo + 1));
  CHECK(*seen.begin() == lo);
  CHECK(*seen.rbegin() == hi);
}

TEST_CASE("uniform_int with a single value", "[rng]") {
  RngStream stream(3, "single");
  for (int i = 0; i < 10; ++i) CHECK(stream.uniform_int(5, 5) == 5);
}

TEST_CASE("uniform_int over wide ranges does not overflow", "[rng]") {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  RngStream stream(9, "wide");
  bool negative = false;
  bool positive = false;
  for (int i = 0; i < 100; ++i) {
    const int64_t all = stream.uniform_int(kMin, kMax);  // the whole range: 2^64 values
    negative |= all < 0;
    positive |= all > 0;
    const int64_t upper = stream.uniform_int(-10, kMax);
    CHECK(upper >= -10);
    const int64_t lower = stream.uniform_int(kMin, 10);
    CHECK(lower <= 10);
  }
  CHECK(negative);
  CHECK(positive);
}
