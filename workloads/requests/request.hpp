// A benchmark request as the client sees it: when it becomes available to send and how many tokens
// go in and come out. No prompt text: Scoville's requests are random tokens, as InferenceX's are,
// so there is no prefix reuse between them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/units.hpp"

namespace scoville::workloads {

struct Request {
  int64_t id = 0;             // index in the plan, 0-based
  Duration arrival;           // when the client may send it, from the start of the benchmark
  int64_t input_tokens = 1;   // prompt length (ISL), >= 1
  int64_t output_tokens = 1;  // tokens to generate (OSL), >= 1; generation never stops early
  int line = 0;               // its line in the request file (0: generated, not read)
};

// What the benchmark client sends. A request is sent at its arrival time, or later when
// `max_concurrency` requests are already in flight: then it waits (FIFO) for one to finish, as
// vLLM benchmark_serving's semaphore does. A closed loop of N clients is every request arriving at
// time 0 with max_concurrency = N.
struct RequestPlan {
  std::vector<Request> requests;  // in send order; arrivals non-decreasing
  int64_t max_concurrency = 0;    // 0: unlimited (pure open loop)
  std::string source;             // the request file the requests were read from (or empty)
  std::string format;             // its format (public_trace_formats.hpp), or empty
  int64_t skipped_rows = 0;       // rows of a public trace with zero tokens (failed requests)
};

}  // namespace scoville::workloads
