#include "sim/serving/kernel_path.hpp"

#include <algorithm>

namespace scoville::serving {

bool takes_path(const KernelPath& path, const workloads::Op& op) {
  return op.kind == workloads::OpKind::kMatmul && op.weight_format == path.weights &&
         (op.sharding == workloads::Sharding::kExpertColumns ||
          op.sharding == workloads::Sharding::kExpertRows);
}

const KernelPath* path_for(const std::vector<KernelPath>& paths, const workloads::Op& op) {
  for (const KernelPath& path : paths) {
    if (takes_path(path, op)) return &path;
  }
  return nullptr;
}

Duration kernel_path_time(const KernelPath& path, const workloads::Op& op) {
  if (op.m <= 0 || op.n <= 0 || op.k <= 0 || op.instances <= 0) return Duration(0);
  const double values_per_expert = static_cast<double>(op.n) * static_cast<double>(op.k);
  double seconds = 0.0;
  if (path.weight_pass_bandwidth.si() > 0) {
    const int64_t rows = std::max<int64_t>(1, path.block_rows);
    const int64_t passes = op.instances * ((op.m + rows - 1) / rows);
    const double bytes =
        static_cast<double>(passes) * values_per_expert * bytes_per_value(op.weight_format);
    seconds = bytes / path.weight_pass_bandwidth.si();
  }
  if (path.matrix_rate.si() > 0) {
    const double flops =
        2.0 * static_cast<double>(op.instances) * static_cast<double>(op.m) * values_per_expert;
    seconds = std::max(seconds, flops / path.matrix_rate.si());
  }
  return Duration(seconds);
}

}  // namespace scoville::serving
