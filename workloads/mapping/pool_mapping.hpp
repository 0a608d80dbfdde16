// How one pool of chips (the prefill pool, the decode pool, or one co-located pool) lays a model
// out: its chip count and parallel degrees, checked against the model. docs/mapping.md describes
// what each degree does to each op.
//
// Layout (TensorRT-LLM's convention, which vLLM's and SGLang's flags map onto):
//   chips = dp x pp x tp. A DP replica holds the whole model; each of its pp stages holds a
//   contiguous block of layers on a group of tp chips. Inside that group:
//   - attention runs attn_dp-way data parallel and attn_tp = tp / attn_dp-way tensor parallel
//     (attn_dp = tp is SGLang's --enable-dp-attention / TRT-LLM's enable_attention_dp);
//   - dense FFNs (and MoE layers with ep = 1) run tp-way tensor parallel;
//   - MoE layers with ep > 1 run their routed experts ep-way expert parallel; this version
//     supports ep = tp only (moe_tp = 1), the layout the DeepSeek / gpt-oss deployments use;
//   - sequence_parallel (attn_dp = 1 only) replaces all-reduces by reduce-scatter + all-gather.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "workloads/model_config.hpp"
#include "workloads/trace/chip_trace.hpp"

namespace scoville::workloads {

struct PoolMapping {
  std::string pool = "default";  // "prefill", "decode", or one name for a co-located pool
  int64_t chips = 1;
  ParallelDegrees degrees;
  // Where the mapping came from (a file position or "<command line>"), for error messages.
  SourceLocation where;
  // The pool's first chip on the system's network; -1: right after the previous pool (pools
  // sit on consecutive chips, the first at chip 0). Set only by `scoville validate`, to put a
  // published deployment's decode pool on whole nodes, and read by the roofline serving engine
  // (collectives and KV hand-over). Mapping files cannot set it, so the SystemC paths, which
  // place pools consecutively, never see one.
  int64_t first_chip = -1;

  int64_t attn_tp() const { return degrees.tp / degrees.attn_dp; }
};

// The first chip of each pool (PoolMapping::first_chip, or right after the previous pool).
// Throws InputError at the pool's `where` when an explicit first chip would overlap the pool
// before it.
std::vector<int64_t> pool_first_chips(const std::vector<PoolMapping>& pools);

// One entry per pool; prefill and decode pools may differ.
struct MappingConfig {
  std::vector<PoolMapping> pools;

  // Throws InputError listing the pools there are when `pool` is not one of them.
  const PoolMapping& pool(const std::string& name) const;
};

// Checks the degrees against the model and the chip count; every violation is reported at once
// in one InputError located at mapping.where, with the numbers involved:
//   all degrees >= 1; dp x pp x tp = chips; tp divides the attention heads; KV heads: tp divides
//   them, or (tp > kv_heads) kv_heads divides tp and each KV head is replicated on
//   tp / kv_heads ranks as vLLM does; attn_dp divides tp and the attention-TP size divides the
//   heads; ep divides the routed experts and is 1 or tp (1 for a dense model); pp <= layers;
//   sequence_parallel needs attn_dp = 1.
void validate_mapping(const ModelConfig& model, const PoolMapping& mapping);

}  // namespace scoville::workloads
