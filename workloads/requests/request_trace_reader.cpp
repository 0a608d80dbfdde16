#include "workloads/requests/request_trace_reader.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/utf8.hpp"
#include "sim/base/yaml_reader.hpp"
#include "workloads/requests/csv_fields.hpp"

namespace scoville::workloads {
namespace {

using Field = CsvField;

// Arrivals past about 31 years would leave no precision for the microseconds of an iteration
// (and a window of 1e300 s none at all).
constexpr double kMaxArrivalSeconds = 1e9;

constexpr std::array<const char*, 3> kColumns = {"arrival_s", "input_tokens", "output_tokens"};

std::vector<std::string_view> split_lines(const std::string& text) {
  std::vector<std::string_view> lines;
  std::string_view rest(text);
  while (!rest.empty()) {
    const size_t nl = rest.find('\n');
    lines.push_back(rest.substr(0, nl));
    if (nl == std::string_view::npos) break;
    rest.remove_prefix(nl + 1);
  }
  return lines;
}

// Parses a whole field as a non-negative decimal number of seconds.
bool parse_seconds(std::string_view text, double& out) {
  if (text.empty()) return false;
  const std::string s(text);
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(out) && out >= 0.0 &&
         s.find_first_of("xXnN") == std::string::npos;  // no hex, nan or inf spellings
}

}  // namespace

RequestPlan parse_request_trace(const std::string& text, const std::string& display_name,
                                const TraceLimits& limits) {
  require_utf8(text, display_name, true);
  const std::vector<std::string_view> lines = split_lines(text);
  // Find the header: the first line that is not blank or a comment.
  size_t header_index = 0;
  while (header_index < lines.size() && skipped_line(lines[header_index])) ++header_index;
  if (header_index == lines.size()) {
    throw InputError(SourceLocation{display_name, 0, 0}, "",
                     "empty request trace: expected a header line 'arrival_s,input_tokens,"
                     "output_tokens' and at least one request");
  }

  // Refuse oversized traces on the line count before building anything.
  int64_t data_lines = 0;
  for (size_t i = header_index + 1; i < lines.size(); ++i)
    data_lines += skipped_line(lines[i]) ? 0 : 1;
  if (data_lines > limits.max_requests) {
    throw InputError(SourceLocation{display_name, 0, 0}, "",
                     "request trace has " + std::to_string(data_lines) +
                         " requests, more than the limit of " +
                         std::to_string(limits.max_requests));
  }

  Diagnostics diagnostics;
  const int header_line = static_cast<int>(header_index) + 1;
  const std::vector<Field> header = split_csv_fields(lines[header_index]);
  std::array<int, kColumns.size()> position{};  // field index of each column, -1 if missing
  position.fill(-1);
  const std::vector<std::string> known(kColumns.begin(), kColumns.end());
  for (size_t f = 0; f < header.size(); ++f) {
    const std::string name(header[f].text);
    const auto it = std::find(known.begin(), known.end(), name);
    const SourceLocation where{display_name, header_line, header[f].column};
    if (it == known.end()) {
      const std::string suggestion = closest_match(name, known);
      diagnostics.error(
          where, name,
          "unknown column" + (suggestion.empty() ? "; expected arrival_s, input_tokens and "
                                                   "output_tokens"
                                                 : "; did you mean '" + suggestion + "'?"));
      continue;
    }
    const size_t c = static_cast<size_t>(it - known.begin());
    if (position[c] >= 0) {
      diagnostics.error(where, name, "column given twice");
      continue;
    }
    position[c] = static_cast<int>(f);
  }
  for (size_t c = 0; c < kColumns.size(); ++c) {
    if (position[c] < 0) {
      diagnostics.error(SourceLocation{display_name, header_line, 0}, kColumns[c],
                        "missing column in the header (the header must name arrival_s, "
                        "input_tokens and output_tokens)");
    }
  }
  diagnostics.throw_if_any();

  RequestPlan plan;
  double previous_arrival = 0.0;
  for (size_t i = header_index + 1; i < lines.size(); ++i) {
    if (skipped_line(lines[i])) continue;
    const int line = static_cast<int>(i) + 1;
    const std::vector<Field> fields = split_csv_fields(lines[i]);
    if (fields.size() != header.size()) {
      diagnostics.error(SourceLocation{display_name, line, 0}, "",
                        "expected " + std::to_string(header.size()) + " comma-separated fields " +
                            "as in the header, found " + std::to_string(fields.size()));
      continue;
    }
    const Field& arrival = fields[static_cast<size_t>(position[0])];
    Request request;
    request.id = static_cast<int64_t>(plan.requests.size());
    double seconds = 0.0;
    bool ok = true;
    if (!parse_seconds(arrival.text, seconds) || seconds > kMaxArrivalSeconds) {
      diagnostics.error(
          SourceLocation{display_name, line, arrival.column}, kColumns[0],
          "expected a number of seconds in [0, 1e9], found '" + std::string(arrival.text) + "'");
      ok = false;
    } else if (seconds < previous_arrival) {
      diagnostics.error(SourceLocation{display_name, line, arrival.column}, kColumns[0],
                        "arrivals must be in non-decreasing order; " + std::string(arrival.text) +
                            " s comes after a request at " + std::to_string(previous_arrival) +
                            " s");
      ok = false;
    } else {
      previous_arrival = seconds;
    }
    int64_t counts[2] = {0, 0};
    for (size_t c = 1; c < kColumns.size(); ++c) {
      const Field& field = fields[static_cast<size_t>(position[c])];
      int64_t& value = counts[c - 1];
      if (!parse_count(field.text, value) || value < 1 || value > limits.max_tokens_per_request) {
        diagnostics.error(SourceLocation{display_name, line, field.column}, kColumns[c],
                          "expected an integer number of tokens in [1, " +
                              std::to_string(limits.max_tokens_per_request) + "], found '" +
                              std::string(field.text) + "'");
        ok = false;
      }
    }
    if (!ok) continue;
    request.arrival = Duration(seconds);
    request.input_tokens = counts[0];
    request.output_tokens = counts[1];
    request.line = line;
    plan.requests.push_back(request);
  }
  diagnostics.throw_if_any();
  plan.source = display_name;
  if (plan.requests.empty()) {
    throw InputError(SourceLocation{display_name, 0, 0}, "",
                     "request trace has a header but no requests");
  }
  return plan;
}

RequestPlan read_request_trace(const std::string& path, const TraceLimits& limits) {
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (!error && size > static_cast<std::uintmax_t>(limits.max_file_bytes)) {
    throw InputError(SourceLocation{path, 0, 0}, "",
                     "request trace is " + std::to_string(size) +
                         " bytes, more than the limit of " + std::to_string(limits.max_file_bytes));
  }
  return parse_request_trace(read_text_file(path), path, limits);
}

}  // namespace scoville::workloads
