// The published ranges the per-stack fit (stack_fit.hpp) keeps a GPU serving stack's software
// time inside: totals per kernel, per iteration and per sequence (the stack file's own value plus
// the fitted knob), each with its source. A knob's bounds are the range less what the stack file
// already charges, never below 0: the knobs add to the stack file, they do not replace it.
#pragma once

#include <string>
#include <vector>

#include "sim/serving/knob_fit.hpp"
#include "sim/serving/roofline_cost_model.hpp"

namespace scoville::validation {

struct SoftwareRange {
  std::string knob;       // per_op_overhead, per_iteration_overhead or per_sequence_overhead
  double lo = 0, hi = 0;  // the total's range (s)
  std::string source;     // where the range comes from
};

// The ranges of stacks that replay CUDA graphs and overlap host work with the GPU (TensorRT-LLM,
// vLLM V1, SGLang, their ROCm builds, Dynamo over them).
const std::vector<SoftwareRange>& software_ranges();

// The knob bounds for a stack whose file charges `own`: [max(0, lo - own), max(0, hi - own)].
std::vector<serving::KnobSpec> stack_knob_bounds(const serving::SoftwareOverheads& own);

// One line: each knob's total range and its source.
std::string stack_bounds_text();

}  // namespace scoville::validation
