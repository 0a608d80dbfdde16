// A benchmark request as the client sees it: when it becomes available to send and how many tokens
// go in and come out. No prompt text: Scoville's requests are random tokens, as InferenceX's are,
// so there is no prefix reuse between them unless a trace says so (Mooncake's hash_ids) or the
// scheduler's prefix cache is given a hit rate (sim/serving/serving_config.hpp).
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
  // The prompt's blocks of kPrefixBlockTokens tokens, as ids: two requests sharing the leading
  // ids share that prefix (Mooncake's `hash_ids`). Empty: unknown.
  std::vector<int64_t> prefix_blocks;
};

// Tokens per prefix block id: Mooncake's traces hash 512-token blocks (the AIPerf / AISBench
// mooncake_trace readers' default block size, github.com/AISBench/benchmark
// configs/datasets/mooncake_trace/README.md: "each hash_id corresponds to a block of 512 tokens").
inline constexpr int64_t kPrefixBlockTokens = 512;

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
