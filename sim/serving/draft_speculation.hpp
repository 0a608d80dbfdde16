// Draft-model speculative decoding (vLLM's and TensorRT-LLM's draft-target mode), beside MTP:
// each decode step a small draft model proposes `depth` tokens one at a time, then the target
// verifies the depth + 1 positions in one pass. The scheduler's MTP accounting (depth, acceptance
// per position, serving_config.hpp) decides how many tokens a step yields; this cost model adds
// what the draft costs on the same chips, before the target's pass:
//   - the draft prefills every prompt chunk the target prefills (it needs the same context);
//   - `depth` autoregressive passes, one position per decoding sequence each, the i-th attending
//     to the sequence's context plus the i drafts before it.
// The draft's passes and the target's run one after the other (no overlap): an upper bound on
// the time a real draft-target pipeline takes.
#pragma once

#include <cstdint>
#include <memory>

#include "sim/serving/iteration_cost_model.hpp"

namespace scoville::serving {

class DraftSpeculationCostModel final : public IterationCostModel {
 public:
  // `depth` >= 1 draft tokens per decode step (the scheduler's mtp.depth).
  DraftSpeculationCostModel(std::unique_ptr<IterationCostModel> target,
                            std::unique_ptr<IterationCostModel> draft, int64_t depth);
  IterationCost cost(const IterationBatch& batch) const override;

 private:
  std::unique_ptr<IterationCostModel> target_;
  std::unique_ptr<IterationCostModel> draft_;
  int64_t depth_;
};

}  // namespace scoville::serving
