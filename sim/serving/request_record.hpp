// What the benchmark client observes of one request, in simulated time from the benchmark start,
// and the metrics vLLM's benchmark_serving derives from it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/base/units.hpp"

namespace scoville::serving {

struct RequestRecord {
  int64_t id = 0;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  Duration arrival;      // when the client could send it (plan)
  Duration sent;         // when it was sent (later than arrival when max_concurrency held it)
  Duration first_token;  // when the client received the first output token
  Duration finished;     // when the client received the last output token
  // Gaps between successive deliveries after the first token. One entry per delivery, as vLLM's
  // streaming client records one per chunk: an MTP step that yields several tokens is one entry.
  std::vector<Duration> itl;
  int64_t preemptions = 0;  // times this request's KV was dropped and recomputed

  Duration ttft() const { return first_token - sent; }
  Duration e2el() const { return finished - sent; }
  // (e2el - ttft) / (output_tokens - 1); undefined for a single output token, as in vLLM.
  std::optional<Duration> tpot() const {
    if (output_tokens < 2) return std::nullopt;
    return (finished - first_token) / static_cast<double>(output_tokens - 1);
  }
};

}  // namespace scoville::serving
