#include "sim/serving/iteration_explanation.hpp"

namespace scoville::serving {

std::string to_string(OpBound bound) {
  switch (bound) {
    case OpBound::kHbm:
      return "hbm";
    case OpBound::kCompute:
      return "compute";
    case OpBound::kKernelPath:
      return "kernel path";
  }
  return "hbm";
}

Duration IterationExplanation::parts_total() const {
  double s = host_kv_reads.si();
  for (const OpTime& op : ops) s += op.total().si();
  for (const CollectiveTime& c : collectives) s += c.total().si();
  for (const SoftwareTime& w : software) s += w.total().si();
  return Duration(s);
}

}  // namespace scoville::serving
