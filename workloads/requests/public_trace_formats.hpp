// Request traces in the public formats people have, read into a RequestPlan:
//   - Azure LLM inference traces (Azure/AzurePublicDataset, AzureLLMInferenceTrace_{code,conv}.csv
//     2023 and *_1week.csv 2024): CSV `TIMESTAMP,ContextTokens,GeneratedTokens`, TIMESTAMP a
//     wall-clock time "2023-11-16 18:15:46.6805900" (2024: optionally with a "+00:00" offset).
//   - BurstGPT (HPMLL/BurstGPT, BurstGPT_*.csv): CSV `Timestamp,Model,Request tokens,Response
//     tokens,Total tokens,Log Type` (v2 adds `Session ID` and `Elapsed time`); Timestamp in
//     seconds.
//   - Mooncake (kvcache-ai/Mooncake, mooncake_trace.jsonl): one JSON object per line with
//     `timestamp` (ms since the first request), `input_length`, `output_length`, `hash_ids`.
//   - Scoville's own CSV `arrival_s,input_tokens,output_tokens` (request_trace_reader.hpp).
// The format is detected from the first line (a JSON object, or the CSV header's names) or given.
// Arrivals are seconds from the trace's first request; a selection keeps a window of them, at
// most N requests, and scales time. Rows are read one at a time and reading stops at the end of
// the window or the row limit, so a multi-GB public trace is never held in memory.
//
// Refused, each with file, line, column and what was expected: a malformed or negative number, a
// timestamp that is not a date and time, an arrival earlier than the row before, a missing
// column or key. Rows with zero input or output tokens (BurstGPT's failed requests) are valid
// rows of those traces but nothing to replay: they are skipped and counted in
// RequestPlan::skipped_rows.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>

#include "workloads/requests/request.hpp"
#include "workloads/requests/request_trace_reader.hpp"

namespace scoville::workloads {

enum class TraceFormat { kAuto, kScoville, kAzure, kBurstGpt, kMooncake };

std::string to_string(TraceFormat format);
// "auto", "scoville", "azure", "burstgpt", "mooncake"; nullopt for anything else.
std::optional<TraceFormat> trace_format_from_name(const std::string& name);
// From the first non-blank, non-comment line; nullopt when it is none of the known headers.
std::optional<TraceFormat> detect_trace_format(std::string_view first_line);

struct TraceSelection {
  // Arrivals (after the window's shift) are multiplied by this: 0.5 replays twice as fast.
  double time_scale = 1.0;
  // Seconds from the trace's first request: requests arriving in [start, end) are kept, shifted
  // so that the window starts at 0.
  double window_start_s = 0.0;
  std::optional<double> window_end_s;
  int64_t max_requests = 0;  // 0: every request in the window

  bool selects_all() const {
    return time_scale == 1.0 && window_start_s == 0.0 && !window_end_s && max_requests == 0;
  }
};

// Throws InputError (bad selection: key "time_scale", "window_start", ...).
void check_selection(const TraceSelection& selection, const std::string& display_name);

// Reads a trace of any format (kAuto: detected). A Scoville CSV is read as
// read_request_trace reads it; the selection then applies to it as to the others.
RequestPlan read_trace_file(const std::string& path, TraceFormat format,
                            const TraceSelection& selection, const TraceLimits& limits = {});
// Same from a stream; `display_name` stands for the file name in errors.
RequestPlan parse_trace_stream(std::istream& in, const std::string& display_name,
                               TraceFormat format, const TraceSelection& selection,
                               const TraceLimits& limits = {});

// Seconds since 1970-01-01 00:00:00 UTC of "YYYY-MM-DD HH:MM:SS[.fraction][Z|+HH:MM|-HH:MM]"
// ('T' also separates date and time), split into whole seconds and the fraction so that
// differences keep the fraction's 100 ns digits. nullopt when the text is not such a time.
struct WallClock {
  int64_t seconds = 0;
  double fraction = 0.0;  // [0, 1)
};
std::optional<WallClock> parse_wall_clock(std::string_view text);

}  // namespace scoville::workloads
