#include "workloads/requests/public_trace_formats.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>
#include <utility>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/utf8.hpp"
#include "sim/base/yaml_reader.hpp"
#include "workloads/requests/csv_fields.hpp"

namespace scoville::workloads {
namespace {

using Field = CsvField;

// Past this many bad rows the reader stops: the first ones say what is wrong with the file.
constexpr size_t kMaxErrors = 20;
// Arrivals past about 31 years would leave no precision for an iteration's microseconds (the
// same bound as request_trace_reader.cpp).
constexpr double kMaxArrivalSeconds = 1e9;
constexpr double kMsPerSecond = 1e3;

// Column names as the public datasets spell them (their READMEs and published files):
//   Azure: github.com/Azure/AzurePublicDataset, AzureLLMInferenceDataset2023.md and 2024.md.
//   BurstGPT: github.com/HPMLL/BurstGPT README ("Timestamp", "Model", "Request tokens",
//   "Response tokens", "Total tokens", "Log Type"; v2 adds "Session ID", "Elapsed time").
//   Mooncake: github.com/kvcache-ai/Mooncake, mooncake_trace.jsonl ("timestamp" in ms,
//   "input_length", "output_length", "hash_ids").
struct CsvColumns {
  const char* time;
  const char* input;
  const char* output;
};
constexpr CsvColumns kAzureColumns = {"TIMESTAMP", "ContextTokens", "GeneratedTokens"};
constexpr CsvColumns kBurstGptColumns = {"Timestamp", "Request tokens", "Response tokens"};
constexpr std::array<const char*, 3> kMooncakeKeys = {"timestamp", "input_length", "output_length"};

std::string_view without_bom(std::string_view s) {
  return s.substr(0, 3) == "\xEF\xBB\xBF" ? s.substr(3) : s;
}

// A whole field as a finite, non-negative decimal (no sign, hex, nan or inf spellings).
bool parse_decimal(std::string_view text, double& out) {
  if (text.empty() || text.front() == '-' || text.find_first_of("xXnNiI+") != std::string::npos) {
    return false;
  }
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size() && std::isfinite(out);
}

bool digits(std::string_view text, size_t at, size_t n, int& out) {
  if (at + n > text.size()) return false;
  out = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    out = out * 10 + (text[i] - '0');
  }
  return true;
}

// Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant, "chrono-Compatible Low-Level
// Date Algorithms", days_from_civil).
int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int days_in_month(int y, int m) {
  constexpr std::array<int, 12> kDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[static_cast<size_t>(m - 1)];
}

// Where the accepted requests go: the checks every format shares (order, window, zero-token
// rows, limits) and the stop conditions.
class RowSink {
 public:
  RowSink(const std::string& name, const TraceSelection& selection, const TraceLimits& limits,
          RequestPlan& plan, Diagnostics& diagnostics)
      : name_(name), sel_(selection), limits_(limits), plan_(plan), diag_(diagnostics) {}

  // t: seconds from the trace's start. Returns false when reading should stop.
  bool add(double t, int line, const Field& time, const std::string& time_key, int64_t input,
           int64_t output, std::vector<int64_t> prefix_blocks = {}) {
    if (t < previous_) {
      char text[64];
      std::snprintf(text, sizeof text, "%.9g", previous_);
      diag_.error({name_, line, time.column}, time_key,
                  "arrivals must be in non-decreasing order; '" + std::string(time.text) +
                      "' comes before the row above it (" + text + " s from the trace's start)");
      return diag_.size() < kMaxErrors;
    }
    previous_ = t;
    if (t < sel_.window_start_s) return true;
    if (sel_.window_end_s && t >= *sel_.window_end_s) return false;
    if (input == 0 || output == 0) {
      ++plan_.skipped_rows;
      return true;
    }
    if (static_cast<int64_t>(plan_.requests.size()) >= limits_.max_requests) {
      diag_.error({name_, line, 0}, "",
                  "more than " + std::to_string(limits_.max_requests) +
                      " requests selected; choose a window or a row limit");
      return false;
    }
    Request r;
    r.id = static_cast<int64_t>(plan_.requests.size());
    r.arrival = Duration((t - sel_.window_start_s) * sel_.time_scale);
    r.input_tokens = input;
    r.output_tokens = output;
    r.line = line;
    r.prefix_blocks = std::move(prefix_blocks);
    plan_.requests.push_back(r);
    return sel_.max_requests == 0 ||
           static_cast<int64_t>(plan_.requests.size()) < sel_.max_requests;
  }

