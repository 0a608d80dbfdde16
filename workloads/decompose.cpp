#include "workloads/decompose.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "sim/base/rng.hpp"
#include "workloads/attention_counts.hpp"
#include "workloads/moe_routing.hpp"

namespace scoville::workloads {

namespace {

// [ASSUMPTION] Vector-unit FLOPs per element, counted as the arithmetic a straightforward kernel
// does. They are small next to the matmuls; the hardware model prices vector work separately.
constexpr double kNormFlopsPerValue = 4.0;      // square, accumulate, scale, weight (RMSNorm)
constexpr double kRopeFlopsPerValue = 3.0;      // 2 multiplies + 1 add per rotated element
constexpr double kSoftmaxFlopsPerScore = 5.0;   // scale, max, subtract, exp, sum (+ divide)
constexpr double kSinkFlopsPerRow = 2.0;        // exp of the sink logit, add to the denominator
constexpr double kSwigluFlopsPerValue = 5.0;    // silu(gate) = gate / (1 + exp(-gate)), * up
constexpr double kResidualFlopsPerValue = 1.0;  // one add
constexpr double kRouterFlopsPerScore = 3.0;    // compare for top-k, then softmax of the kept
constexpr double kCombineFlopsPerValue = 2.0;   // weighted sum of the top_k expert outputs
constexpr double kSamplingFlopsPerLogit = 5.0;  // softmax over the vocabulary and a draw
constexpr double kGateFlopsPerValue = 5.0;      // sigmoid(gate) = 1 / (1 + exp(-gate)), * output
// A top-p sampler that sorts the vocabulary (vLLM's PyTorch path, apply_top_k_top_p and
// random_sample in vllm/v1/sample/ops/topk_topp_sampler.py), per logit of every sequence: the
// FP32 upcast (read 2, write 4) and the temperature (4, 4); the sort, a segmented radix sort of
// FP32 keys with int64 indices in four 8-bit digit passes (48, 48) after writing the indices
// (0, 8); top-p: softmax of the sorted row (12, 4), cumulative sum (4, 4), mask (4, 1), masked
// fill (5, 4); the scatter back to vocabulary order (12, 4); the draw: softmax (12, 4), exponential
// noise (0, 4), divide (8, 4), argmax (4, 0). [EST] from that code; checked against measured sort
// times in docs/software.md ("Sampling").
constexpr double kSortSamplerReadBytesPerLogit = 115.0;
constexpr double kSortSamplerWriteBytesPerLogit = 93.0;
// Digit extraction and ranking in each of the four passes (4 each), the two softmaxes (5 each),
// the scan, mask, temperature, noise (3), divide and argmax.
constexpr double kSortSamplerFlopsPerLogit = 34.0;
// DSA indexer, per scored (query token, key) pair and indexer head: ReLU, the head's weight,
// the sum over heads; then per pair a compare for the top-k selection.
constexpr double kIndexerFlopsPerHeadScore = 3.0;
constexpr double kTopkFlopsPerScore = 1.0;
// Gated DeltaNet, per value: the depthwise convolution (multiply-add per tap) and its SiLU;
// per token and value head: the decay and beta gates (softplus, exp, sigmoid); per key value:
// the L2 norm of q and k.
constexpr double kSiluFlopsPerValue = 4.0;
constexpr double kGateFlopsPerHead = 10.0;
constexpr double kL2NormFlopsPerValue = 3.0;
// The recurrence runs three products against each value head's [key x value] state per token:
// the state's prediction for the key (S^T k), the rank-1 delta update (S += k delta^T) and the
// output (S^T q); the decay scales the state once per token (vector work).
constexpr int64_t kStateProductsPerToken = 3;

double d(int64_t v) { return static_cast<double>(v); }

Bytes bytes_of(double values, NumberFormat format) {
  return Bytes(values * bytes_per_value(format));
}

// The math runs at the wider of the two operands' precisions (e.g. MXFP4 weights against BF16
// activations multiply in BF16 once dequantized).
MathPrecision math_for(NumberFormat a, NumberFormat b) {
  return math_precision_of(bits_per_value(a) >= bits_per_value(b) ? a : b);
}

// Sequences of one shape, `count` of them: they share one attention op.
struct SequenceGroup {
  SequenceShape shape;
  int64_t count = 0;
  int64_t context_before() const { return shape.context - shape.new_tokens; }
  int64_t tokens() const { return count * shape.new_tokens; }
};

// Groups in order of first appearance, so that the op order is a function of the batch alone.
std::vector<SequenceGroup> group_sequences(const BatchShape& batch) {
  std::vector<SequenceGroup> groups;
  for (const SequenceShape& s : batch.sequences) {
    auto same = [&s](const SequenceGroup& g) { return g.shape == s; };
    auto it = std::find_if(groups.begin(), groups.end(), same);
    if (it == groups.end()) {
      groups.push_back(SequenceGroup{s, 1});
    } else {
      ++it->count;
    }
  }
  return groups;
}

// Builds the op list of one iteration. Holds the iteration-wide numbers every op needs.
class TraceBuilder {
 public:
  TraceBuilder(const ModelConfig& model, const BatchShape& shape, const DecomposeOptions& options)
      : model_(model),
        shape_(shape),
        options_(options),
        precision_(model.precision()),
        groups_(group_sequences(shape)),
        tokens_(shape.tokens()),
        hidden_(model.hidden_size()) {
    for (const SequenceGroup& g : groups_) {
      (g.shape.phase == Phase::kDecode ? decode_tokens_ : prefill_tokens_) += g.tokens();
      head_rows_ += g.shape.phase == Phase::kDecode ? g.tokens() : g.count;
    }
  }

