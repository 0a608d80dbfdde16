#include "workloads/batch_shape.hpp"

#include <algorithm>

namespace scoville::workloads {

int64_t BatchShape::tokens() const {
  int64_t total = 0;
  for (const SequenceShape& s : sequences) total += s.new_tokens;
  return total;
}

BatchShape BatchShape::uniform(const IterationShape& shape) {
  BatchShape batch;
  batch.sequences.assign(static_cast<size_t>(std::max<int64_t>(shape.batch, 0)),
                         SequenceShape{shape.phase, shape.new_tokens, shape.context});
  return batch;
}

namespace {
template <class T>
T sum_of(const std::vector<Op>& ops, T Op::*field) {
  T total{};
  for (const Op& op : ops) total += op.*field;
  return total;
}
}  // namespace

Flops BatchTrace::total_flops() const { return sum_of(ops, &Op::flops); }
Bytes BatchTrace::total_weight_bytes() const { return sum_of(ops, &Op::weight_bytes); }
Bytes BatchTrace::total_kv_read_bytes() const { return sum_of(ops, &Op::kv_read_bytes); }
Bytes BatchTrace::total_kv_write_bytes() const { return sum_of(ops, &Op::kv_write_bytes); }

double BatchTrace::max_imbalance() const {
  double most = 0.0;
  for (const LayerRouting& r : routing) most = std::max(most, r.imbalance);
  return most;
}

}  // namespace scoville::workloads
