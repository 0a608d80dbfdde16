#include "sim/serving/efficiency_knobs.hpp"

namespace scoville::serving {

const char* to_string(OpClass c) {
  switch (c) {
    case OpClass::kGemm:
      return "gemm";
    case OpClass::kAttention:
      return "attention";
    case OpClass::kOther:
      return "other";
  }
  return "other";
}

OpClass op_class(workloads::OpKind kind) {
  switch (kind) {
    case workloads::OpKind::kMatmul:
      return OpClass::kGemm;
    case workloads::OpKind::kAttention:
      return OpClass::kAttention;
    case workloads::OpKind::kVector:
    case workloads::OpKind::kMemory:
      return OpClass::kOther;
  }
  return OpClass::kOther;
}

bool EfficiencyKnobs::identity() const {
  for (int c = 0; c < kOpClassCount; ++c) {
    if (compute[static_cast<size_t>(c)] != 1.0 || bandwidth[static_cast<size_t>(c)] != 1.0) {
      return false;
    }
  }
  return per_op.si() == 0.0 && per_iteration.si() == 0.0 && per_sequence.si() == 0.0;
}

}  // namespace scoville::serving
