// A mixed iteration: sequences at their own phase, new-token count and context (chunked-prefill
// chunks beside decodes), and the ops it expands to with the routing it drew.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/iteration.hpp"
#include "workloads/op.hpp"

namespace scoville::workloads {

// One sequence of a batch. Prefill: a chunk of `new_tokens` prompt tokens after
// context - new_tokens already cached; the LM head runs on its last token. Decode: `new_tokens`
// generated (or draft) tokens, each given logits. `context` counts the new tokens too.
struct SequenceShape {
  Phase phase = Phase::kDecode;
  int64_t new_tokens = 1;
  int64_t context = 1;

  friend bool operator==(const SequenceShape& a, const SequenceShape& b) {
    return a.phase == b.phase && a.new_tokens == b.new_tokens && a.context == b.context;
  }
};

struct BatchShape {
  std::vector<SequenceShape> sequences;

  int64_t tokens() const;  // new tokens over all sequences

  // The uniform batch decompose_iteration() takes, as sequences.
  static BatchShape uniform(const IterationShape& shape);
};

// Routing of one MoE layer in one iteration.
struct LayerRouting {
  int layer = -1;
  int64_t experts_touched = 0;
  int64_t max_tokens = 0;    // busiest expert
  double mean_tokens = 0.0;  // token-expert pairs / routed experts
  double imbalance = 0.0;    // max_tokens / mean_tokens; 1 is perfect balance
};

struct BatchTrace {
  BatchShape shape;
  std::vector<Op> ops;                // in execution order
  std::vector<LayerRouting> routing;  // one per MoE layer, in layer order

  Flops total_flops() const;
  Bytes total_weight_bytes() const;
  Bytes total_kv_read_bytes() const;
  Bytes total_kv_write_bytes() const;
  double max_imbalance() const;  // over layers; 0 for a dense model
};

}  // namespace scoville::workloads
