#include "sim/engine/lowering.hpp"

#include "sim/base/error.hpp"

namespace scoville::engine {

namespace {
models::WorkClass work_class_of(workloads::OpKind kind) {
  switch (kind) {
    case workloads::OpKind::kMatmul:
      return models::WorkClass::kMatmul;
    case workloads::OpKind::kAttention:
      return models::WorkClass::kAttention;
    case workloads::OpKind::kVector:
    case workloads::OpKind::kMemory:  // no math: its cost is the memory traffic alone
      return models::WorkClass::kVector;
  }
  return models::WorkClass::kVector;
}
}  // namespace

models::WorkDescriptor lower(const workloads::Op& op, const models::ChipParams& chip) {
  models::WorkDescriptor w;
  w.label = op.name;
  w.work_class = work_class_of(op.kind);
  w.m = op.m;
  w.n = op.n;
  w.k = op.k;
  w.instances = op.instances;
  if (w.work_class != models::WorkClass::kVector) {
    const auto executed = chip.executed_precision(op.math);
    if (!executed) {
      throw InputError(SourceLocation{chip.name, 0, 0}, "chip.tiles.matrix_engine.k_per_cycle",
                       "op '" + op.name + "' needs " + to_string(op.math) +
                           " math or wider, which this chip's matrix engine does not support");
    }
    w.math = *executed;
  }
  w.flops = op.flops;
  w.stream_bytes = op.weight_bytes + op.kv_read_bytes;
  w.hbm_write_bytes = op.kv_write_bytes;
  w.activation_in_bytes = op.activation_in_bytes;
  w.activation_out_bytes = op.activation_out_bytes;
  return w;
}

}  // namespace scoville::engine
