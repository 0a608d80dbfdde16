#include "sim/serving/draft_speculation.hpp"

#include <stdexcept>
#include <utility>

namespace scoville::serving {

namespace {

// Adds `part`'s time and energy to `total` (and their power parts when both have them).
void add_cost(IterationCost& total, const IterationCost& part) {
  total.time = total.time + part.time;
  total.energy = total.energy + part.energy;
  if (total.power && part.power) {
    total.power->energy += part.power->energy;
    total.power->clock_bound_time = total.power->clock_bound_time + part.power->clock_bound_time;
  } else {
    total.power.reset();  // a part the controller cannot re-price: the pool is priced as it is
  }
}

}  // namespace

DraftSpeculationCostModel::DraftSpeculationCostModel(std::unique_ptr<IterationCostModel> target,
                                                     std::unique_ptr<IterationCostModel> draft,
                                                     int64_t depth)
    : target_(std::move(target)), draft_(std::move(draft)), depth_(depth) {
  if (!target_ || !draft_) throw std::invalid_argument("draft speculation: a cost model is null");
  if (depth_ < 1) throw std::invalid_argument("draft speculation: depth must be at least 1");
}

IterationCost DraftSpeculationCostModel::cost(const IterationBatch& batch) const {
  IterationCost draft;
  draft.power = IterationPowerParts{};
  for (int64_t pass = 0; pass < depth_; ++pass) {
    IterationBatch b = batch;
    b.sequences.clear();
    for (const SequenceWork& s : batch.sequences) {
      if (s.phase == SequencePhase::kPrefill) {
        if (pass == 0) b.sequences.push_back(s);  // the draft's own prefill of the chunk
        continue;
      }
      SequenceWork w = s;  // one draft position, after the drafts before it
      w.new_tokens = 1;
      w.context_before = s.context_before + pass;
      w.context_after = w.context_before + 1;
      b.sequences.push_back(w);
    }
    if (!b.sequences.empty()) add_cost(draft, draft_->cost(b));
  }
  IterationCost total = target_->cost(batch);
  const Duration draft_time = draft.time;
  add_cost(total, draft);
  total.breakdown.push_back({"draft model", draft_time});
  return total;
}

}  // namespace scoville::serving