  BatchTrace build() {
    BatchTrace trace;
    trace.shape = shape_;
    ops_ = &trace.ops;
    routing_ = &trace.routing;
    add_embedding("embedding", Sharding::kVocabLookup, -1);
    for (int layer = 0; layer < model_.layers(); ++layer) add_layer(layer);
    add_head(-1);
    for (int i = 0; i < model_.mtp_layers(); ++i) add_mtp(static_cast<int>(model_.layers()) + i);
    return trace;
  }

 private:
  // instances x [m x k] * [k x n]. `weights` are the bytes of all instances' parameters;
  // `input_format` is what the kernel quantizes its input to (the activations' format unless the
  // checkpoint quantizes the layer's inputs, as W4A4 MLPs do): the math runs at the wider of it
  // and the weights' format.
  void matmul(const std::string& name, Sharding sharding, int layer, int64_t m, int64_t n,
              int64_t k, int64_t instances, NumberFormat weight_format, Bytes weights,
              std::optional<NumberFormat> input_format = std::nullopt) {
    Op op;
    op.name = name;
    op.layer = layer;
    op.kind = OpKind::kMatmul;
    op.sharding = sharding;
    op.m = m;
    op.n = n;
    op.k = k;
    op.instances = instances;
    op.weight_format = weight_format;
    op.math = math_for(weight_format, input_format.value_or(precision_.activations));
    op.flops = Flops(2.0 * d(m) * d(n) * d(k) * d(instances));
    op.weight_bytes = weights;
    op.activation_in_bytes = activations(d(m) * d(k) * d(instances));
    op.activation_out_bytes = residual_values(d(m) * d(n) * d(instances));
    ops_->push_back(op);
  }

  // A matmul on `rows` tokens (default: all of the iteration) against one [k x n] weight (+ n
  // biases).
  void dense_matmul(const std::string& name, Sharding sharding, int layer, int64_t n, int64_t k,
                    bool bias, int64_t rows = -1) {
    const double parameters = d(k) * d(n) + (bias ? d(n) : 0.0);
    matmul(name, sharding, layer, rows < 0 ? tokens_ : rows, n, k, 1, precision_.weights,
           bytes_of(parameters, precision_.weights));
  }

  // A dense-FFN or shared-expert matmul: the MLP formats (precision.mlp, mlp_activations).
  void mlp_matmul(const std::string& name, Sharding sharding, int layer, int64_t n, int64_t k,
                  bool bias) {
    const NumberFormat format = precision_.mlp_format();
    matmul(name, sharding, layer, tokens_, n, k, 1, format,
           bytes_of(d(k) * d(n), format) + bytes_of(bias ? d(n) : 0.0, precision_.weights),
           precision_.mlp_activation_format());
  }

  // `input_format` / `output_format`: what the op reads and writes (default the activations';
  // the residual stream's for the ops that read matmul outputs or add onto the residual stream).
  void vector(const std::string& name, Sharding sharding, int layer, double flops, double values_in,
              double values_out, Bytes weights = Bytes(),
              std::optional<NumberFormat> input_format = std::nullopt,
              std::optional<NumberFormat> output_format = std::nullopt) {
    Op op;
    op.name = name;
    op.layer = layer;
    op.kind = OpKind::kVector;
    op.sharding = sharding;
    op.m = tokens_;
    op.weight_format = precision_.weights;
    op.math = math_precision_of(precision_.activations);
    op.flops = Flops(flops);
    op.weight_bytes = weights;
    op.activation_in_bytes = bytes_of(values_in, input_format.value_or(precision_.activations));
    op.activation_out_bytes = bytes_of(values_out, output_format.value_or(precision_.activations));
    ops_->push_back(op);
  }

