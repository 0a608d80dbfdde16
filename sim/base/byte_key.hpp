// Exact memo keys made of numbers: their bytes side by side, so that building a key costs no
// number formatting (op tables are asked hundreds of thousands of times in a sweep) and two keys
// are equal exactly when every number is.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>

namespace scoville {

inline std::string byte_key(std::initializer_list<int64_t> ints,
                            std::initializer_list<double> reals) {
  std::string key(ints.size() * sizeof(int64_t) + reals.size() * sizeof(double), '\0');
  char* at = &key[0];
  for (const int64_t v : ints) {
    std::memcpy(at, &v, sizeof v);
    at += sizeof v;
  }
  for (const double v : reals) {
    std::memcpy(at, &v, sizeof v);
    at += sizeof v;
  }
  return key;
}

}  // namespace scoville
