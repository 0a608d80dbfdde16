// Memory each chip of a mapped iteration needs: its resident weight shard, the KV cache of the
// sequences it attends over, and a peak activation working set; what is left of its HBM for
// KV cache; and a fit check. docs/mapping.md gives the formulas.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/units.hpp"
#include "workloads/mapping/map_iteration.hpp"
#include "workloads/model_config.hpp"

namespace scoville::workloads {

// Per chip of one role (every rank of the role needs the same).
struct MemoryFootprint {
  std::string role;
  int64_t multiplicity = 1;
  Bytes hbm;                 // capacity of one chip
  Bytes weights;             // resident parameters: the whole shard, not just what is read
  Bytes kv_cache;            // KV entries of this iteration's sequences on this chip
  Bytes activations;         // peak working set: largest op's inputs + outputs + residual stream
  Bytes kv_bytes_per_token;  // one more token of context in every layer this chip holds
  Bytes kv_capacity;         // hbm - weights - activations (0 when negative)
  // kv_capacity / kv_bytes_per_token, rounded down: token slots of every KV layer. A sequence
  // longer than a sliding window or chunk fills fewer slots than its context in those layers,
  // so this is not how long a context fits; kv_capacity_sequences is.
  int64_t kv_capacity_tokens = 0;
  // What one more sequence of the iteration's context needs on this chip: each KV layer's
  // stored context (min(context, window or chunk)) plus its fixed state.
  Bytes kv_bytes_per_sequence;
  int64_t kv_capacity_sequences = 0;  // kv_capacity / kv_bytes_per_sequence, rounded down
  // One more sequence's fixed-size state on this chip (linear-attention layers it holds, the
  // state's heads split over the attention ranks); 0 for a model without linear layers.
  Bytes state_bytes_per_sequence;

  Bytes needed() const { return weights + kv_cache + activations; }
  bool fits() const { return needed() <= hbm; }
};

std::vector<MemoryFootprint> memory_footprint(const ModelConfig& model,
                                              const MappedIteration& mapped, Bytes hbm);

// Throws one InputError (at mapped.mapping.where) giving, for every role that does not fit,
// the bytes needed per chip with their parts and the HBM available.
void check_fit(const MappedIteration& mapped, const std::vector<MemoryFootprint>& footprints);

}  // namespace scoville::workloads