  // A norm reads the residual stream and writes the next matmul's input.
  void norm(const std::string& name, Sharding sharding, int layer, int64_t width, int64_t rows) {
    const double values = d(rows) * d(width);
    vector(name, sharding, layer, kNormFlopsPerValue * values, values, values,
           bytes_of(d(width), precision_.weights), precision_.residual);
  }

  // The residual add: a matmul's output onto the residual stream, both in the residual format.
  void residual(const std::string& name, Sharding sharding, int layer) {
    const double values = d(tokens_) * d(hidden_);
    vector(name, sharding, layer, kResidualFlopsPerValue * values, 2.0 * values, values, Bytes(),
           precision_.residual, precision_.residual);
  }

  Bytes activations(double values) const { return bytes_of(values, precision_.activations); }
  Bytes residual_values(double values) const { return bytes_of(values, precision_.residual); }

  // `sharding`: the main model's table is vocab-parallel; an MTP module's lookup is mapped with
  // the MTP layer's FFN-side ops.
  void add_embedding(const std::string& name, Sharding sharding, int layer) {
    // A lookup: one table row read per token, no arithmetic.
    const double values = d(tokens_) * d(hidden_);
    vector(name, sharding, layer, 0.0, 0.0, values, bytes_of(values, precision_.embeddings));
  }

  void add_layer(int layer) {
    norm("attn_norm", Sharding::kAttentionNorm, layer, hidden_, tokens_);
    if (model_.layer_attention(layer) == LayerAttention::kLinear) {
      add_linear_attention(layer);
    } else if (model_.attention().type == AttentionType::kMla) {
      add_mla_attention(layer);
    } else {
      add_gqa_attention(layer);
    }
    residual("attn_residual", Sharding::kAttentionResidual, layer);
    norm("ffn_norm", Sharding::kFfnNorm, layer, hidden_, tokens_);
    if (model_.layer_is_moe(layer)) {
      add_moe(layer);
    } else {
      add_swiglu("ffn", layer, model_.ffn().intermediate_size, model_.ffn().bias);
    }
    residual("ffn_residual", Sharding::kFfnResidual, layer);
  }

  void add_gqa_attention(int layer) {
    const AttentionConfig& a = model_.attention();
    const int64_t qkv_out = (a.heads * a.query_projections() + 2 * a.kv_heads) * a.head_dim;
    dense_matmul("attn_qkv", Sharding::kQkvColumns, layer, qkv_out, hidden_, a.bias);
    const double rotated = d(tokens_) * d(a.heads + a.kv_heads) * d(a.head_dim);
    vector("attn_rope", Sharding::kRotary, layer, kRopeFlopsPerValue * rotated, rotated, rotated);
    for (const SequenceGroup& g : groups_) {
      add_attention_core(layer, g, a.kv_heads, a.heads / a.kv_heads, a.head_dim, a.head_dim);
    }
    if (a.output_gate) {
      const double values = d(tokens_) * d(a.heads) * d(a.head_dim);
      vector("attn_gate", Sharding::kQueryHeadVector, layer, kGateFlopsPerValue * values,
             2.0 * values, values);
    }
    dense_matmul("attn_out", Sharding::kOutputRows, layer, hidden_, a.heads * a.head_dim, a.bias);
  }

  // MLA: shared down-projections and norms on every token, then per phase the cheaper form.
  void add_mla_attention(int layer) {
    const AttentionConfig& a = model_.attention();
    const int64_t q_out = a.heads * a.qk_head_dim();
    if (a.q_lora_rank > 0) {
      dense_matmul("attn_q_down", Sharding::kAttentionReplicated, layer, a.q_lora_rank, hidden_,
                   false);
      norm("attn_q_norm", Sharding::kAttentionReplicated, layer, a.q_lora_rank, tokens_);
      dense_matmul("attn_q_up", Sharding::kHeadColumns, layer, q_out, a.q_lora_rank, false);
    } else {
      dense_matmul("attn_q", Sharding::kHeadColumns, layer, q_out, hidden_, false);
    }
    dense_matmul("attn_kv_down", Sharding::kAttentionReplicated, layer,
                 a.kv_lora_rank + a.qk_rope_head_dim, hidden_, false);
    norm("attn_kv_norm", Sharding::kAttentionReplicated, layer, a.kv_lora_rank, tokens_);
    const double rotated = d(tokens_) * d(a.heads + 1) * d(a.qk_rope_head_dim);
    vector("attn_rope", Sharding::kRotary, layer, kRopeFlopsPerValue * rotated, rotated, rotated);
    // DSA runs MLA in its absorbed (MQA) form for prefill too (DeepSeek-V3.2-Exp paper, sec. 2.1):
    // each query's top-k keys differ, so there is no shared context to expand once.
    const bool sparse = a.has_indexer();
    if (sparse) add_indexer(layer);
    const int64_t absorbed_rows = sparse ? tokens_ : decode_tokens_;
    if (absorbed_rows > 0) add_mla_absorbed(layer, absorbed_rows, sparse);
    if (!sparse && prefill_tokens_ > 0) add_mla_expanded(layer);
    dense_matmul("attn_out", Sharding::kOutputRows, layer, hidden_, a.heads * a.v_head_dim, false);
  }

