// One operation of a transformer iteration, as the hardware models need it: shape, math
// precision, FLOPs and the bytes it moves. Knows nothing of hardware.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/number_format.hpp"
#include "sim/base/units.hpp"

namespace scoville::workloads {

enum class OpKind {
  // instances x ([m x k] activations * [k x n] weights); weights streamed from memory.
  kMatmul,
  // instances x attention units: m query rows against n keys of head size k (QK^T then PV);
  // the keys/values (kv_read_bytes) are streamed from memory.
  kAttention,
  // Elementwise or reduction work on the vector unit (norms, activations, softmax, routing,
  // residual adds, sampling); cost given by `flops`.
  kVector,
  // A plain transfer between memory and the chip with no math (imported from Chakra MEM_LOAD /
  // MEM_STORE nodes): bytes read in kv_read_bytes, bytes written in kv_write_bytes, the fields
  // that already count memory traffic besides weights.
  kMemory,
};

std::string to_string(OpKind kind);

// How the parallel mapper (workloads/mapping/map_iteration.cpp) splits an op over the ranks of a
// pool, declared where the op is created (decompose.cpp). The mapper dispatches on this alone and
// refuses an op that declares none (kUnset), so a new op kind cannot be priced by accident as
// another one. docs/mapping.md gives each rule's split and collectives.
enum class Sharding {
  kUnset,  // no rule: map_iteration() refuses the op, naming it
  // Attention block, on the attention group's own sequences.
  kVocabLookup,          // embedding: table rows split over attn_tp, an all-reduce fills in
  kAttentionNorm,        // pre-attention norm (sequence parallel: token shards, then gathered)
  kAttentionResidual,    // residual add after attention (sequence parallel: token shards)
  kQkvColumns,           // fused Q(+gate), K, V projection: columns split by local query/KV heads
  kHeadColumns,          // column-parallel over attn_tp (per-head outputs; also the LM head)
  kHeadInstances,        // one instance per head (or head x sequence): instances split over attn_tp
  kHeadElementwise,      // vector work, weights and state over heads: all split over attn_tp
  kRotary,               // RoPE on the local query and KV heads
  kAttentionCore,        // scores and values: query heads and KV heads split over attn_tp
  kQueryHeadVector,      // vector work per query head (softmax, output gate): split like them
  kOutputRows,           // row-parallel output projection; partial sums reduced over attn_tp
  kAttentionReplicated,  // every attention rank runs it whole (MLA latents, DSA indexer, a sort)
  // FFN block. Dense layers, or MoE layers without expert parallelism: Megatron tensor
  // parallelism over tp on the replica's tokens. MoE layers with ep > 1: everything but the
  // routed experts on the rank's owned tokens; routed experts split by whole experts over ep.
  kFfnNorm,            // pre-FFN norm (and the attention-DP / sequence-parallel gathers)
  kFfnResidual,        // residual add after the FFN (and the FFN's reductions)
  kFfnColumns,         // gate/up projections: column-parallel over tp
  kFfnRows,            // down projection: row-parallel over tp
  kFfnElementwise,     // activation between them: split with the columns
  kFfnReplicated,      // router, top-k, combine, MTP glue: every rank whole (EP: owned tokens)
  kExpertColumns,      // routed experts' gate/up (EP: dispatched to the experts' ranks)
  kExpertRows,         // routed experts' down (EP: combined back)
  kExpertElementwise,  // routed experts' activation
  // Head, on the last stage (the embedding on the first).
  kHeadNorm,       // final norm before the LM head
  kVocabSampling,  // vocab-parallel sampling: each rank its logits, then an all-gather of the best
};
std::string to_string(Sharding sharding);

// What an op's cache bytes (kv_read_bytes, kv_write_bytes) are: per-token keys and values that
// grow with the context, a fixed-size recurrent state per sequence (linear attention), or the
// DSA indexer's per-token keys. Memory placement and reporting tell them apart by this.
enum class CacheUse { kNone, kKvCache, kRecurrentState, kIndexerKeys };
std::string to_string(CacheUse use);

struct Op {
  std::string name;  // e.g. "attn_qkv", "moe_experts", "lm_head"
  int layer = -1;    // transformer layer index; -1 for embedding, final norm, LM head, sampling
  OpKind kind = OpKind::kVector;
  Sharding sharding = Sharding::kUnset;  // how a parallel mapping splits it
  CacheUse cache = CacheUse::kNone;      // what kv_read_bytes / kv_write_bytes hold

  // Shape per instance. kMatmul: activations [m x k], weights [k x n]. kAttention: m query rows
  // (heads sharing one KV head x new tokens), n keys (context length), k head dimension.
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  int64_t instances = 1;  // experts touched, or sequences x KV heads for attention

  NumberFormat weight_format = NumberFormat::kBf16;  // format of streamed operands (weights/KV)
  MathPrecision math = MathPrecision::kBf16;         // precision the math is meant to run at

  Flops flops;                 // total over all instances (multiply-add = 2 FLOP)
  Bytes weight_bytes;          // parameters read (streamed from memory once per iteration)
  Bytes kv_read_bytes;         // KV cache (or state, indexer keys: `cache`) read
  Bytes kv_write_bytes;        // KV cache appended (or state written back) by this iteration
  Bytes activation_in_bytes;   // activations consumed
  Bytes activation_out_bytes;  // activations produced

  // Routed-expert matmuls only: the tokens each instance (expert touched) multiplies, one entry
  // per instance, summing to the token-expert pairs. m stays their mean rounded up (the shape a
  // grouped kernel tiles); the largest entry is the straggler. Empty for every other op.
  std::vector<int64_t> tokens_per_instance;
};

}  // namespace scoville::workloads
