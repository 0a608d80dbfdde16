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

struct Op {
  std::string name;  // e.g. "attn_qkv", "moe_experts", "lm_head"
  int layer = -1;    // transformer layer index; -1 for embedding, final norm, LM head, sampling
  OpKind kind = OpKind::kVector;

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
  Bytes kv_read_bytes;         // KV cache read
  Bytes kv_write_bytes;        // KV cache appended by this iteration
  Bytes activation_in_bytes;   // activations consumed
  Bytes activation_out_bytes;  // activations produced

  // Routed-expert matmuls only: the tokens each instance (expert touched) multiplies, one entry
  // per instance, summing to the token-expert pairs. m stays their mean rounded up (the shape a
  // grouped kernel tiles); the largest entry is the straggler. Empty for every other op.
  std::vector<int64_t> tokens_per_instance;
};

}  // namespace scoville::workloads