  // Decode: W_UK (kv_b's K half) multiplies each head's no-RoPE query into the latent space and
  // W_UV (the V half) takes each head's latent output back to v_head_dim; attention itself runs
  // against one cached latent per token (kv_lora + rope wide for scores, kv_lora for values).
  // `rows`: the tokens it runs on (decode ones; every one when `all_phases`).
  void add_mla_absorbed(int layer, int64_t rows, bool all_phases) {
    const AttentionConfig& a = model_.attention();
    const auto per_head = [&](const std::string& name, int64_t n, int64_t k) {
      matmul(name, Sharding::kHeadInstances, layer, rows, n, k, a.heads, precision_.weights,
             bytes_of(d(a.heads) * d(k) * d(n), precision_.weights));
    };
    per_head("attn_k_absorb", a.kv_lora_rank, a.qk_nope_head_dim);
    for (const SequenceGroup& g : groups_) {
      if (g.shape.phase != Phase::kDecode && !all_phases) continue;
      add_attention_core(layer, g, 1, a.heads, a.kv_lora_rank + a.qk_rope_head_dim, a.kv_lora_rank);
    }
    per_head("attn_v_absorb", a.v_head_dim, a.kv_lora_rank);
  }

  // Prefill: kv_b up-projects the latent of every key a chunk attends to (the cached prefix
  // from memory and the chunk itself) into per-head K_nope and V; attention is then multi-head
  // with qk_nope + qk_rope wide scores and v_head_dim values. A prefix is up-projected again for
  // each chunk, as chunked-prefill MLA kernels do.
  void add_mla_expanded(int layer) {
    const AttentionConfig& a = model_.attention();
    int64_t keys = 0;
    for (const SequenceGroup& g : groups_) {
      if (g.shape.phase == Phase::kPrefill) {
        keys += g.count * model_.attended_context(layer, g.shape.context);
      }
    }
    const int64_t n = a.heads * (a.qk_nope_head_dim + a.v_head_dim);
    matmul("attn_kv_up", Sharding::kHeadColumns, layer, keys, n, a.kv_lora_rank, 1,
           precision_.weights, bytes_of(d(a.kv_lora_rank) * d(n), precision_.weights));
    for (const SequenceGroup& g : groups_) {
      if (g.shape.phase != Phase::kPrefill) continue;
      add_attention_core(layer, g, a.heads, 1, a.qk_head_dim(), a.v_head_dim);
    }
  }

  // Scores and weighted values of one group of equal sequences: `kv_heads` KV heads per
  // sequence, each shared by `group` query heads, scores `qk_dim` wide and values `pv_dim` wide;
  // then the softmax (with sinks) as vector work.
  void add_attention_core(int layer, const SequenceGroup& g, int64_t kv_heads, int64_t group,
                          int64_t qk_dim, int64_t pv_dim) {
    const AttentionConfig& a = model_.attention();
    const AttendedCounts counts = attended_counts(layer, g);
    const int64_t pairs = counts.pairs;
    const double query_heads = d(kv_heads) * d(group);
    const double scored = d(g.count) * query_heads * d(pairs);  // all heads, all sequences
    const Bytes kv_row = model_.attention_row_bytes();
    const int64_t tokens = g.tokens();

    Op op;
    op.name = "attention";
    op.layer = layer;
    op.kind = OpKind::kAttention;
    op.sharding = Sharding::kAttentionCore;
    op.cache = CacheUse::kKvCache;
    op.m = group * g.shape.new_tokens;
    op.n = model_.attended_context(layer, g.shape.context);
    op.k = qk_dim;
    op.instances = g.count * kv_heads;
    op.weight_format = precision_.kv_cache;
    op.math = math_for(precision_.kv_cache, precision_.activations);
    op.flops = Flops(2.0 * scored * d(qk_dim + pv_dim));
    op.kv_read_bytes = kv_row * (d(g.count) * d(counts.cached));
    op.kv_write_bytes = kv_row * d(tokens);
    op.activation_in_bytes = activations(d(tokens) * query_heads * d(qk_dim));
    op.activation_out_bytes = activations(d(tokens) * query_heads * d(pv_dim));
    ops_->push_back(op);

    // Scores stay in the fused attention kernel's on-chip tiles: no activation traffic.
    const double sink_flops = a.sinks ? kSinkFlopsPerRow * d(tokens) * query_heads : 0.0;
    const Bytes sink_weights = a.sinks ? bytes_of(query_heads, precision_.weights) : Bytes();
    vector("attn_softmax", Sharding::kQueryHeadVector, layer,
           kSoftmaxFlopsPerScore * scored + sink_flops, 0.0, 0.0, sink_weights);
  }

