// Request trace CSV: one request per line, a header naming the columns
//   arrival_s,input_tokens,output_tokens
// (any order, no others). arrival_s is seconds from the start of the benchmark (a non-negative
// decimal, non-decreasing down the file); the token counts are positive integers. Blank lines
// and lines starting with '#' are skipped. Every problem is reported as file:line:col with the
// column's name and what was expected; all problems in the file are collected before throwing.
#pragma once

#include <cstdint>
#include <string>

#include "workloads/requests/request.hpp"

namespace scoville::workloads {

// Refused up front, before any request is built: a trace longer than max_requests lines is
// refused on the line count alone, and a file
// over max_file_bytes on its size.
struct TraceLimits {
  int64_t max_file_bytes = int64_t{1} << 30;  // checked on the file's size before reading it
  int64_t max_requests = 1'000'000;
  int64_t max_tokens_per_request = 10'000'000;  // input and output each
};

RequestPlan read_request_trace(const std::string& path, const TraceLimits& limits = {});
// Same, from text; `display_name` stands for the file name in errors.
RequestPlan parse_request_trace(const std::string& text, const std::string& display_name,
                                const TraceLimits& limits = {});

}  // namespace scoville::workloads
