#include "workloads/mapping/memory_footprint.hpp"

#include <algorithm>
#include <cmath>

#include "sim/base/error.hpp"
#include "sim/base/unit_parser.hpp"

namespace scoville::workloads {

namespace {

double d(int64_t v) { return static_cast<double>(v); }

// Parameters of one chip of `role`, in bytes (see docs/mapping.md, "Memory footprint").
Bytes resident_weights(const ModelConfig& model, const PoolMapping& mapping, const ChipRole& role) {
  const ParallelDegrees& deg = mapping.degrees;
  const int64_t attn_tp = mapping.attn_tp();
  const AttentionConfig& a = model.attention();
  const FfnConfig& f = model.ffn();
  const ParameterCounts& p = model.parameters();
  const double w = bytes_per_value(model.precision().weights);
  const double mlp = bytes_per_value(model.precision().mlp_format());
  const double e = bytes_per_value(model.precision().embeddings);
  const int64_t h = model.hidden_size();

  // Attention parameters split by heads, except those every attention-TP rank keeps whole:
  // replicated KV heads (GQA, tp > kv_heads) and MLA's latent down-projections and norms.
  double whole = 0.0;
  double kv = 0.0;
  if (a.type == AttentionType::kGqa) {
    kv = 2.0 * d(a.kv_heads) * d(a.head_dim) * (d(h) + (a.bias ? 1.0 : 0.0));
  } else {
    whole = d(h) * d(a.q_lora_rank) + d(h) * d(a.kv_lora_rank + a.qk_rope_head_dim) +
            d(a.q_lora_rank) + d(a.kv_lora_rank) + d(model.indexer_parameters_per_layer());
  }
  const double split = d(model.attention_parameters_per_layer()) - whole - kv;
  const double kv_share = d(std::max<int64_t>(1, a.kv_heads / attn_tp)) / d(a.kv_heads);
  const double attention = split / d(attn_tp) + whole + kv * kv_share;

  int64_t moe_layers = 0;
  for (int layer = 0; layer < model.layers(); ++layer) moe_layers += model.layer_is_moe(layer);
  const bool ep = deg.ep > 1;

  // Gated DeltaNet: every part split by heads over attn_tp (its one shared norm weight too, a
  // rounding of head_v_dim values).
  const double linear = d(model.linear_attention_parameters_per_layer()) / d(attn_tp);

  Bytes total;
  const StageLayers layers = stage_layers(model, deg.pp, role.stage);
  for (int layer = layers.first; layer < layers.last; ++layer) {
    const bool is_linear = !model.layer_has_kv(layer);
    double values = (is_linear ? linear : attention) + 2.0 * d(h);  // + the two norms
    if (model.layer_is_moe(layer)) {
      values += d(p.router) / d(moe_layers);
      total += Bytes(d(p.shared_experts) / d(moe_layers) / (ep ? 1.0 : d(deg.tp)) * mlp);
      total += model.routed_expert_weight_bytes() * (d(f.experts) / d(ep ? deg.ep : deg.tp));
    } else {
      total += Bytes(d(model.dense_ffn_parameters_per_layer()) / d(deg.tp) * mlp);
    }
    total += Bytes(values * w);
  }
  const bool first = role.stage == 0;
  const bool last = role.stage == deg.pp - 1;
  const Bytes table(d(p.embedding) * e / d(attn_tp));
  if (first) total += table;
  if (last) {
    total += Bytes(d(h) * w);  // final norm
    if (!model.tied_embeddings()) total += Bytes(d(p.lm_head) * e / d(attn_tp));
    if (model.tied_embeddings() && !first) total += table;  // the last stage keeps its own copy
  }
  return total;
}

std::string b(Bytes v) { return format_si(v.si(), "B"); }

}  // namespace

std::vector<MemoryFootprint> memory_footprint(const ModelConfig& model,
                                              const MappedIteration& mapped, Bytes hbm) {
  const PoolMapping& mapping = mapped.mapping;
  const AttentionConfig& a = model.attention();
  const double kv_share = d(std::max<int64_t>(1, a.kv_heads / mapping.attn_tp())) / d(a.kv_heads);
  const Bytes kv_row = model.kv_bytes_per_token_per_layer() * kv_share;
  const Bytes state_row = model.state_bytes_per_layer() / d(mapping.attn_tp());
  const double act = bytes_per_value(model.precision().activations);

  std::vector<MemoryFootprint> result;
  for (const ChipRole& role : mapped.roles) {
    MemoryFootprint m;
    m.role = role.trace.role;
    m.multiplicity = role.trace.multiplicity;
    m.hbm = hbm;
    m.weights = resident_weights(model, mapping, role);
    const StageLayers layers = stage_layers(model, mapping.degrees.pp, role.stage);
    for (int layer = layers.first; layer < layers.last; ++layer) {
      if (!model.layer_has_kv(layer)) {
        // A fixed state per sequence, its heads split over the attention ranks.
        m.kv_cache += state_row * d(role.attn_batch);
        m.state_bytes_per_sequence += state_row;
        continue;
      }
      m.kv_bytes_per_token += kv_row;
      const double stored = d(model.stored_context(layer, mapped.shape.context));
      m.kv_bytes_per_sequence += kv_row * stored;
      m.kv_cache += kv_row * (d(role.attn_batch) * stored);
    }
    m.kv_bytes_per_sequence += m.state_bytes_per_sequence;
    Bytes largest;
    for (const TraceNode& node : role.trace.nodes) {
      if (node.kind != TraceNodeKind::kCompute) continue;
      largest = std::max(largest, node.op.activation_in_bytes + node.op.activation_out_bytes);
    }
    const double residual_stream =
        d(role.attn_batch) * d(mapped.shape.new_tokens) * d(model.hidden_size()) * act;
    m.activations = largest + Bytes(residual_stream);
    m.kv_capacity = std::max(Bytes(), hbm - m.weights - m.activations);
    // A stage of linear layers alone keeps no per-token cache: its capacity is unbounded by
    // tokens (capped to stay an int64_t).
    constexpr double kUnboundedTokens = 9e18;
    m.kv_capacity_tokens = static_cast<int64_t>(
        m.kv_bytes_per_token.si() > 0
            ? std::min(kUnboundedTokens, std::floor(m.kv_capacity.si() / m.kv_bytes_per_token.si()))
            : kUnboundedTokens);
    m.kv_capacity_sequences = static_cast<int64_t>(
        m.kv_bytes_per_sequence.si() > 0
            ? std::min(kUnboundedTokens,
                       std::floor(m.kv_capacity.si() / m.kv_bytes_per_sequence.si()))
            : kUnboundedTokens);
    result.push_back(m);
  }
  return result;
}

void check_fit(const MappedIteration& mapped, const std::vector<MemoryFootprint>& footprints) {
  std::string message;
  for (const MemoryFootprint& m : footprints) {
    if (m.fits()) continue;
    message += (message.empty() ? "" : "; ") + m.role + " (" + std::to_string(m.multiplicity) +
               " chips) needs " + b(m.needed()) + " per chip = weights " + b(m.weights) +
               " + KV cache " + b(m.kv_cache) + " + activations " + b(m.activations) +
               ", but has " + b(m.hbm) + " of HBM";
  }
  if (!message.empty()) {
    throw InputError(mapped.mapping.where, "mapping." + mapped.mapping.pool,
                     "the mapping does not fit: " + message);
  }
}

}  // namespace scoville::workloads
