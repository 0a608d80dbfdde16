// A library kernel a serving stack runs for some ops on some chips, priced from its own measured
// behaviour instead of the chip model's (docs/software.md, "Kernel paths"). The chip model prices
// an op as a well-tuned kernel would run it; where a stack has no such kernel for a format on a
// chip, it falls back to a slower one, and that is software, not silicon.
//
// The one kind modelled: a grouped routed-expert GEMM over weight-only quantized experts that
// dequantizes the weights in the kernel (W4A16). Two measured limits, either or both:
// - a weight-pass rate: the kernel dequantizes each expert's weight tile once per block of
//   `block_rows` tokens routed to it (the Triton fused_moe_kernel_gptq_awq of vLLM and SGLang on
//   ROCm), so its time is the weight values it dequantizes, (experts touched) x ceil(tokens per
//   expert / block_rows) x n x k, passed at a measured rate: per decode step, once per touched
//   expert whatever the batch, which is why a sparse MoE decodes far slower through it than its
//   weight bytes alone would take;
// - a matrix rate: the FLOP/s the kernel reaches once the math binds it. A mixed-input kernel
//   that widens 4-bit weights in registers before a BF16 MMA (Marlin on Hopper) is bound by
//   instruction issue, most of its instructions dequantizing, so a prefill's expert GEMMs run
//   far below the chip's BF16 matrix peak while a decode step's stay bound by HBM (the chip
//   model's time, which the pricer keeps where it is longer).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/number_format.hpp"
#include "sim/base/units.hpp"
#include "workloads/op.hpp"

namespace scoville::serving {

struct KernelPath {
  std::string name;  // e.g. "triton-fused-moe-wna16"
  // The routed-expert matmuls (Sharding::kExpertColumns, kExpertRows) whose experts are stored
  // in this format take the path.
  NumberFormat weights = NumberFormat::kInt4;
  int64_t block_rows = 64;  // tokens of one expert per weight pass (the kernel's BLOCK_SIZE_M)
  // Weight bytes (in `weights`' format) passed through the dequantizer per second, over every
  // block's pass: the kernel's measured throughput on the chip. Zero: no such limit.
  Bandwidth weight_pass_bandwidth;
  // The op's FLOPs (2 x m x n x k per expert) per second once the math binds the kernel: its
  // measured rate on the chip. Zero: no such limit.
  FlopRate matrix_rate;
};

// Whether `path` prices `op`.
bool takes_path(const KernelPath& path, const workloads::Op& op);
// The first path of `paths` that prices `op`; nullptr when none does.
const KernelPath* path_for(const std::vector<KernelPath>& paths, const workloads::Op& op);
// The op's time through the path: the longer of instances x ceil(m / block_rows) weight passes
// of n x k values each at weight_pass_bandwidth, and 2 x instances x m x n x k FLOPs at
// matrix_rate (a limit that is zero does not count). `op.m` is the tokens per expert touched
// (rounded up, as the workload and fuse_ops() give it).
Duration kernel_path_time(const KernelPath& path, const workloads::Op& op);

}  // namespace scoville::serving
