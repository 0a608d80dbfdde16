#include "sim/base/utf8.hpp"

#include <cstdio>
#include <vector>

#include "sim/base/error.hpp"

namespace scoville {

size_t first_invalid_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) low = 0xA0;   // no overlong
      if (c == 0xED) high = 0x9F;  // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) low = 0x90;   // no overlong
      if (c == 0xF4) high = 0x8F;  // nothing above U+10FFFF
    } else {
      return i;
    }
    if (i + length > n) return i;
    if (s[i + 1] < low || s[i + 1] > high) return i;
    for (size_t k = 2; k < length; ++k) {
      if (s[i + k] < 0x80 || s[i + k] > 0xBF) return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '-')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// The field of the bad byte: YAML, the key before ':' on its line; CSV, the header's name of its
// column (the header is the first line that is neither blank nor a comment).
std::string field_of(std::string_view text, size_t line_start, size_t offset, bool csv) {
  const std::string_view line = text.substr(line_start, offset - line_start);
  if (!csv) {
    const size_t colon = line.find(':');
    return colon == std::string_view::npos ? std::string()
                                           : std::string(trimmed(line.substr(0, colon)));
  }
  const std::string_view whole_line =
      text.substr(line_start, text.find('\n', line_start) - line_start);
  const std::string_view own = trimmed(whole_line);
  if (!own.empty() && own.front() == '#') return "comment";
  size_t column = 0;
  for (char ch : line) column += ch == ',' ? 1 : 0;
  std::string_view rest = text;
  while (!rest.empty()) {
    const size_t nl = rest.find('\n');
    const std::string_view header = rest.substr(0, nl);
    const std::string_view t = trimmed(header);
    if (!t.empty() && t.front() != '#') {
      if (header.data() + header.size() > text.data() + offset &&
          header.data() <= text.data() + offset) {
        return "header";  // the bad byte is in the header itself
      }
      size_t index = 0, start = 0;
      while (index < column) {
        const size_t comma = header.find(',', start);
        if (comma == std::string_view::npos) return std::string();
        start = comma + 1;
        ++index;
      }
      const size_t end = header.find(',', start);
      return std::string(
          trimmed(header.substr(start, end == std::string_view::npos ? end : end - start)));
    }
    if (nl == std::string_view::npos) break;
    rest.remove_prefix(nl + 1);
  }
  return std::string();
}

}  // namespace

void require_utf8(std::string_view text, const std::string& file, bool csv) {
  const size_t bad = first_invalid_utf8(text);
  if (bad == std::string_view::npos) return;
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < bad; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[bad]));
  throw InputError(SourceLocation{file, line, static_cast<int>(bad - line_start) + 1},
                   field_of(text, line_start, bad, csv),
                   std::string("not valid UTF-8 (byte ") + byte +
                       "): names and text must be UTF-8, as outputs (JSON, HDF5, reports) carry "
                       "them; save the file as UTF-8");
}

}  // namespace scoville
