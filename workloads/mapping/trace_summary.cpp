#include "workloads/mapping/trace_summary.hpp"

namespace scoville::workloads {

WorkTotals& WorkTotals::operator+=(const WorkTotals& o) {
  flops += o.flops;
  weight_bytes += o.weight_bytes;
  kv_bytes += o.kv_bytes;
  collective_bytes += o.collective_bytes;
  return *this;
}

WorkTotals WorkTotals::operator*(double k) const {
  return WorkTotals{flops * k, weight_bytes * k, kv_bytes * k, collective_bytes * k};
}

std::map<int, WorkTotals> per_layer_totals(const ChipTrace& trace) {
  std::map<int, WorkTotals> layers;
  for (const TraceNode& node : trace.nodes) {
    WorkTotals& t = layers[node.layer];
    if (node.kind == TraceNodeKind::kCompute) {
      t.flops += node.op.flops;
      t.weight_bytes += node.op.weight_bytes;
      t.kv_bytes += node.op.kv_read_bytes + node.op.kv_write_bytes;
    } else {
      t.collective_bytes += node.collective.bytes;
    }
  }
  return layers;
}

WorkTotals totals(const ChipTrace& trace) {
  WorkTotals sum;
  for (const auto& [layer, t] : per_layer_totals(trace)) sum += t;
  return sum;
}

}  // namespace scoville::workloads
