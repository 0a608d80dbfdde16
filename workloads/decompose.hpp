// Expanding one iteration of a model into ops (shapes, FLOPs, bytes), in execution order:
//   embedding; per layer: attn_norm, attention projections, attn_rope, attention, attn_softmax,
//   attn_out, attn_residual, ffn_norm, FFN (dense or MoE), ffn_residual;
//   then final_norm, lm_head, sampling.
// Whole-model work on one logical device: parallel mappings split these ops later.
//
// Counting rules (see decompose.cpp for the per-op details):
//  - matmul FLOPs = 2 m n k per instance; weight bytes = parameters read once per iteration.
//  - attention is causal: new token i of a sequence scores min(context_before + i + 1, window)
//    keys; FLOPs = 2 (QK^T) + 2 (PV) per scored pair and head dimension.
//  - KV read = cached tokens some new token attends to (tokens of this iteration are on chip);
//    KV write = the new tokens' entries.
//  - MoE experts touched follow moe_routing.hpp; expert FLOPs count the real token-expert pairs.
//  - LM head runs on the last token of each sequence in prefill, on every new token in decode.
#pragma once

#include "workloads/iteration.hpp"
#include "workloads/model_config.hpp"

namespace scoville::workloads {

// Throws std::invalid_argument for an impossible shape (batch or new_tokens < 1, or context <
// new_tokens): shapes come from the serving layer, not from a user's file.
IterationTrace decompose_iteration(const ModelConfig& model, const IterationShape& shape);

}  // namespace scoville::workloads
