// Per-layer totals of a chip trace (what `scoville trace` prints): FLOPs, weight bytes read, KV
// bytes (read + written) and collective bytes, per chip; and their sums.
#pragma once

#include <map>

#include "sim/base/units.hpp"
#include "workloads/trace/chip_trace.hpp"

namespace scoville::workloads {

struct WorkTotals {
  Flops flops;
  Bytes weight_bytes;
  Bytes kv_bytes;          // KV cache read + written
  Bytes collective_bytes;  // this chip's contribution (Collective::bytes), summed

  WorkTotals& operator+=(const WorkTotals& o);
  WorkTotals operator*(double k) const;
};

// Keyed by layer; -1 holds the embedding, final norm, LM head and sampling.
std::map<int, WorkTotals> per_layer_totals(const ChipTrace& trace);
WorkTotals totals(const ChipTrace& trace);

}  // namespace scoville::workloads
