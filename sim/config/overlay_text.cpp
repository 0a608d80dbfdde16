#include "sim/config/overlay_text.hpp"

#include <cstdio>
#include <cstdlib>

#include "sim/base/error.hpp"

namespace scoville::config::overlay_text {

std::vector<std::string> id_list(MapReader& r, const std::string& key, const std::string& example) {
  std::vector<std::string> out;
  const std::optional<YAML::Node> node = r.optional_raw(key);
  if (!node || node->IsNull()) return out;
  if (!node->IsSequence()) {
    r.error(key, "expected a list of ids, e.g. " + example);
    return out;
  }
  for (const YAML::Node& item : *node) {
    if (!item.IsScalar()) {
      r.error(key, "expected a list of ids, e.g. " + example);
      return out;
    }
    out.push_back(item.as<std::string>());
  }
  return out;
}

void require_fidelity(const std::string& path, const std::string& key, const std::string& expected,
                      const std::string& found) {
  if (found == expected) return;
  throw InputError(SourceLocation{path, 0, 0}, key,
                   "expected " + expected + " (the fidelity its file name says), found " + found);
}

std::string g(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

// A duration in the unit that reads best (the overlay is read by people too).
std::string duration_text(Duration t) {
  const double s = t.si();
  if (s == 0) return "0 s";
  // The unit is chosen on the rounded text, so that the text read back picks the same one.
  const std::string us = g(s * 1e6);
  if (std::strtod(us.c_str(), nullptr) < 1000) return us + " us";
  return g(s * 1e3) + " ms";
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {  // a control character, kept (not folded) by an escape
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\x%02x", byte);
      out += escape;
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string list(const std::vector<std::string>& ids) {
  std::string out = "[";
  for (size_t i = 0; i < ids.size(); ++i) out += (i ? ", " : "") + quoted(ids[i]);
  return out + "]";
}

}  // namespace scoville::config::overlay_text