  // A token count: a non-negative integer up to the limit (zero: a row to skip).
  bool tokens(std::string_view text, int line, int column, const std::string& key, int64_t& value) {
    if (parse_count(text, value) && value >= 0 && value <= limits_.max_tokens_per_request) {
      return true;
    }
    diag_.error({name_, line, column}, key,
                "expected an integer number of tokens in [0, " +
                    std::to_string(limits_.max_tokens_per_request) + "], found '" +
                    std::string(text) + "'");
    return false;
  }

  bool arrival_in_range(double t, int line, const Field& time, const std::string& key) {
    if (t <= kMaxArrivalSeconds) return true;
    diag_.error({name_, line, time.column}, key,
                "arrival " + std::string(time.text) +
                    " is more than 1e9 s after the trace's first request");
    return false;
  }

  bool more_errors_allowed() const { return diag_.size() < kMaxErrors; }

 private:
  const std::string& name_;
  const TraceSelection& sel_;
  const TraceLimits& limits_;
  RequestPlan& plan_;
  Diagnostics& diag_;
  double previous_ = 0.0;
};

// The first data line's time is the trace's start.
struct Origin {
  bool set = false;
  WallClock clock;
  double seconds = 0.0;
};

class LineSource {
 public:
  LineSource(std::istream& in, const std::string& name) : in_(in), name_(name) {}

  bool next(std::string& line) {
    if (!std::getline(in_, line)) return false;
    ++number_;
    if (number_ == 1) line = std::string(without_bom(line));
    const size_t bad = first_invalid_utf8(line);
    if (bad != std::string::npos) {
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(line[bad]));
      throw InputError(SourceLocation{name_, number_, static_cast<int>(bad) + 1}, "",
                       std::string("not valid UTF-8 (byte ") + byte + "); save the file as UTF-8");
    }
    return true;
  }
  int number() const { return number_; }

 private:
  std::istream& in_;
  const std::string& name_;
  int number_ = 0;
};

void read_csv(LineSource& lines, const std::string& header_line, int header_number,
              const std::string& name, TraceFormat format, RowSink& sink,
              Diagnostics& diagnostics) {
  const CsvColumns names = format == TraceFormat::kAzure ? kAzureColumns : kBurstGptColumns;
  const std::vector<Field> header = split_csv_fields(header_line);
  std::array<int, 3> position = {-1, -1, -1};
  const std::array<const char*, 3> wanted = {names.time, names.input, names.output};
  for (size_t f = 0; f < header.size(); ++f) {
    for (size_t c = 0; c < wanted.size(); ++c) {
      if (header[f].text == wanted[c]) position[c] = static_cast<int>(f);
    }
  }
  for (size_t c = 0; c < wanted.size(); ++c) {
    if (position[c] < 0) {
      diagnostics.error({name, header_number, 0}, wanted[c],
                        "missing column in the " + to_string(format) +
                            " header (expected the columns " + names.time + ", " + names.input +
                            " and " + names.output + ")");
    }
  }
  diagnostics.throw_if_any();

  Origin origin;
  std::string line;
  while (lines.next(line)) {
    if (skipped_line(line)) continue;
    const int n = lines.number();
    const std::vector<Field> fields = split_csv_fields(line);
    if (fields.size() != header.size()) {
      diagnostics.error({name, n, 0}, "",
                        "expected " + std::to_string(header.size()) +
                            " comma-separated fields as in the header, found " +
                            std::to_string(fields.size()));
      if (!sink.more_errors_allowed()) return;
      continue;
    }
    const Field& time = fields[static_cast<size_t>(position[0])];
    const Field& in = fields[static_cast<size_t>(position[1])];
    const Field& out = fields[static_cast<size_t>(position[2])];
    double t = 0.0;
    bool ok = true;
    if (format == TraceFormat::kAzure) {
      const std::optional<WallClock> clock = parse_wall_clock(time.text);
      if (!clock) {
        diagnostics.error({name, n, time.column}, names.time,
                          "expected a date and time 'YYYY-MM-DD HH:MM:SS[.fraction]', found '" +
                              std::string(time.text) + "'");
        ok = false;
      } else {
        if (!origin.set) origin = {true, *clock, 0.0};
        t = static_cast<double>(clock->seconds - origin.clock.seconds) +
            (clock->fraction - origin.clock.fraction);
      }
    } else {
      double seconds = 0.0;
      if (!parse_decimal(time.text, seconds)) {
        diagnostics.error(
            {name, n, time.column}, names.time,
            "expected a non-negative number of seconds, found '" + std::string(time.text) + "'");
        ok = false;
      } else {
        if (!origin.set) origin = {true, {}, seconds};
        t = seconds - origin.seconds;
      }
    }
    if (ok) ok = sink.arrival_in_range(t, n, time, names.time);
    int64_t input = 0, output = 0;
    ok = sink.tokens(in.text, n, in.column, names.input, input) && ok;
    ok = sink.tokens(out.text, n, out.column, names.output, output) && ok;
    if (!ok) {
      if (!sink.more_errors_allowed()) return;
      continue;
    }
    if (!sink.add(t, n, time, names.time, input, output)) return;
  }
}

