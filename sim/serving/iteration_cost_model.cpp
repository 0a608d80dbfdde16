#include "sim/serving/iteration_cost_model.hpp"

namespace scoville::serving {

std::string to_string(PoolRole role) {
  switch (role) {
    case PoolRole::kColocated:
      return "colocated";
    case PoolRole::kPrefill:
      return "prefill";
    case PoolRole::kDecode:
      return "decode";
  }
  return "unknown";
}

int64_t IterationBatch::prefill_tokens() const {
  int64_t n = 0;
  for (const SequenceWork& s : sequences)
    n += s.phase == SequencePhase::kPrefill ? s.new_tokens : 0;
  return n;
}

int64_t IterationBatch::decode_tokens() const {
  int64_t n = 0;
  for (const SequenceWork& s : sequences) n += s.phase == SequencePhase::kDecode ? s.new_tokens : 0;
  return n;
}

int64_t IterationBatch::decode_sequences() const {
  int64_t n = 0;
  for (const SequenceWork& s : sequences) n += s.phase == SequencePhase::kDecode ? 1 : 0;
  return n;
}

}  // namespace scoville::serving
