#include "workloads/mapping/expert_placement.hpp"

#include <numeric>
#include <stdexcept>
#include <string>

namespace scoville::workloads {

namespace {

double d(int64_t v) { return static_cast<double>(v); }

void check(const std::vector<int64_t>& tokens_per_expert, int64_t ep) {
  const int64_t experts = static_cast<int64_t>(tokens_per_expert.size());
  if (ep < 1 || experts < ep || experts % ep != 0) {
    throw std::invalid_argument("expert placement: " + std::to_string(experts) +
                                " experts over ep " + std::to_string(ep) +
                                ": expected ep to divide the experts");
  }
}

}  // namespace

std::vector<RankExpertLoad> rank_expert_loads(const std::vector<int64_t>& tokens_per_expert,
                                              int64_t ep) {
  check(tokens_per_expert, ep);
  const size_t per_rank = tokens_per_expert.size() / static_cast<size_t>(ep);
  std::vector<RankExpertLoad> loads(static_cast<size_t>(ep));
  for (size_t e = 0; e < tokens_per_expert.size(); ++e) {
    RankExpertLoad& load = loads[e / per_rank];
    load.pairs += tokens_per_expert[e];
    load.touched += tokens_per_expert[e] > 0 ? 1 : 0;
  }
  return loads;
}

Op rank_expert_op(const Op& replica, const std::vector<int64_t>& tokens_per_expert, int64_t ep,
                  int64_t rank) {
  check(tokens_per_expert, ep);
  if (rank < 0 || rank >= ep) throw std::invalid_argument("expert placement: rank out of range");
  const size_t per_rank = tokens_per_expert.size() / static_cast<size_t>(ep);
  std::vector<int64_t> mine;
  for (size_t e = static_cast<size_t>(rank) * per_rank;
       e < (static_cast<size_t>(rank) + 1) * per_rank; ++e) {
    if (tokens_per_expert[e] > 0) mine.push_back(tokens_per_expert[e]);
  }
  const int64_t all_pairs =
      std::accumulate(tokens_per_expert.begin(), tokens_per_expert.end(), int64_t{0});
  const int64_t pairs = std::accumulate(mine.begin(), mine.end(), int64_t{0});
  const int64_t touched = static_cast<int64_t>(mine.size());
  Op op = replica;
  // FLOPs and activations are linear in the pairs (decompose.cpp counts real pairs).
  const double share = all_pairs > 0 ? d(pairs) / d(all_pairs) : 0.0;
  op.flops = op.flops * share;
  op.activation_in_bytes = op.activation_in_bytes * share;
  op.activation_out_bytes = op.activation_out_bytes * share;
  op.kv_read_bytes = op.kv_read_bytes * share;
  op.kv_write_bytes = op.kv_write_bytes * share;
  if (replica.kind == OpKind::kMatmul) {
    // One instance per expert touched, each with the same weights.
    const double per_expert = replica.instances > 0 ? 1.0 / d(replica.instances) : 0.0;
    op.weight_bytes = replica.weight_bytes * (per_expert * d(touched));
    op.instances = touched;
    op.m = touched > 0 ? (pairs + touched - 1) / touched : 0;
    op.tokens_per_instance = mine;
  } else {
    // The SwiGLU between the two matmuls: elementwise work over the rank's pairs.
    op.weight_bytes = replica.weight_bytes * share;
    op.instances = touched > 0 ? replica.instances : 0;
    op.tokens_per_instance.clear();
  }
  return op;
}

}  // namespace scoville::workloads