  // Per sequence of a group: query-key pairs scored and cached tokens read, by the layer's kind.
  struct AttendedCounts {
    int64_t pairs = 0;
    int64_t cached = 0;
  };
  AttendedCounts attended_counts(int layer, const SequenceGroup& g) const {
    const AttentionConfig& a = model_.attention();
    const int64_t before = g.context_before();
    const int64_t fresh = g.shape.new_tokens;
    switch (model_.layer_attention(layer)) {
      case LayerAttention::kSliding:
        return {causal_attended_pairs(before, fresh, a.sliding_window),
                cached_tokens_attended(before, a.sliding_window)};
      case LayerAttention::kChunked:
        return {chunked_attended_pairs(before, fresh, a.attention_chunk),
                chunked_cached_tokens_attended(before, a.attention_chunk)};
      case LayerAttention::kFull:
      case LayerAttention::kLinear:  // not reached: linear layers have no attention core
        break;
    }
    if (a.has_indexer()) {
      return {causal_attended_pairs(before, fresh, a.index_topk),
              selected_cached_tokens(before, fresh, a.index_topk)};
    }
    return {causal_attended_pairs(before, fresh, 0), cached_tokens_attended(before, 0)};
  }

  // DeepSeek Sparse Attention's lightning indexer (DeepSeek-V3.2-Exp inference/model.py,
  // Indexer): per token, index_heads FP8 queries from the query latent, one FP8 key and a
  // weight per head from the hidden state; per sequence, every cached key scored by every
  // head (a ReLU'd dot product, weighted and summed over heads), then the top-k kept. Its
  // keys are cached beside the latent (indexer_key_bytes per token). vLLM keeps the indexer
  // whole on every attention rank [ASSUMPTION: ReplicatedLinear, as MLA's latent projections].
  void add_indexer(int layer) {
    const AttentionConfig& a = model_.attention();
    const int64_t q_in = a.q_lora_rank > 0 ? a.q_lora_rank : hidden_;
    const Sharding whole = Sharding::kAttentionReplicated;
    dense_matmul("attn_indexer_q", whole, layer, a.index_heads * a.index_head_dim, q_in, false);
    matmul(
        "attn_indexer_k", whole, layer, tokens_, a.index_head_dim, hidden_, 1, precision_.weights,
        bytes_of(d(hidden_) * d(a.index_head_dim) + 2.0 * d(a.index_head_dim), precision_.weights));
    dense_matmul("attn_indexer_weights", whole, layer, a.index_heads, hidden_, false);
    const Bytes key = model_.indexer_key_bytes();
    for (const SequenceGroup& g : groups_) {
      // Every key up to the token itself is scored: causal pairs with no window.
      const int64_t pairs = causal_attended_pairs(g.context_before(), g.shape.new_tokens, 0);
      const double scored = d(g.count) * d(pairs);
      Op op;
      op.name = "attn_indexer_scores";
      op.layer = layer;
      op.kind = OpKind::kMatmul;  // [heads x new tokens, head_dim] x [head_dim, keys]
      op.sharding = whole;
      op.cache = CacheUse::kIndexerKeys;
      op.m = a.index_heads * g.shape.new_tokens;
      op.n = g.shape.context;
      op.k = a.index_head_dim;
      op.instances = g.count;
      op.weight_format = NumberFormat::kFp8;
      op.math = MathPrecision::kFp8;  // FP8 queries against FP8 keys (the paper, sec. 2.1)
      op.flops = Flops(2.0 * scored * d(a.index_heads) * d(a.index_head_dim));
      op.kv_read_bytes = key * (d(g.count) * d(g.context_before()));
      op.kv_write_bytes = key * d(g.tokens());
      op.activation_in_bytes =
          bytes_of(d(g.tokens()) * d(a.index_heads) * d(a.index_head_dim), NumberFormat::kFp8);
      op.activation_out_bytes = activations(d(g.tokens()) * d(a.index_topk));  // selected ids
      ops_->push_back(op);
      vector("attn_indexer_topk", whole, layer,
             (kIndexerFlopsPerHeadScore * d(a.index_heads) + kTopkFlopsPerScore) * scored, 0.0,
             0.0);
    }
  }

