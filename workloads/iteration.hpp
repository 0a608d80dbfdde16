// One iteration of a model: its shape (what the serving layer asks for) and the ops it expands to.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/op.hpp"

namespace scoville::workloads {

enum class Phase { kPrefill, kDecode };
std::string to_string(Phase phase);

// Prefill: `batch` sequences of `new_tokens` prompt tokens each (context_before = 0 unless the
// prompt is chunked). Decode: `batch` sequences, one new token each, attending to `context`
// tokens (the cached ones plus the new one).
struct IterationShape {
  Phase phase = Phase::kDecode;
  int64_t batch = 1;
  int64_t new_tokens = 1;  // per sequence: prompt length (prefill) or 1 (decode)
  int64_t context = 0;     // per sequence: tokens attended to, including the new ones
};

struct IterationTrace {
  IterationShape shape;
  std::vector<Op> ops;  // in execution order

  Flops total_flops() const;
  Bytes total_weight_bytes() const;
  Bytes total_kv_read_bytes() const;
  Bytes total_kv_write_bytes() const;
  int64_t tokens() const { return shape.batch * shape.new_tokens; }
};

}  // namespace scoville::workloads
