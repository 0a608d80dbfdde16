// Deterministic random streams: one per component, seeded from the run seed and the component's
// hierarchical name, so adding a component never perturbs another's draws.
#pragma once

#include <cstdint>
#include <string>

namespace scoville {

// 64-bit FNV-1a of a string; stable across platforms and compilers. The default `h` is the FNV-1a
// 64-bit offset basis 14695981039346656037.
constexpr uint64_t stable_hash(const char* s, uint64_t h = 0xcbf29ce484222325ull) {
  return *s == '\0' ? h
                    : stable_hash(s + 1, (h ^ static_cast<unsigned char>(*s)) * 1099511628211ull);
}

// SplitMix64 generator (Steele et al., 2014): small state, good statistical quality, and
// identical output everywhere (unlike std::uniform_*_distribution, whose algorithms differ).
class RngStream {
 public:
  RngStream(uint64_t run_seed, const std::string& component_name)
      : state_(run_seed ^ stable_hash(component_name.c_str())) {}

  uint64_t next_u64() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 53 bits of precision.
  double next_unit() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  // Uniform integer in [lo, hi], inclusive (requires lo <= hi). Computed in unsigned arithmetic,
  // so that wide ranges such as the whole int64_t range do not overflow.
  int64_t uniform_int(int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
    const uint64_t offset = span == 0 ? next_u64() : next_u64() % span;  // span 0: all 2^64
    return static_cast<int64_t>(static_cast<uint64_t>(lo) + offset);
  }

 private:
  uint64_t state_;
};

}  // namespace scoville
