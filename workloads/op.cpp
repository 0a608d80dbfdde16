#include "workloads/op.hpp"
#include "workloads/iteration.hpp"

namespace scoville::workloads {

std::string to_string(OpKind kind) {
  switch (kind) {
    case OpKind::kMatmul:
      return "matmul";
    case OpKind::kAttention:
      return "attention";
    case OpKind::kVector:
      return "vector";
    case OpKind::kMemory:
      return "memory";
  }
  return "vector";
}

std::string to_string(Phase phase) { return phase == Phase::kPrefill ? "prefill" : "decode"; }

Flops IterationTrace::total_flops() const {
  Flops total;
  for (const Op& op : ops) total += op.flops;
  return total;
}
Bytes IterationTrace::total_weight_bytes() const {
  Bytes total;
  for (const Op& op : ops) total += op.weight_bytes;
  return total;
}
Bytes IterationTrace::total_kv_read_bytes() const {
  Bytes total;
  for (const Op& op : ops) total += op.kv_read_bytes;
  return total;
}
Bytes IterationTrace::total_kv_write_bytes() const {
  Bytes total;
  for (const Op& op : ops) total += op.kv_write_bytes;
  return total;
}

}  // namespace scoville::workloads