// The 1-based column of a node's value in its line.
int column_of(const YAML::Node& node) { return node.Mark().column + 1; }

void read_mooncake(LineSource& lines, std::string line, const std::string& name, RowSink& sink,
                   Diagnostics& diagnostics) {
  Origin origin;
  bool have = true;  // `line` holds the first data line
  while (have || lines.next(line)) {
    have = false;
    if (skipped_line(line)) continue;
    const int n = lines.number();
    YAML::Node row;
    try {
      row = YAML::Load(line);
    } catch (const YAML::Exception& e) {
      diagnostics.error({name, n, e.mark.column + 1}, "",
                        "expected one JSON object per line: " + e.msg);
      if (!sink.more_errors_allowed()) return;
      continue;
    }
    if (!row.IsMap()) {
      diagnostics.error({name, n, 1}, "", "expected one JSON object per line");
      if (!sink.more_errors_allowed()) return;
      continue;
    }
    bool ok = true;
    std::array<std::string, 3> text;
    std::array<int, 3> column = {1, 1, 1};
    for (size_t k = 0; k < kMooncakeKeys.size(); ++k) {
      const YAML::Node v = row[kMooncakeKeys[k]];
      if (!v) {
        diagnostics.error({name, n, 0}, kMooncakeKeys[k], "missing key");
        ok = false;
        continue;
      }
      column[k] = column_of(v);
      // A JSON string ("5") is tagged "!" by the YAML parser: a number must be a number.
      if (!v.IsScalar() || v.Tag() == "!") {
        diagnostics.error({name, n, column[k]}, kMooncakeKeys[k], "expected a JSON number");
        ok = false;
        continue;
      }
      text[k] = v.Scalar();
    }
    std::vector<int64_t> prefix_blocks;
    if (const YAML::Node hashes = row["hash_ids"]) {
      bool good = hashes.IsSequence();
      for (size_t i = 0; good && i < hashes.size(); ++i) {
        int64_t id = 0;
        good = hashes[i].IsScalar() && hashes[i].Tag() != "!" &&
               parse_count(hashes[i].Scalar(), id) && id >= 0;
        prefix_blocks.push_back(id);
      }
      if (!good) {
        diagnostics.error({name, n, column_of(hashes)}, "hash_ids",
                          "expected a list of non-negative integer block ids");
        ok = false;
      }
    }
    double ms = 0.0, t = 0.0;
    const Field time{text[0], column[0]};
    if (ok && !parse_decimal(text[0], ms)) {
      diagnostics.error({name, n, column[0]}, kMooncakeKeys[0],
                        "expected a non-negative number of milliseconds, found '" + text[0] + "'");
      ok = false;
    } else if (ok) {
      if (!origin.set) origin = {true, {}, ms};
      t = (ms - origin.seconds) / kMsPerSecond;
      ok = sink.arrival_in_range(t, n, time, kMooncakeKeys[0]);
    }
    int64_t input = 0, output = 0;
    if (!text[1].empty()) ok = sink.tokens(text[1], n, column[1], kMooncakeKeys[1], input) && ok;
    if (!text[2].empty()) ok = sink.tokens(text[2], n, column[2], kMooncakeKeys[2], output) && ok;
    if (!ok) {
      if (!sink.more_errors_allowed()) return;
      continue;
    }
    if (!sink.add(t, n, time, kMooncakeKeys[0], input, output, std::move(prefix_blocks))) return;
  }
}

