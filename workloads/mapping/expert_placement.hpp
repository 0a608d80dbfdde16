// Expert parallelism under a drawn MoE routing (routing_distribution.hpp): which EP rank holds
// which routed experts, and the expert ops each rank then runs. Under the expected routing every
// rank gets an even share (map_iteration's instance_split); under a draw the ranks differ, and
// the most loaded one decides the layer's time.
//
// Placement: contiguous, experts / ep per rank, expert e on rank e / (experts / ep) (vLLM's and
// SGLang's default linear placement without an expert-placement load balancer). With a Zipf draw
// the hottest experts (the lowest indices) then share rank 0: the worst case a balancer (EPLB)
// exists to fix.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/op.hpp"

namespace scoville::workloads {

// The routed-expert load of one EP rank in one layer.
struct RankExpertLoad {
  int64_t pairs = 0;    // token-expert pairs routed to the rank's experts
  int64_t touched = 0;  // its experts that receive at least one token
};

// Per EP rank (size ep), from the tokens each expert receives (size experts, experts % ep == 0).
std::vector<RankExpertLoad> rank_expert_loads(const std::vector<int64_t>& tokens_per_expert,
                                              int64_t ep);

// The routed-expert op `replica` (moe_experts_gate_up, moe_experts_act or moe_experts_down over
// the whole replica's tokens, as decompose_iteration builds it: FLOPs and activations count all
// tokens x top_k pairs, weights every expert it touches, each expert's weights equal) as EP rank
// `rank` runs it under the drawn `tokens_per_expert`: the rank's touched experts as instances, m
// their mean token count rounded up, tokens_per_instance their real counts, FLOPs and activations
// from the rank's pairs, weights of its touched experts only. A rank none of whose experts
// receives a token gets an op with no work (instances 0, zero FLOPs and bytes).
Op rank_expert_op(const Op& replica, const std::vector<int64_t>& tokens_per_expert, int64_t ep,
                  int64_t rank);

}  // namespace scoville::workloads
