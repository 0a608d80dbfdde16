#include "sim/base/json_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace scoville::output {

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char b[8];
          std::snprintf(b, sizeof(b), "\\u%04x", c);
          out += b;
        } else {
          out += c;
        }
    }
  }
  return out;
}

// std::to_chars without a precision writes the shortest decimal that reads back as the same
// double (C++17 [charconv.to.chars]): 77.77777777777777, not %.17g's 77.777777777777771.
std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char b[32];  // the longest shortest form, -2.2250738585072014e-308, is 24 characters
  const std::to_chars_result r = std::to_chars(b, b + sizeof(b), v);
  return std::string(b, r.ptr);
}

}  // namespace scoville::output
