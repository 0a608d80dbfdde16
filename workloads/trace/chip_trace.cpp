#include "workloads/trace/chip_trace.hpp"

namespace scoville::workloads {

std::string to_string(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return "all_reduce";
    case CollectiveKind::kAllGather:
      return "all_gather";
    case CollectiveKind::kReduceScatter:
      return "reduce_scatter";
    case CollectiveKind::kAllToAll:
      return "all_to_all";
    case CollectiveKind::kBroadcast:
      return "broadcast";
    case CollectiveKind::kSend:
      return "send";
    case CollectiveKind::kRecv:
      return "recv";
  }
  return "unknown";
}

std::string to_string(TraceNodeKind kind) {
  return kind == TraceNodeKind::kCompute ? "compute" : "collective";
}

}  // namespace scoville::workloads