// Keeps the selected requests of a plan read whole (Scoville's CSV): its own clock, arrival_s.
void select(RequestPlan& plan, const TraceSelection& sel) {
  std::vector<Request> kept;
  for (const Request& r : plan.requests) {
    const double t = r.arrival.si();
    if (t < sel.window_start_s) continue;
    if (sel.window_end_s && t >= *sel.window_end_s) break;
    Request k = r;
    k.id = static_cast<int64_t>(kept.size());
    k.arrival = Duration((t - sel.window_start_s) * sel.time_scale);
    kept.push_back(k);
    if (sel.max_requests > 0 && static_cast<int64_t>(kept.size()) == sel.max_requests) break;
  }
  plan.requests = std::move(kept);
}

std::string formats_expected() {
  return "expected a JSON object (Mooncake) or a CSV header with TIMESTAMP,ContextTokens,"
         "GeneratedTokens (Azure), Timestamp,...,Request tokens,Response tokens (BurstGPT) or "
         "arrival_s,input_tokens,output_tokens (Scoville); or choose the format";
}

}  // namespace

std::string to_string(TraceFormat format) {
  switch (format) {
    case TraceFormat::kAuto:
      return "auto";
    case TraceFormat::kScoville:
      return "scoville";
    case TraceFormat::kAzure:
      return "azure";
    case TraceFormat::kBurstGpt:
      return "burstgpt";
    case TraceFormat::kMooncake:
      return "mooncake";
  }
  return "auto";
}

std::optional<TraceFormat> trace_format_from_name(const std::string& name) {
  for (TraceFormat f : {TraceFormat::kAuto, TraceFormat::kScoville, TraceFormat::kAzure,
                        TraceFormat::kBurstGpt, TraceFormat::kMooncake}) {
    if (to_string(f) == name) return f;
  }
  return std::nullopt;
}

std::optional<TraceFormat> detect_trace_format(std::string_view first_line) {
  const std::string_view line = trim_field(without_bom(first_line));
  if (!line.empty() && line.front() == '{') return TraceFormat::kMooncake;
  const std::vector<Field> fields = split_csv_fields(line);
  const auto has = [&](std::string_view name) {
    return std::any_of(fields.begin(), fields.end(),
                       [&](const Field& f) { return f.text == name; });
  };
  if (has(kAzureColumns.time) && has(kAzureColumns.input) && has(kAzureColumns.output)) {
    return TraceFormat::kAzure;
  }
  if (has(kBurstGptColumns.time) && has(kBurstGptColumns.input) && has(kBurstGptColumns.output)) {
    return TraceFormat::kBurstGpt;
  }
  // Scoville's own names, or a header near them (its reader then suggests the right spelling).
  const std::vector<std::string> own = {"arrival_s", "input_tokens", "output_tokens"};
  for (const Field& f : fields) {
    if (!closest_match(std::string(f.text), own).empty()) return TraceFormat::kScoville;
  }
  return std::nullopt;
}

void check_selection(const TraceSelection& s, const std::string& display_name) {
  Diagnostics d;
  const SourceLocation where{display_name, 0, 0};
  if (!(s.time_scale > 0.0) || !std::isfinite(s.time_scale)) {
    d.error(where, "time_scale", "expected a positive factor on arrival times");
  }
  if (!(s.window_start_s >= 0.0) || !std::isfinite(s.window_start_s)) {
    d.error(where, "window_start", "expected a non-negative time");
  }
  if (s.window_end_s && !(*s.window_end_s > s.window_start_s)) {
    d.error(where, "window_end", "expected a time after window_start");
  }
  if (s.max_requests < 0) d.error(where, "max_requests", "expected 0 (all) or more");
  d.throw_if_any();
}

