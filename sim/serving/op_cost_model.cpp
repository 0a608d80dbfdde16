#include "sim/serving/op_cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace scoville::serving {

namespace {

workloads::Op scaled(const workloads::Op& op, double share) {
  workloads::Op out = op;
  if (share == 1.0) return out;
  out.flops = op.flops * share;
  out.kv_read_bytes = op.kv_read_bytes * share;
  out.kv_write_bytes = op.kv_write_bytes * share;
  out.activation_in_bytes = op.activation_in_bytes * share;
  out.activation_out_bytes = op.activation_out_bytes * share;
  // Rows of a part are whole tokens; the FLOPs above stay exact.
  out.m = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(static_cast<double>(op.m) * share)));
  out.tokens_per_instance.clear();
  return out;
}

}  // namespace

workloads::Op fuse_ops(const std::vector<OpShare>& parts) {
  if (parts.empty()) throw std::invalid_argument("fuse_ops: no parts");
  workloads::Op out = scaled(*parts.front().op, parts.front().share);
  if (parts.size() == 1) return out;
  for (size_t i = 1; i < parts.size(); ++i) {
    const workloads::Op part = scaled(*parts[i].op, parts[i].share);
    if (part.kind != out.kind) throw std::invalid_argument("fuse_ops: parts of different kinds");
    out.flops += part.flops;
    out.kv_read_bytes += part.kv_read_bytes;
    out.kv_write_bytes += part.kv_write_bytes;
    out.activation_in_bytes += part.activation_in_bytes;
    out.activation_out_bytes += part.activation_out_bytes;
    out.weight_bytes = std::max(out.weight_bytes, part.weight_bytes);
    out.instances = std::max(out.instances, part.instances);
    out.m += part.m;
  }
  out.tokens_per_instance.clear();
  if (out.kind == workloads::OpKind::kMatmul && out.n > 0 && out.k > 0 && out.instances > 0) {
    // Experts touched by the fused op are at most the sum of the parts'; taking the most any part
    // touched keeps the kernel's shape when the parts route alike (the common case).
    const double per_instance =
        out.flops.si() / (2.0 * static_cast<double>(out.n) * static_cast<double>(out.k) *
                          static_cast<double>(out.instances));
    out.m = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(per_instance - 1e-9)));
  }
  return out;
}

}  // namespace scoville::serving