  // Gated DeltaNet (Qwen3-Next linear_attention layers): the input projection to q, k, v, the
  // output gate z and the beta / decay inputs; the short depthwise convolution; then per
  // sequence the delta-rule recurrence against a fixed [key x value] state per value head,
  // read and written back once per iteration (a fresh prompt starts from zeros: no read);
  // the gated RMSNorm and the output projection. The recurrence lowers to matmul-like work
  // (three products per token against the state) plus the decay as vector work.
  void add_linear_attention(int layer) {
    const AttentionConfig& a = model_.attention();
    const int64_t key_dim = a.linear_key_dim();
    const int64_t value_dim = a.linear_value_dim();
    const int64_t channels = a.linear_conv_channels();
    dense_matmul("attn_linear_in_proj", Sharding::kHeadColumns, layer,
                 2 * key_dim + 2 * value_dim + 2 * a.linear_value_heads, hidden_, false);
    const double conv_values = d(tokens_) * d(channels);
    const double conv_flops = (2.0 * d(a.linear_conv_kernel) + kSiluFlopsPerValue) * conv_values +
                              kL2NormFlopsPerValue * d(tokens_) * 2.0 * d(key_dim) +
                              kGateFlopsPerHead * d(tokens_) * d(a.linear_value_heads);
    vector("attn_linear_conv", Sharding::kHeadElementwise, layer, conv_flops, conv_values,
           conv_values,
           bytes_of(d(channels) * d(a.linear_conv_kernel) + 2.0 * d(a.linear_value_heads),
                    precision_.weights));
    const double state_values =
        d(a.linear_value_heads) * d(a.linear_key_head_dim) * d(a.linear_value_head_dim);
    vector("attn_linear_decay", Sharding::kHeadElementwise, layer, d(tokens_) * state_values, 0.0,
           0.0);
    const Bytes state = model_.state_bytes_per_layer();
    for (const SequenceGroup& g : groups_) {
      Op op;
      op.name = "attn_linear_recurrence";
      op.layer = layer;
      op.kind = OpKind::kMatmul;
      op.sharding = Sharding::kHeadInstances;
      op.cache = CacheUse::kRecurrentState;
      op.m = kStateProductsPerToken * g.shape.new_tokens;
      op.n = a.linear_value_head_dim;
      op.k = a.linear_key_head_dim;
      op.instances = g.count * a.linear_value_heads;
      op.weight_format = precision_.kv_cache;
      op.math = math_for(precision_.kv_cache, precision_.activations);
      op.flops = Flops(2.0 * d(op.m) * d(op.n) * d(op.k) * d(op.instances));
      op.kv_read_bytes = g.context_before() > 0 ? state * d(g.count) : Bytes();
      op.kv_write_bytes = state * d(g.count);
      op.activation_in_bytes = activations(d(g.tokens()) * d(2 * key_dim + value_dim));
      op.activation_out_bytes = activations(d(g.tokens()) * d(value_dim));
      ops_->push_back(op);
    }
    const double values = d(tokens_) * d(value_dim);
    vector("attn_linear_norm", Sharding::kHeadElementwise, layer,
           (kNormFlopsPerValue + kSwigluFlopsPerValue) * values, 2.0 * values, values,
           bytes_of(d(a.linear_value_head_dim), precision_.weights));
    dense_matmul("attn_linear_out", Sharding::kOutputRows, layer, hidden_, value_dim, false);
  }

  // Dense SwiGLU on every token: gate and up as one [hidden x 2I] matmul, then down.
  void add_swiglu(const std::string& prefix, int layer, int64_t intermediate, bool bias) {
    mlp_matmul(prefix + "_gate_up", Sharding::kFfnColumns, layer, 2 * intermediate, hidden_, bias);
    const double values = d(tokens_) * d(intermediate);
    vector(prefix + "_act", Sharding::kFfnElementwise, layer, kSwigluFlopsPerValue * values,
           2.0 * values, values, Bytes(), precision_.residual);
    mlp_matmul(prefix + "_down", Sharding::kFfnRows, layer, hidden_, intermediate, bias);
  }

