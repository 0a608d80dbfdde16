// The field splitting both request-trace readers share (Scoville's CSV and the public formats):
// comma-separated fields located by their 1-based character column, so that every error names
// the file, line and column a user can jump to.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace scoville::workloads {

struct CsvField {
  std::string_view text;  // trimmed of spaces, tabs and a trailing '\r'
  int column = 1;         // 1-based character column of the field's first character
};

// `s` without leading spaces and tabs, and without trailing spaces, tabs and '\r'.
std::string_view trim_field(std::string_view s);

// The line's comma-separated fields (no quoting: none of the supported formats quotes numbers).
std::vector<CsvField> split_csv_fields(std::string_view line);

// Parses the whole of `text` as a decimal integer (no sign other than '-', no spaces); false on
// anything else or an overflow.
bool parse_count(std::string_view text, int64_t& out);

// True for a blank line or a '#' comment.
bool skipped_line(std::string_view line);

}  // namespace scoville::workloads