std::optional<WallClock> parse_wall_clock(std::string_view text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (!digits(text, 0, 4, y) || text.size() < 19 || text[4] != '-' || !digits(text, 5, 2, mo) ||
      text[7] != '-' || !digits(text, 8, 2, d) || (text[10] != ' ' && text[10] != 'T') ||
      !digits(text, 11, 2, h) || text[13] != ':' || !digits(text, 14, 2, mi) || text[16] != ':' ||
      !digits(text, 17, 2, s)) {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || s > 60) {
    return std::nullopt;
  }
  size_t at = 19;
  double fraction = 0.0;
  if (at < text.size() && text[at] == '.') {
    const size_t begin = at;
    ++at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
    if (at == begin + 1) return std::nullopt;
    const std::string_view f = text.substr(begin, at - begin);  // ".6805900"
    std::from_chars(f.data(), f.data() + f.size(), fraction);
  }
  int64_t offset = 0;
  if (at < text.size() && text[at] == 'Z') {
    ++at;
  } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
    int oh = 0, om = 0;
    if (!digits(text, at + 1, 2, oh) || at + 3 >= text.size() || text[at + 3] != ':' ||
        !digits(text, at + 4, 2, om) || oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset = (text[at] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
    at += 6;
  }
  if (at != text.size()) return std::nullopt;
  WallClock c;
  c.seconds = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - offset;
  c.fraction = fraction;
  return c;
}

RequestPlan parse_trace_stream(std::istream& in, const std::string& display_name,
                               TraceFormat format, const TraceSelection& selection,
                               const TraceLimits& limits) {
  check_selection(selection, display_name);
  LineSource lines(in, display_name);
  std::string first;
  std::string before;  // the lines before the header, kept for Scoville's whole-text reader
  int first_number = 0;
  while (lines.next(first)) {
    if (!skipped_line(first)) {
      first_number = lines.number();
      break;
    }
    before += first + "\n";
  }
  if (first_number == 0) {
    throw InputError(SourceLocation{display_name, 0, 0}, "",
                     "empty request trace: " + formats_expected());
  }
  if (format == TraceFormat::kAuto) {
    const std::optional<TraceFormat> detected = detect_trace_format(first);
    if (!detected) {
      throw InputError(SourceLocation{display_name, first_number, 1}, "",
                       "unknown request trace format: " + formats_expected());
    }
    format = *detected;
  }

  RequestPlan plan;
  if (format == TraceFormat::kScoville) {
    const std::string rest(std::istreambuf_iterator<char>(in), {});
    plan = parse_request_trace(before + first + "\n" + rest, display_name, limits);
    if (!selection.selects_all()) select(plan, selection);
  } else {
    Diagnostics diagnostics;
    RowSink sink(display_name, selection, limits, plan, diagnostics);
    if (format == TraceFormat::kMooncake) {
      read_mooncake(lines, first, display_name, sink, diagnostics);
    } else {
      read_csv(lines, first, first_number, display_name, format, sink, diagnostics);
    }
    if (diagnostics.size() >= kMaxErrors) {
      diagnostics.error({display_name, lines.number(), 0}, "",
                        "stopped reading after " + std::to_string(kMaxErrors) + " errors");
    }
    diagnostics.throw_if_any();
  }
  plan.source = display_name;
  plan.format = to_string(format);
  if (plan.requests.empty()) {
    throw InputError(SourceLocation{display_name, 0, 0}, "",
                     "no requests selected from the trace (" + std::to_string(plan.skipped_rows) +
                         " rows with zero tokens skipped); check the window and the format");
  }
  return plan;
}

RequestPlan read_trace_file(const std::string& path, TraceFormat format,
                            const TraceSelection& selection, const TraceLimits& limits) {
  if (std::filesystem::is_directory(path)) {
    throw InputError(SourceLocation{path, 0, 0}, "", "is a folder; expected a request trace file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(SourceLocation{path, 0, 0}, "", "cannot open the request trace");
  }
  if (format == TraceFormat::kAuto || format == TraceFormat::kScoville) {
    // Scoville's CSV keeps its reader's file-size check: it is read whole.
    std::string line;
    while (std::getline(in, line) && skipped_line(without_bom(line))) {
    }
    if (format == TraceFormat::kScoville || detect_trace_format(line) == TraceFormat::kScoville) {
      check_selection(selection, path);
      RequestPlan plan = read_request_trace(path, limits);
      if (!selection.selects_all()) select(plan, selection);
      plan.format = to_string(TraceFormat::kScoville);
      if (plan.requests.empty()) {
        throw InputError(SourceLocation{path, 0, 0}, "",
                         "no requests selected from the trace; check the window");
      }
      return plan;
    }
    in.clear();
    in.seekg(0);
  }
  return parse_trace_stream(in, path, format, selection, limits);
}

}  // namespace scoville::workloads