  void add_moe(int layer) {
    const FfnConfig& f = model_.ffn();
    dense_matmul("moe_router", Sharding::kFfnReplicated, layer, f.experts, hidden_, f.router_bias);
    const double scores = d(tokens_) * d(f.experts);
    vector("moe_topk", Sharding::kFfnReplicated, layer, kRouterFlopsPerScore * scores, scores,
           d(tokens_) * d(f.top_k));
    if (f.shared_experts > 0) {
      // Shared experts see every token: side by side they are one wider dense SwiGLU.
      add_swiglu("moe_shared", layer, f.shared_experts * f.expert_intermediate_size, f.bias);
    }
    add_routed_experts(layer);
    const double combined = d(tokens_) * d(f.top_k) * d(hidden_);
    vector("moe_combine", Sharding::kFfnReplicated, layer, kCombineFlopsPerValue * combined,
           combined, d(tokens_) * d(hidden_), Bytes(), precision_.residual, precision_.residual);
  }

  // Tokens of each expert this layer touches (entries > 0, in expert order) and the layer's
  // routing record.
  std::vector<int64_t> route(int layer) {
    const FfnConfig& f = model_.ffn();
    const int64_t pairs = tokens_ * f.top_k;
    std::vector<int64_t> per_expert;
    if (options_.routing.distribution == RoutingDistribution::kExpected) {
      // The even split of the pairs over the expected number touched (counts differ by <= 1).
      const int64_t touched = experts_touched(f.experts, f.top_k, tokens_);
      per_expert.assign(static_cast<size_t>(touched), pairs / touched);
      for (int64_t i = 0; i < pairs % touched; ++i) ++per_expert[static_cast<size_t>(i)];
      per_expert.resize(static_cast<size_t>(f.experts), 0);
    } else {
      RngStream rng(options_.routing.seed, "moe_routing/iteration" +
                                               std::to_string(options_.routing.iteration) +
                                               "/layer" + std::to_string(layer));
      per_expert = draw_tokens_per_expert(options_.routing, f.experts, f.top_k, tokens_, rng);
    }
    LayerRouting record;
    record.layer = layer;
    record.max_tokens = *std::max_element(per_expert.begin(), per_expert.end());
    record.mean_tokens = d(pairs) / d(f.experts);
    record.imbalance = routing_imbalance(per_expert);
    std::vector<int64_t> touched;
    for (int64_t count : per_expert) {
      if (count > 0) touched.push_back(count);
    }
    record.experts_touched = static_cast<int64_t>(touched.size());
    routing_->push_back(record);
    return touched;
  }

  // Experts as grouped matmuls: one instance per distinct expert touched, m = its mean token
  // count rounded up (the shape a kernel tiles), tokens_per_instance the real counts. FLOPs and
  // activation bytes count the real token-expert pairs, so rounding m never inflates the work.
  void add_routed_experts(int layer) {
    const FfnConfig& f = model_.ffn();
    const std::vector<int64_t> per_instance = route(layer);
    const int64_t touched = static_cast<int64_t>(per_instance.size());
    const int64_t pairs = tokens_ * f.top_k;
    const int64_t m = (pairs + touched - 1) / touched;
    const int64_t inter = f.expert_intermediate_size;
    const auto expert_matmul = [&](const std::string& name, Sharding sharding, int64_t n,
                                   int64_t k) {
      const double matrix = d(touched) * d(k) * d(n);
      const double biases = f.bias ? d(touched) * d(n) : 0.0;
      matmul(name, sharding, layer, m, n, k, touched, precision_.experts,
             bytes_of(matrix, precision_.experts) + bytes_of(biases, precision_.weights),
             precision_.mlp_activation_format());
      Op& op = ops_->back();
      op.flops = Flops(2.0 * d(pairs) * d(n) * d(k));
      op.activation_in_bytes = activations(d(pairs) * d(k));
      op.activation_out_bytes = residual_values(d(pairs) * d(n));
      op.tokens_per_instance = per_instance;
    };
    expert_matmul("moe_experts_gate_up", Sharding::kExpertColumns, 2 * inter, hidden_);
    const double values = d(pairs) * d(inter);
    vector("moe_experts_act", Sharding::kExpertElementwise, layer, kSwigluFlopsPerValue * values,
           2.0 * values, values, Bytes(), precision_.residual);
    expert_matmul("moe_experts_down", Sharding::kExpertRows, hidden_, inter);
  }

  // An MTP module's head (layer >= 0) is mapped with the MTP layer's FFN-side ops, its LM head
  // column-parallel like the main one.
  void add_head(int layer) {
    const bool main = layer < 0;
    norm(main ? "final_norm" : "mtp_final_norm",
         main ? Sharding::kHeadNorm : Sharding::kFfnReplicated, layer, hidden_, tokens_);
    // Prefill needs logits only for the last prompt token of each sequence; decode (and the
    // draft tokens it verifies) needs them for every new token.
    const int64_t vocab = model_.vocab_size();
    matmul("lm_head", Sharding::kHeadColumns, layer, head_rows_, vocab, hidden_, 1,
           precision_.embeddings, bytes_of(d(hidden_) * d(vocab), precision_.embeddings));
    const double logits = d(head_rows_) * d(vocab);
    if (main && model_.sampler() == Sampler::kFullSort) {
      add_sorting_sampler(logits);
      return;
    }
    vector("sampling", main ? Sharding::kVocabSampling : Sharding::kFfnReplicated, layer,
           kSamplingFlopsPerLogit * logits, logits, d(head_rows_));
    ops_->back().m = head_rows_;
  }

