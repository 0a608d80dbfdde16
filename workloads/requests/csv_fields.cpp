#include "workloads/requests/csv_fields.hpp"

#include <charconv>
#include <system_error>

namespace scoville::workloads {

std::string_view trim_field(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<CsvField> split_csv_fields(std::string_view line) {
  std::vector<CsvField> fields;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    const std::string_view raw = line.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    size_t lead = 0;
    while (lead < raw.size() && (raw[lead] == ' ' || raw[lead] == '\t')) ++lead;
    fields.push_back(CsvField{trim_field(raw), static_cast<int>(start + lead) + 1});
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

bool parse_count(std::string_view text, int64_t& out) {
  if (text.empty()) return false;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

bool skipped_line(std::string_view line) {
  const std::string_view t = trim_field(line);
  return t.empty() || t.front() == '#';
}

}  // namespace scoville::workloads
