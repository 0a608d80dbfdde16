// Expanding one iteration of a model into ops (shapes, FLOPs, bytes), in execution order:
//   embedding; per layer: attn_norm, attention projections, attn_rope, attention, attn_softmax,
//   attn_out, attn_residual, ffn_norm, FFN (dense or MoE), ffn_residual;
//   then final_norm, lm_head, sampling; then each MTP module (mtp_layers > 0): mtp_embedding,
//   mtp_enorm, mtp_hnorm, mtp_eh_proj, one MoE layer (index layers() + i), mtp_final_norm,
//   lm_head, sampling.
// Whole-model work on one logical device: parallel mappings split these ops later.
//
// Counting rules (see decompose.cpp for the per-op details):
//  - matmul FLOPs = 2 m n k per instance; weight bytes = parameters read once per iteration.
//  - projections, norms, FFN and experts see the tokens of all sequences together.
//  - attention is per sequence and causal: new token i of a sequence scores
//    min(context_before + i + 1, window) keys; FLOPs = 2 (QK^T) + 2 (PV) per scored pair and head
//    dimension. Sequences of equal shape share one attention op (instances = sequences x KV
//    heads); a mixed batch has one attention op (and softmax) per distinct sequence shape.
//  - KV read = cached tokens some new token attends to (tokens of this iteration are on chip);
//    KV write = the new tokens' entries.
//  - MLA: decode sequences run the weight-absorbed form (W_UK folded into the query, W_UV into
//    the output: attention over the 512 + 64 latent as one KV head shared by all heads), prefill
//    chunks the non-absorbed form (the cached latent of the whole attended context is
//    up-projected to per-head K and V, then ordinary multi-head attention). Each form is the
//    cheaper one for its shape, as DeepSeek's and vLLM's kernels choose.
//  - MoE: by default the experts touched follow moe_routing.hpp (expectation) with the pairs
//    split evenly; with a drawn RoutingConfig (routing_distribution.hpp) each layer draws its
//    tokens per expert. Expert FLOPs always count the real token-expert pairs.
//  - LM head runs on the last token of each prefill sequence, on every new token of a decode one.
#pragma once

#include "workloads/batch_shape.hpp"
#include "workloads/iteration.hpp"
#include "workloads/model_config.hpp"
#include "workloads/routing_distribution.hpp"

namespace scoville::workloads {

struct DecomposeOptions {
  RoutingConfig routing;  // default: the expectation, no draw
};

// Throws std::invalid_argument for an impossible shape (batch or new_tokens < 1, or context <
// new_tokens): shapes come from the serving layer, not from a user's file.
IterationTrace decompose_iteration(const ModelConfig& model, const IterationShape& shape);

// A mixed batch (chunked prefill beside decodes). Throws std::invalid_argument for an empty
// batch, a sequence with new_tokens < 1 or context < new_tokens, or a routing config the model
// cannot use (routing_config_problem()).
BatchTrace decompose_batch(const ModelConfig& model, const BatchShape& shape,
                           const DecomposeOptions& options = {});

}  // namespace scoville::workloads
