#include "sim/validation/stack_bounds.hpp"

#include <algorithm>
#include <cstdio>

namespace scoville::validation {

const std::vector<SoftwareRange>& software_ranges() {
  static const std::vector<SoftwareRange> ranges = {
      {"per_op_overhead", 0.0, 3e-6,
       "0-3 us per kernel: [VENDOR] NVIDIA blog 'Getting Started with CUDA Graphs' measures 0.5 us "
       "of gap per kernel node in a graph (3.4 us per 2.9 us kernel); [ASSUMPTION] up to 3 us "
       "for launch gaps and kernel tails together, about an eager launch, which a stack replaying "
       "graphs does not exceed"},
      {"per_iteration_overhead", 0.0, 0.5e-3,
       "0-0.5 ms per step: [MEAS] vLLM with CUDA graphs and an overlapped scheduler leaves a "
       "150-170 us gap per step at batch 256 (vllm-project/vllm PR #11133); TensorRT-LLM's "
       "overlap scheduler launches step n+1 before the host processes step n (TensorRT-LLM docs, "
       "'Overlap Scheduler'); [ASSUMPTION] 3x that gap as the ceiling (without overlap vLLM v0 "
       "showed 4-13 ms bubbles, vllm-project/vllm issue #6854: not these stacks)"},
      {"per_sequence_overhead", 0.0, 5e-6,
       "0-5 us per sequence: [MEAS] vLLM V1's update_from_output alone costs 0.142 ms at batch "
       "128 and 0.287 ms at batch 256, 1.1 us per request (vllm-project/vllm PR #46112); "
       "[ASSUMPTION] up to about four such per-request passes per step (schedule, input "
       "preparation, sampling, output processing) where the overlap does not hide them; vLLM v0 "
       "without overlap spent about 100 us per request (20 ms at batch 200, vllm-project/vllm "
       "issue #6801), not these stacks"},
  };
  return ranges;
}

std::vector<serving::KnobSpec> stack_knob_bounds(const serving::SoftwareOverheads& own) {
  std::vector<serving::KnobSpec> bounds;
  for (const SoftwareRange& r : software_ranges()) {
    const double charged = r.knob == "per_op_overhead"          ? own.per_op_launch.si()
                           : r.knob == "per_iteration_overhead" ? own.per_iteration.si()
                                                                : own.per_sequence.si();
    serving::KnobSpec spec = serving::knob_spec(r.knob);
    spec.lo = std::max(0.0, r.lo - charged);
    spec.hi = std::max(spec.lo + 1e-9, r.hi - charged);  // a non-empty interval to search
    bounds.push_back(spec);
  }
  return bounds;
}

std::string stack_bounds_text() {
  std::string out;
  for (const SoftwareRange& r : software_ranges()) {
    out += (out.empty() ? "" : "; ") + r.knob + " (total with the stack file's own): " + r.source;
  }
  return out;
}

}  // namespace scoville::validation