  // Top-p by sorting: every rank of the attention group holds the whole vocabulary's logits
  // (vLLM gathers them) and sorts them all, so the op is not split. Its traffic is FP32 values
  // and int64 indices, whatever the model's activation format.
  void add_sorting_sampler(double logits) {
    Op op;
    op.name = "sampling_sort";
    op.layer = -1;
    op.kind = OpKind::kVector;
    op.sharding = Sharding::kAttentionReplicated;
    op.m = head_rows_;
    op.weight_format = precision_.weights;
    op.math = math_precision_of(precision_.activations);
    op.flops = Flops(kSortSamplerFlopsPerLogit * logits);
    op.activation_in_bytes = Bytes(kSortSamplerReadBytesPerLogit * logits);
    op.activation_out_bytes = Bytes(kSortSamplerWriteBytesPerLogit * logits);
    ops_->push_back(op);
  }

  // One DeepSeek-V3 MTP module on every token: the next token's embedding and the main model's
  // hidden state, each normed, concatenated and projected back to hidden; one MoE layer; the
  // shared LM head. Its predictions are the drafts the next iteration verifies.
  void add_mtp(int layer) {
    add_embedding("mtp_embedding", Sharding::kFfnReplicated, layer);
    norm("mtp_enorm", Sharding::kFfnReplicated, layer, hidden_, tokens_);
    norm("mtp_hnorm", Sharding::kFfnReplicated, layer, hidden_, tokens_);
    dense_matmul("mtp_eh_proj", Sharding::kFfnReplicated, layer, hidden_, 2 * hidden_, false);
    add_layer(layer);
    add_head(layer);
  }

  const ModelConfig& model_;
  const BatchShape& shape_;
  const DecomposeOptions& options_;
  const PrecisionConfig& precision_;
  const std::vector<SequenceGroup> groups_;
  const int64_t tokens_;  // new tokens over all sequences
  const int64_t hidden_;
  int64_t decode_tokens_ = 0;
  int64_t prefill_tokens_ = 0;
  int64_t head_rows_ = 0;  // LM head rows: decode tokens + one per prefill sequence
  std::vector<Op>* ops_ = nullptr;
  std::vector<LayerRouting>* routing_ = nullptr;
};

void check_sequence(const SequenceShape& s, const std::string& what) {
  if (s.new_tokens < 1 || s.context < s.new_tokens) {
    throw std::invalid_argument(
        what + ": expected new_tokens >= 1 and context >= new_tokens; found new_tokens " +
        std::to_string(s.new_tokens) + ", context " + std::to_string(s.context));
  }
}

}  // namespace

IterationTrace decompose_iteration(const ModelConfig& model, const IterationShape& shape) {
  if (shape.batch < 1 || shape.new_tokens < 1 || shape.context < shape.new_tokens) {
    throw std::invalid_argument(
        "decompose_iteration: expected batch >= 1, new_tokens >= 1 and context >= new_tokens; "
        "found batch " +
        std::to_string(shape.batch) + ", new_tokens " + std::to_string(shape.new_tokens) +
        ", context " + std::to_string(shape.context));
  }
  BatchTrace batch = TraceBuilder(model, BatchShape::uniform(shape), DecomposeOptions{}).build();
  IterationTrace trace;
  trace.shape = shape;
  trace.ops = std::move(batch.ops);
  return trace;
}

BatchTrace decompose_batch(const ModelConfig& model, const BatchShape& shape,
                           const DecomposeOptions& options) {
  if (shape.sequences.empty()) {
    throw std::invalid_argument("decompose_batch: expected at least one sequence");
  }
  for (size_t i = 0; i < shape.sequences.size(); ++i) {
    check_sequence(shape.sequences[i], "decompose_batch: sequence " + std::to_string(i));
  }
  if (model.ffn().type == FfnType::kMoe &&
      options.routing.distribution != RoutingDistribution::kExpected) {
    const std::string problem =
        routing_config_problem(options.routing, model.ffn().experts, model.ffn().top_k);
    if (!problem.empty()) throw std::invalid_argument("decompose_batch: routing: " + problem);
  }
  return TraceBuilder(model, shape, options).build();
}

}  // namespace scoville::workloads
