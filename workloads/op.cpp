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

std::string to_string(Sharding sharding) {
  switch (sharding) {
    case Sharding::kUnset:
      return "unset";
    case Sharding::kVocabLookup:
      return "vocab_lookup";
    case Sharding::kAttentionNorm:
      return "attention_norm";
    case Sharding::kAttentionResidual:
      return "attention_residual";
    case Sharding::kQkvColumns:
      return "qkv_columns";
    case Sharding::kHeadColumns:
      return "head_columns";
    case Sharding::kHeadInstances:
      return "head_instances";
    case Sharding::kHeadElementwise:
      return "head_elementwise";
    case Sharding::kRotary:
      return "rotary";
    case Sharding::kAttentionCore:
      return "attention_core";
    case Sharding::kQueryHeadVector:
      return "query_head_vector";
    case Sharding::kOutputRows:
      return "output_rows";
    case Sharding::kAttentionReplicated:
      return "attention_replicated";
    case Sharding::kFfnNorm:
      return "ffn_norm";
    case Sharding::kFfnResidual:
      return "ffn_residual";
    case Sharding::kFfnColumns:
      return "ffn_columns";
    case Sharding::kFfnRows:
      return "ffn_rows";
    case Sharding::kFfnElementwise:
      return "ffn_elementwise";
    case Sharding::kFfnReplicated:
      return "ffn_replicated";
    case Sharding::kExpertColumns:
      return "expert_columns";
    case Sharding::kExpertRows:
      return "expert_rows";
    case Sharding::kExpertElementwise:
      return "expert_elementwise";
    case Sharding::kHeadNorm:
      return "head_norm";
    case Sharding::kVocabSampling:
      return "vocab_sampling";
  }
  return "unset";
}

std::string to_string(CacheUse use) {
  switch (use) {
    case CacheUse::kNone:
      return "none";
    case CacheUse::kKvCache:
      return "kv_cache";
    case CacheUse::kRecurrentState:
      return "recurrent_state";
    case CacheUse::kIndexerKeys:
      return "indexer_keys";
  }
  return "none";
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
